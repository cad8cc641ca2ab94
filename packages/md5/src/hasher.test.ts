// The built module: its md5 worker runs from dist (worker.js), as in every package that uses it.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { holdMd5Slot, returnMd5Slot, takeMd5Slot, WorkerMd5 } from '@panx/md5';

describe('md5 slots with several users', () => {
  it('goes back to the pool only when the last hold is let go', () => {
    const slot = takeMd5Slot();
    holdMd5Slot(slot);
    returnMd5Slot(slot);
    // One hold left: the pool lends another buffer.
    const other = takeMd5Slot();
    expect(other.id).not.toBe(slot.id);
    returnMd5Slot(slot);
    // Now free: the next loan is this buffer again (the pool reuses the last one given back).
    const again = takeMd5Slot();
    expect(again.id).toBe(slot.id);
    returnMd5Slot(again);
    returnMd5Slot(other);
  });

  it('is kept while a stream hashes a region of it after its borrower let go', async () => {
    const slot = takeMd5Slot();
    slot.bytes.fill(0x61, 0, 3);
    const hash = new WorkerMd5();
    holdMd5Slot(slot);
    hash.updateSlot(slot, 0, 3, true);
    // The borrower (a file writer) is done with it before the worker has hashed it.
    returnMd5Slot(slot);
    expect(takeMd5Slot().id).not.toBe(slot.id);
    await expect(hash.digest()).resolves.toBe(createHash('md5').update('aaa').digest('hex'));
  });

  it('refuses a hold on a slot that is not lent', () => {
    const slot = takeMd5Slot();
    returnMd5Slot(slot);
    expect(() => holdMd5Slot(slot)).toThrow(`md5 slot ${slot.id} is not lent`);
  });
});
