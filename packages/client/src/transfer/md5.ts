import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { type Md5Slot, returnMd5Slot, WorkerMd5 } from '@panx/md5';

/**
 * MD5 off the main thread, several parts side by side (@panx/md5: one worker thread whose native
 * vector lanes hash 4 parts for about the cost of 1.4 with node:crypto). Bytes reach the worker
 * without a copy where they can: an upload's part buffers are shared memory, a download's received
 * chunks are moved to it once written (what is already on disk is read back from the file). Small
 * jobs are done in place.
 */

/** Below this, hashing in the calling thread costs less than a message to the worker. */
const WORKER_MIN_BYTES = 1024 * 1024;
const READ_CHUNK = 4 * 1024 * 1024;

interface StreamPart {
  index: number;
  offset: number;
  size: number;
}

/** The md5 (hex) of `length` bytes of `file` from `offset`. */
export async function md5OfFileRange(file: string, offset: number, length: number): Promise<string> {
  if (length >= WORKER_MIN_BYTES) {
    const hash = new WorkerMd5();
    hash.updateFromFile(file, offset, length);
    return hash.digest();
  }
  const hash = createHash('md5');
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(length, READ_CHUNK) || 1);
    for (let done = 0; done < length; ) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, length - done), offset + done);
      if (bytesRead === 0) throw new Error(`${file} ends before byte ${offset + length}`);
      hash.update(buffer.subarray(0, bytesRead));
      done += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

/** A buffer over shared memory, which the md5 worker can read without a copy (an upload's part buffers). */
export function sharedBuffer(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

/**
 * The md5 (hex) of `data`, hashed in the worker when `data` lies in shared memory (see `sharedBuffer`;
 * it must not change until the promise settles), in place otherwise.
 */
export async function md5OfBuffer(data: Buffer): Promise<string> {
  if (data.length < WORKER_MIN_BYTES || !(data.buffer instanceof SharedArrayBuffer)) return createHash('md5').update(data).digest('hex');
  const hash = new WorkerMd5();
  hash.update(data);
  return hash.digest();
}

/**
 * The md5s of an upload's parts, hashed ahead of their PUTs by the md5 worker reading the file
 * itself, a group of parts side by side: the worker's vector lanes hash 8 streams for the cost of
 * about 1.5 (0.28 s of a core per GiB against 1.8 for one stream on the machine measured), where
 * parts hashed as each is read met at most as many others as were being sent. Asking for the first
 * part of a group also starts the next group, so it is hashed while this one is sent. Hashing what
 * is on disk rather than the bytes sent means a file that changes during the upload is refused by
 * the server (the part's bytes do not match its md5) instead of being stored half old, half new.
 */
export class PartMd5sAhead {
  private readonly md5s: Promise<string>[] = [];

  constructor(
    private readonly file: string,
    private readonly parts: readonly { offset: number; length: number }[],
    private readonly group = 8,
  ) {}

  /** The md5 of the part at `position` in `parts`. */
  md5(position: number): Promise<string> {
    const wanted = Math.min(this.parts.length, (Math.floor(position / this.group) + 2) * this.group);
    // Every stream of a group is opened in one go, so that the worker sees them together.
    while (this.md5s.length < wanted) {
      const part = this.parts[this.md5s.length] as { offset: number; length: number };
      const md5 = md5OfFileRange(this.file, part.offset, part.length);
      // A part not sent after all (an earlier one failed) must not end the process with its rejection.
      md5.catch(() => undefined);
      this.md5s.push(md5);
    }
    return this.md5s[position] as Promise<string>;
  }
}

/**
 * The md5s of consecutive parts of a file whose bytes arrive in order from `start` (a download):
 * `feed` hands each written chunk to the worker. The parts are lazy streams there (they arrive one
 * after another, and are hashed side by side a few at a time); their md5s are asked for at `end`. A
 * part that began before `start` is hashed from the bytes already in `file` first. After `end`, the
 * parts not completed (or not hashed) are missing from `results`.
 */
export class Md5Stream {
  private readonly hashes: WorkerMd5[] = [];
  private position: number;
  private next = 0;
  readonly results = new Map<number, string>();

  constructor(
    file: string,
    private readonly parts: StreamPart[],
    start: number,
  ) {
    this.position = start;
    const first = parts[0];
    if (first && first.offset < start) this.hashOf(0).updateFromFile(file, first.offset, start - first.offset);
  }

  private hashOf(index: number): WorkerMd5 {
    let hash = this.hashes[index];
    if (!hash) {
      hash = new WorkerMd5({ lazy: true });
      this.hashes[index] = hash;
    }
    return hash;
  }

  /** Chunks written to the file, in order; they are moved to the worker (or copied, where they share memory or straddle parts) and must not be used again. */
  feed(chunks: Buffer[]): void {
    for (const chunk of chunks) {
      for (let used = 0; used < chunk.length && this.next < this.parts.length; ) {
        const part = this.parts[this.next] as StreamPart;
        const take = Math.min(chunk.length - used, part.offset + part.size - this.position);
        this.hashOf(this.next).update(take === chunk.length ? chunk : chunk.subarray(used, used + take));
        used += take;
        this.position += take;
        if (this.position === part.offset + part.size) this.next++;
      }
    }
  }

  /** How many of the next bytes belong to the part being hashed (a slot filled in place must stay within one part). */
  bytesLeftInPart(): number {
    const part = this.parts[this.next];
    return part ? part.offset + part.size - this.position : Number.POSITIVE_INFINITY;
  }

  /**
   * Bytes written to the file from a lent md5 slot (see `takeMd5Slot`), hashed in place; at most
   * `bytesLeftInPart()` of them. `release` lets the slot go, as `WorkerMd5.updateSlot` says; the
   * slot must be released exactly once, by this call or with `returnMd5Slot`.
   */
  feedSlot(slot: Md5Slot, offset: number, length: number, release: boolean): void {
    const part = this.parts[this.next];
    if (!part) {
      // Past the last part, so no stream saw this slot (a part's end releases its slot).
      if (release) returnMd5Slot(slot);
      return;
    }
    if (length > part.offset + part.size - this.position) throw new Error('md5: a slot crosses the end of a part');
    this.hashOf(this.next).updateSlot(slot, offset, length, release);
    this.position += length;
    if (this.position === part.offset + part.size) this.next++;
  }

  /** Resolves once every part completed by the chunks fed so far is in `results`. */
  async end(): Promise<void> {
    const completed = this.hashes.slice(0, this.next);
    this.hashes[this.next]?.drop();
    const md5s = await Promise.all(completed.map((hash) => hash.digest().catch(() => undefined)));
    md5s.forEach((md5, i) => {
      if (md5 !== undefined) this.results.set((this.parts[i] as StreamPart).index, md5);
    });
  }
}
