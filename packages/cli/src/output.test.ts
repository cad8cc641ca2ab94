import { describe, expect, it } from 'vitest';
import { formatBytes, formatTable } from './output.js';

describe('output', () => {
  it('aligns table columns and trims trailing blanks', () => {
    expect(
      formatTable(
        ['ID', 'NAME'],
        [
          ['project-1', 'alpha'],
          ['p2', ''],
        ],
      ),
    ).toBe('ID         NAME\nproject-1  alpha\np2');
    expect(formatTable(undefined, [])).toBe('');
  });

  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1536, '1.50 KiB'],
    [50_000_000, '47.7 MiB'],
    [5 * 1024 ** 4, '5.00 TiB'],
  ])('formats %d bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
