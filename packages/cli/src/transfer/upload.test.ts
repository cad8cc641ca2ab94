import { UPLOAD_LIMITS } from '@panx/contract';
import { describe, expect, it } from 'vitest';
import { choosePartSize, planParts } from './upload.js';

const MiB = 1024 * 1024;

describe('upload planning', () => {
  it('clamps the requested part size to the limits', () => {
    expect(choosePartSize(100 * MiB, 16 * MiB, UPLOAD_LIMITS)).toBe(16 * MiB);
    expect(choosePartSize(100 * MiB, 1 * MiB, UPLOAD_LIMITS)).toBe(5 * MiB);
    expect(choosePartSize(100 * MiB, 10_000 * MiB, UPLOAD_LIMITS)).toBe(UPLOAD_LIMITS.maximumPartSize);
  });

  it('grows parts so that a file never needs more than 10000 of them', () => {
    const size = 200 * 1024 * MiB;
    const partSize = choosePartSize(size, 5 * MiB, UPLOAD_LIMITS);
    expect(Math.ceil(size / partSize)).toBeLessThanOrEqual(UPLOAD_LIMITS.maximumNumParts);
    expect(() => choosePartSize(UPLOAD_LIMITS.maximumFileSize + 1, 16 * MiB, UPLOAD_LIMITS)).toThrow(/over the maximum/);
  });

  it('cuts a file into parts whose last one holds the rest, and an empty file into one empty part', () => {
    expect(planParts(12 * MiB, 5 * MiB)).toEqual([
      { index: 1, offset: 0, length: 5 * MiB },
      { index: 2, offset: 5 * MiB, length: 5 * MiB },
      { index: 3, offset: 10 * MiB, length: 2 * MiB },
    ]);
    expect(planParts(10 * MiB, 5 * MiB)).toHaveLength(2);
    expect(planParts(0, 5 * MiB)).toEqual([{ index: 1, offset: 0, length: 0 }]);
  });
});
