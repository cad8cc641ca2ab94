import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PartMd5sAhead } from './md5.js';

const MiB = 1024 * 1024;
const md5 = (data: Uint8Array) => createHash('md5').update(data).digest('hex');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-md5-ahead-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('PartMd5sAhead (an upload hashing its parts ahead, from the file, a group at a time)', () => {
  it('answers each part its own md5, whatever order the parts are asked in', async () => {
    const data = randomBytes(21 * MiB + 777);
    const file = path.join(dir, 'source');
    fs.writeFileSync(file, data);
    // Uneven parts, more than two groups of 8, a short last one.
    const parts: { offset: number; length: number }[] = [];
    for (let offset = 0, i = 0; offset < data.length; i++) {
      const length = Math.min(data.length - offset, MiB + (i % 3) * 4099);
      parts.push({ offset, length });
      offset += length;
    }
    expect(parts.length).toBeGreaterThan(16);
    const ahead = new PartMd5sAhead(file, parts);
    const order = parts.map((_, i) => i).sort((a, b) => ((a * 7) % parts.length) - ((b * 7) % parts.length));
    const answers = await Promise.all(order.map((i) => ahead.md5(i)));
    order.forEach((i, n) => {
      const part = parts[i] as { offset: number; length: number };
      expect(answers[n]).toBe(md5(data.subarray(part.offset, part.offset + part.length)));
    });
    // Asked again: the same answer, not hashed again.
    expect(ahead.md5(3)).toBe(ahead.md5(3));
  });

  it('rejects the parts of a file that is shorter than planned, and only when they are asked for', async () => {
    const file = path.join(dir, 'short');
    fs.writeFileSync(file, randomBytes(3 * MiB));
    const ahead = new PartMd5sAhead(file, [
      { offset: 0, length: 2 * MiB },
      { offset: 2 * MiB, length: 2 * MiB },
    ]);
    expect(await ahead.md5(0)).toBe(md5(fs.readFileSync(file).subarray(0, 2 * MiB)));
    await expect(ahead.md5(1)).rejects.toThrow(/ends before byte/);
  });
});
