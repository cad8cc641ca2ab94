import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pageAlignedBuffer } from '@panx/md5';
import { afterAll, describe, expect, it } from 'vitest';
import { mountNoDirectIo } from '../../../../test-support/mounts.js';
import type { BlobReader, ByteRange } from './blob-store.js';
import { FsBlobStore } from './fs.blob-store.js';

const MiB = 1024 * 1024;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-fs-store-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function readAll(reader: BlobReader, buffer: Buffer): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (;;) {
    const n = await reader.readInto(buffer);
    if (n === 0) break;
    pieces.push(Buffer.from(buffer.subarray(0, n)));
  }
  await reader.close();
  return Buffer.concat(pieces);
}

/**
 * Reads with up to `atOnce` calls outstanding, as send-blob does, each into its own buffer from
 * `buffers`; answers the bytes in the order the calls were made.
 */
async function readAllAtOnce(reader: BlobReader, buffers: Buffer[], atOnce: number): Promise<Buffer> {
  const pieces: Buffer[] = [];
  const reading: Promise<{ buffer: Buffer; n: number }>[] = [];
  const free = [...buffers];
  let ended = false;
  try {
    while (!ended || reading.length) {
      while (!ended && reading.length < atOnce && free.length) {
        const buffer = free.pop() as Buffer;
        const read = reader.readInto(buffer).then((n) => ({ buffer, n }));
        read.catch(() => undefined);
        reading.push(read);
      }
      const { buffer, n } = await (reading.shift() as Promise<{ buffer: Buffer; n: number }>);
      if (n === 0) ended = true;
      else pieces.push(Buffer.from(buffer.subarray(0, n)));
      free.push(buffer);
    }
  } finally {
    await reader.close();
  }
  return Buffer.concat(pieces);
}

async function storeParts(store: FsBlobStore, key: string, parts: Buffer[]): Promise<void> {
  const uploadId = await store.startUpload(key);
  const stored = await Promise.all(parts.map((bytes, i) => store.putPart(key, uploadId, i + 1, Readable.from([bytes]), { size: bytes.length })));
  await store.completeUpload(
    key,
    uploadId,
    stored.map((part, i) => ({ index: i + 1, partRef: part.partRef, size: part.size })),
  );
}

describe('FsBlobStore with direct I/O', () => {
  it('reads back any range of a blob of several parts, into page-aligned buffers (O_DIRECT) and others', async () => {
    const store = new FsBlobStore(root, { directIo: true, directReadMinBytes: 0 });
    const parts = [randomBytes(5 * MiB + 123), randomBytes(5 * MiB), randomBytes(MiB + 7)];
    const whole = Buffer.concat(parts);
    await storeParts(store, 'direct-blob', parts);
    const aligned = pageAlignedBuffer(MiB);
    // The native module is built by npm install: page-aligned memory is there to read into directly.
    expect(aligned).toBeDefined();
    const unaligned = Buffer.allocUnsafeSlow(MiB + 1).subarray(1);
    const ranges: (ByteRange | undefined)[] = [
      undefined,
      { start: 1, end: whole.length - 2 },
      { start: 4095, end: 3 * 4096 },
      // Across the end of the first part, starting and ending mid-page.
      { start: 5 * MiB + 100, end: 5 * MiB + 200 },
      { start: whole.length - 5, end: whole.length - 1 },
    ];
    for (const range of ranges) {
      const expected = range ? whole.subarray(range.start, range.end + 1) : whole;
      for (const buffer of [aligned, unaligned]) {
        if (!buffer) continue;
        expect((await readAll(await store.openReader('direct-blob', range), buffer)).equals(expected)).toBe(true);
      }
    }
  });

  it('answers reads that overlap (readsAtOnce) in the order they were asked, across parts and ranges', async () => {
    const store = new FsBlobStore(root, { directIo: true, directReadMinBytes: 0 });
    const parts = [randomBytes(5 * MiB + 4096 * 3 + 17), randomBytes(5 * MiB), randomBytes(3 * MiB + 1)];
    const whole = Buffer.concat(parts);
    await storeParts(store, 'overlap-blob', parts);
    const reader = await store.openReader('overlap-blob');
    expect(reader.readsAtOnce).toBeGreaterThan(1);
    await reader.close();
    const aligned = [pageAlignedBuffer(MiB), pageAlignedBuffer(MiB), pageAlignedBuffer(MiB), pageAlignedBuffer(MiB)].filter((b) => b !== undefined);
    expect(aligned).toHaveLength(4);
    // A mix of aligned and unaligned buffers: direct and page-cache reads of the same blob side by side.
    const mixed = [aligned[0] as Buffer, Buffer.allocUnsafeSlow(MiB + 1).subarray(1), aligned[1] as Buffer, Buffer.allocUnsafeSlow(700_000)];
    const ranges: (ByteRange | undefined)[] = [undefined, { start: 4097, end: whole.length - 4099 }, { start: 5 * MiB + 1, end: 10 * MiB + 5 }];
    for (const range of ranges) {
      const expected = range ? whole.subarray(range.start, range.end + 1) : whole;
      for (const [buffers, atOnce] of [
        [aligned, 2],
        [aligned, 4],
        [mixed, 3],
      ] as const) {
        const got = await readAllAtOnce(await store.openReader('overlap-blob', range), [...buffers], atOnce);
        expect(got.length).toBe(expected.length);
        expect(got.equals(expected)).toBe(true);
      }
    }
  });

  it('fails a read, and not the process, when a part file is shorter than its manifest says', async () => {
    const store = new FsBlobStore(root, { directIo: true, directReadMinBytes: 0 });
    const parts = [randomBytes(5 * MiB), randomBytes(2 * MiB)];
    await storeParts(store, 'short-blob', parts);
    const folder = path.join(root, 'blobs', 'short-blob');
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as { parts: { ref: string }[] };
    fs.truncateSync(path.join(folder, manifest.parts[1]?.ref as string), MiB);
    const buffers = [pageAlignedBuffer(MiB), pageAlignedBuffer(MiB)].filter((b) => b !== undefined);
    await expect(readAllAtOnce(await store.openReader('short-blob'), buffers, 2)).rejects.toThrow(/ends before byte/);
  });

  const noDirect = mountNoDirectIo();
  afterAll(() => noDirect?.unmount());
  // Without root (mount refused) there is no such file system to try.
  it.runIf(noDirect)('stores and reads through the page cache where the file system refuses O_DIRECT', async () => {
    const store = new FsBlobStore((noDirect as { dir: string }).dir, { directIo: true, directReadMinBytes: 0 });
    const parts = [randomBytes(5 * MiB + 99), randomBytes(MiB + 1)];
    const whole = Buffer.concat(parts);
    await storeParts(store, 'ramfs-blob', parts);
    const buffers = [pageAlignedBuffer(MiB), pageAlignedBuffer(MiB), pageAlignedBuffer(MiB)].filter((b) => b !== undefined);
    expect(buffers).toHaveLength(3);
    const range = { start: 4097, end: whole.length - 3 };
    expect((await readAllAtOnce(await store.openReader('ramfs-blob'), [...buffers], 3)).equals(whole)).toBe(true);
    expect((await readAllAtOnce(await store.openReader('ramfs-blob', range), [...buffers], 2)).equals(whole.subarray(range.start, range.end + 1))).toBe(true);
  });
});
