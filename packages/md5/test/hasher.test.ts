import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// The built package: its worker thread runs dist/worker.js.
import { MD5_SLOT_BYTES, returnMd5Slot, takeMd5Slot, WorkerMd5 } from '../dist/index.js';

const md5 = (data: Uint8Array) => createHash('md5').update(data).digest('hex');
const MiB = 1024 * 1024;

describe('WorkerMd5 (hashing in a worker thread, streams side by side)', () => {
  it('hashes moved, copied and shared bytes of several streams fed at once', async () => {
    const data = Array.from({ length: 6 }, (_, i) => randomBytes(3 * MiB + i * 4099));
    const hashes = data.map(() => new WorkerMd5());
    const shared = Buffer.from(new SharedArrayBuffer((data[0] as Buffer).length));
    (data[0] as Buffer).copy(shared);
    for (let offset = 0; offset < 4 * MiB; offset += 65_536 + 17) {
      data.forEach((bytes, i) => {
        const piece = bytes.subarray(offset, offset + 65_536 + 17);
        if (!piece.length) return;
        // Stream 0 from shared memory, 1 moved (a copy it owns), the others copied by update.
        if (i === 0) hashes[i]?.update(shared.subarray(offset, offset + piece.length));
        else if (i === 1) hashes[i]?.update(Buffer.from(piece));
        else hashes[i]?.update(piece);
      });
    }
    expect(await Promise.all(hashes.map((hash) => hash.digest()))).toEqual(data.map(md5));
  });

  it('hashes lent slots filled in place, beside copied bytes, and takes them back for the next user', async () => {
    const data = randomBytes(3 * MD5_SLOT_BYTES + 12_345);
    const hash = new WorkerMd5();
    const lent = new Set<number>();
    // The first bytes copied, then slots filled in two pieces each, the last one partly.
    hash.update(data.subarray(0, 1000));
    for (let offset = 1000; offset < data.length; ) {
      const slot = takeMd5Slot();
      expect(slot.bytes.length).toBe(MD5_SLOT_BYTES);
      expect(lent.has(slot.id)).toBe(false);
      lent.add(slot.id);
      const take = Math.min(MD5_SLOT_BYTES, data.length - offset);
      data.copy(slot.bytes, 0, offset, offset + take);
      const half = Math.floor(take / 2);
      hash.updateSlot(slot, 0, half, false);
      hash.updateSlot(slot, half, take - half, true);
      offset += take;
    }
    expect(await hash.digest()).toBe(md5(data));
    // A slot never handed to a stream goes back as it is.
    const unused = takeMd5Slot();
    returnMd5Slot(unused);
    expect(takeMd5Slot().id).toBe(unused.id);
  });

  it('copies bytes not in shared memory, so the caller may reuse them at once; pool buffers go round', async () => {
    const scratch = Buffer.alloc(3 * MiB);
    const parts = Array.from({ length: 20 }, () => randomBytes(scratch.length));
    const hash = new WorkerMd5();
    for (const part of parts) {
      part.copy(scratch);
      hash.update(scratch);
      scratch.fill(0);
    }
    expect(await hash.digest()).toBe(md5(Buffer.concat(parts)));
  });

  it('reads file ranges in order with the bytes sent before and after them, and fails a digest when the file is short', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-md5-'));
    const file = path.join(dir, 'data.bin');
    const bytes = randomBytes(9 * MiB + 5);
    fs.writeFileSync(file, bytes);
    const hash = new WorkerMd5();
    hash.update(bytes.subarray(0, 1000));
    hash.updateFromFile(file, 1000, 5 * MiB);
    hash.update(bytes.subarray(1000 + 5 * MiB, 2000 + 5 * MiB));
    hash.updateFromFile(file, 2000 + 5 * MiB, bytes.length - 3000 - 5 * MiB);
    hash.update(bytes.subarray(bytes.length - 1000));
    expect(await hash.digest()).toBe(md5(bytes));
    const short = new WorkerMd5();
    short.updateFromFile(file, 0, bytes.length + 1);
    await expect(short.digest()).rejects.toThrow(/ends before byte/);
    fs.rmSync(dir, { recursive: true });
  });

  it('hashes lazy streams (parts that arrive one after another) once their digests are asked for', async () => {
    const parts = Array.from({ length: 7 }, (_, i) => randomBytes(MiB + i));
    const hashes = parts.map(() => new WorkerMd5({ lazy: true }));
    parts.forEach((part, i) => {
      for (let offset = 0; offset < part.length; offset += 100_000) hashes[i]?.update(part.subarray(offset, offset + 100_000));
    });
    expect(await Promise.all(hashes.map((hash) => hash.digest()))).toEqual(parts.map(md5));
  });

  it('gives an empty stream the md5 of nothing, and forgets a dropped one', async () => {
    const empty = new WorkerMd5();
    const dropped = new WorkerMd5();
    dropped.update(randomBytes(1000));
    dropped.drop();
    expect(await empty.digest()).toBe(md5(Buffer.alloc(0)));
  });
});
