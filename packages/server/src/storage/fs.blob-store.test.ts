import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pageAlignedBuffer } from '@panx/md5';
import { afterAll, describe, expect, it } from 'vitest';
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

describe('FsBlobStore with direct I/O', () => {
  it('reads back any range of a blob of several parts, into page-aligned buffers (O_DIRECT) and others', async () => {
    const store = new FsBlobStore(root, { directIo: true, directReadMinBytes: 0 });
    const parts = [randomBytes(5 * MiB + 123), randomBytes(5 * MiB), randomBytes(MiB + 7)];
    const whole = Buffer.concat(parts);
    const uploadId = await store.startUpload('direct-blob');
    const stored = await Promise.all(parts.map((bytes, i) => store.putPart('direct-blob', uploadId, i + 1, Readable.from([bytes]), { size: bytes.length })));
    await store.completeUpload(
      'direct-blob',
      uploadId,
      stored.map((part, i) => ({ index: i + 1, partRef: part.partRef, size: part.size })),
    );
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
});
