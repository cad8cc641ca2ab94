import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { mountNoDirectIo } from '../../../../test-support/mounts.js';
import { BlobIntegrityError } from './blob-store.js';
import { spoolPart } from './part-spool.js';

const MiB = 1024 * 1024;
const md5 = (data: Uint8Array) => createHash('md5').update(data).digest('hex');
const onLinux = process.platform === 'linux';

/** The bytes as a stream of uneven chunks, so that slot and page boundaries fall inside chunks. */
function chunked(data: Buffer, sizes = [65_536, 1, 4095, 300_001, 17]): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0, i = 0; offset < data.length; i++) {
    const size = sizes[i % sizes.length] as number;
    chunks.push(data.subarray(offset, offset + size));
    offset += size;
  }
  return Readable.from(chunks);
}

const dirs: string[] = [];
function scratch(parent = os.tmpdir()): string {
  const dir = fs.mkdtempSync(path.join(parent, 'panx-spool-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('spoolPart (a part received into a file through the md5 slots)', () => {
  it.each([
    ['one byte over a MiB', MiB + 1],
    ['exactly one slot', 4 * MiB],
    ['a page short of three slots', 12 * MiB - 4096],
    ['an odd size', 9 * MiB + 12_345],
  ])('stores %s byte for byte with O_DIRECT and the page cache alike', async (_name, size) => {
    const data = randomBytes(size);
    for (const directIo of [true, false]) {
      const file = path.join(scratch(), 'part');
      const stored = await spoolPart(chunked(data), file, 1, { size, md5: md5(data) }, { directIo });
      expect(stored).toEqual({ size, md5: md5(data), direct: directIo && onLinux });
      // The padded last page of a direct write is cut off again.
      expect(fs.statSync(file).size).toBe(size);
      expect(fs.readFileSync(file).equals(data)).toBe(true);
    }
  });

  it('stores a part of unknown size, and an empty one', async () => {
    const data = randomBytes(5 * MiB + 3);
    const file = path.join(scratch(), 'part');
    expect(await spoolPart(chunked(data), file, 2, {}, { directIo: true })).toMatchObject({ size: data.length, md5: md5(data) });
    expect(fs.readFileSync(file).equals(data)).toBe(true);
    const empty = path.join(scratch(), 'empty');
    expect(await spoolPart(Readable.from([]), empty, 3, {}, { directIo: true })).toMatchObject({ size: 0, md5: md5(Buffer.alloc(0)) });
    expect(fs.statSync(empty).size).toBe(0);
  });

  it.runIf(onLinux && fs.existsSync('/dev/shm'))('stores parts on tmpfs too (O_DIRECT since Linux 6.6, the page cache before)', async () => {
    const data = randomBytes(3 * MiB + 5);
    const file = path.join(scratch('/dev/shm'), 'part');
    const stored = await spoolPart(chunked(data), file, 1, { size: data.length, md5: md5(data) }, { directIo: true });
    expect(stored).toMatchObject({ size: data.length, md5: md5(data) });
    expect(fs.readFileSync(file).equals(data)).toBe(true);
  });

  it('refuses a part whose md5, size or length is wrong, and keeps nothing of it', async () => {
    const data = randomBytes(2 * MiB + 1);
    const dir = scratch();
    const file = path.join(dir, 'part');
    await expect(spoolPart(chunked(data), file, 4, { size: data.length, md5: md5(Buffer.from('other')) }, { directIo: true })).rejects.toThrow(
      /Part 4 has md5 [0-9a-f]{32} but [0-9a-f]{32} was declared/,
    );
    await expect(spoolPart(chunked(data), file, 5, { size: data.length + 1 }, { directIo: true })).rejects.toThrow(
      `Part 5 has ${data.length} bytes but ${data.length + 1} were declared`,
    );
    // Far longer than declared: given up on while it is still arriving.
    const long = Readable.from(
      (function* () {
        for (let i = 0; i < 40; i++) yield randomBytes(MiB);
      })(),
    );
    const refused = spoolPart(long, file, 6, { size: 2 * MiB }, { directIo: true });
    await expect(refused).rejects.toBeInstanceOf(BlobIntegrityError);
    await expect(refused).rejects.toThrow(`Part 6 is longer than ${2 * MiB} bytes`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('removes the file when the body breaks off, and goes on working afterwards', async () => {
    const dir = scratch();
    const broken = new Readable({ read() {} });
    broken.push(randomBytes(6 * MiB));
    setTimeout(() => broken.destroy(new Error('the client went away')), 20);
    await expect(spoolPart(broken, path.join(dir, 'broken'), 1, { size: 16 * MiB }, { directIo: true })).rejects.toThrow('the client went away');
    expect(fs.readdirSync(dir)).toEqual([]);
    // Many parts at once after the failure: slots went back to the pool, and every part is whole.
    const parts = Array.from({ length: 8 }, (_, i) => randomBytes(5 * MiB + i * 999));
    const stored = await Promise.all(
      parts.map((data, i) => spoolPart(chunked(data), path.join(dir, `p${i}`), i + 1, { size: data.length }, { directIo: true })),
    );
    expect(stored.map((part) => part.md5)).toEqual(parts.map(md5));
    for (const [i, data] of parts.entries()) expect(fs.readFileSync(path.join(dir, `p${i}`)).equals(data)).toBe(true);
  });

  const noDirect = mountNoDirectIo();
  afterAll(() => noDirect?.unmount());
  // Without root (mount refused) there is no such file system to try.
  it.runIf(noDirect)('writes through the page cache where the file system refuses O_DIRECT, byte for byte', async () => {
    const data = randomBytes(9 * MiB + 12_345);
    for (const name of ['first', 'second']) {
      // The first part finds out (EINVAL); the second goes straight to the page cache.
      const file = path.join((noDirect as { dir: string }).dir, name);
      expect(await spoolPart(chunked(data), file, 1, { size: data.length, md5: md5(data) }, { directIo: true })).toEqual({
        size: data.length,
        md5: md5(data),
        direct: false,
      });
      expect(fs.readFileSync(file).equals(data)).toBe(true);
    }
  });
});
