import { Worker } from 'node:worker_threads';
import { alignmentSkip } from './lanes.js';
import type { FromWorker, ToWorker } from './protocol.js';

/**
 * MD5s computed in a worker thread (worker.ts), several streams side by side (lanes.ts): the
 * thread that moves a transfer's bytes hands them over and goes on. One worker per process, started
 * on first use and referenced only while a digest is awaited, so it never keeps a process alive.
 */
class Md5Worker {
  private worker: Worker | undefined;

  constructor(private readonly onReleased: (slots: number[]) => void) {}

  private readonly waiting = new Map<number, { resolve: (md5: string) => void; reject: (error: Error) => void }>();

  send(message: ToWorker): void {
    this.start().postMessage(message);
  }

  digest(stream: number): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.waiting.set(stream, { resolve, reject });
      this.worker?.ref();
      this.send({ kind: 'digest', stream });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (reply: FromWorker) => {
      if ('released' in reply) {
        this.onReleased(reply.released);
        return;
      }
      const waiting = this.waiting.get(reply.stream);
      this.waiting.delete(reply.stream);
      if (!this.waiting.size) worker.unref();
      if ('error' in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.md5);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.waiting.values()) waiting.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the md5 worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * Buffers in shared memory that bytes to hash are copied into, and that the worker hands back once
 * it has hashed them: the same few megabytes go round, where moving a new ArrayBuffer to the worker
 * for every batch made both threads' garbage collectors run on external memory pressure (about two
 * cores' seconds per GiB in the server, measured with --trace-gc and per-thread CPU).
 */
class SlotPool {
  static readonly SLOT_BYTES = 4 * 1024 * 1024;
  /** Free buffers kept beyond this are left to the garbage collector. */
  private static readonly KEEP_FREE = 32;
  private readonly free: PoolBuffer[] = [];
  /** Lent buffers, with how many users (the borrower and those it added with `hold`) still have each. */
  private readonly lent = new Map<number, { slot: PoolBuffer; holds: number }>();
  private nextId = 0;

  take(): PoolBuffer {
    const slot = this.free.pop() ?? this.allocate();
    this.lent.set(slot.id, { slot, holds: 1 });
    return slot;
  }

  hold(id: number): void {
    const lent = this.lent.get(id);
    if (!lent) throw new Error(`md5 slot ${id} is not lent`);
    lent.holds++;
  }

  get lentCount(): number {
    return this.lent.size;
  }

  /** One user is done with the buffer; the last one's call puts it back in the pool. */
  giveBack(id: number): void {
    const lent = this.lent.get(id);
    if (!lent || --lent.holds > 0) return;
    this.lent.delete(id);
    if (this.free.length < SlotPool.KEEP_FREE) this.free.push(lent.slot);
  }

  /**
   * A page more than a slot, so that a page-aligned slot fits in it (direct I/O reads and writes
   * only page-aligned memory); where the address cannot be known, the slot starts at 0, unaligned.
   */
  private allocate(): PoolBuffer {
    const buffer = new SharedArrayBuffer(SlotPool.SLOT_BYTES + MD5_SLOT_ALIGNMENT);
    const skip = alignmentSkip(new Uint8Array(buffer, 0, 1), MD5_SLOT_ALIGNMENT);
    return { id: this.nextId++, buffer, alignedAt: skip };
  }
}

interface PoolBuffer {
  id: number;
  buffer: SharedArrayBuffer;
  /** Where the page-aligned slot begins in `buffer`, if the address could be known. */
  alignedAt: number | undefined;
}

/** The alignment of a lent slot's memory, when `Md5Slot.aligned` says it has it. */
export const MD5_SLOT_ALIGNMENT = 4096;

/**
 * A buffer of `size` bytes whose memory starts on a page (MD5_SLOT_ALIGNMENT) boundary, for direct
 * I/O; undefined where the address cannot be known (no native module).
 */
export function pageAlignedBuffer(size: number): Buffer | undefined {
  const memory = new ArrayBuffer(size + MD5_SLOT_ALIGNMENT);
  const skip = alignmentSkip(new Uint8Array(memory, 0, 1), MD5_SLOT_ALIGNMENT);
  return skip === undefined ? undefined : Buffer.from(memory, skip, size);
}

/** Whether `view` starts on a page boundary (false where that cannot be known). */
export function isPageAligned(view: Uint8Array): boolean {
  return alignmentSkip(view, MD5_SLOT_ALIGNMENT) === 0;
}

const pool = new SlotPool();

/**
 * A buffer of the pool lent to be filled in place, such as by a socket reading straight into it, and
 * then given to one stream with `WorkerMd5.updateSlot`: the bytes reach the worker without a copy.
 */
export interface Md5Slot {
  readonly id: number;
  /** The slot's shared memory (MD5_SLOT_BYTES long). */
  readonly bytes: Buffer;
  /** Whether `bytes` starts on an MD5_SLOT_ALIGNMENT boundary (not known without the native module). */
  readonly aligned: boolean;
}

/** Lends a pool buffer to fill; give it to a stream with `WorkerMd5.updateSlot(…, release: true)`, or back with `returnMd5Slot`. */
export function takeMd5Slot(): Md5Slot {
  const { id, buffer, alignedAt } = pool.take();
  return { id, bytes: Buffer.from(buffer, alignedAt ?? 0, SlotPool.SLOT_BYTES), aligned: alignedAt !== undefined };
}

/** Gives back a slot that was never handed to a stream, or lets go of one hold (`holdMd5Slot`). */
export function returnMd5Slot(slot: Md5Slot): void {
  pool.giveBack(slot.id);
}

/** How many slots are lent now (not back in the pool): a leak shows as a count that only grows. */
export function lentMd5Slots(): number {
  return pool.lentCount;
}

/**
 * One more user of a lent slot: it goes back to the pool only after one more release (a stream's
 * `updateSlot` with `release`, or `returnMd5Slot`). So a slot can be written to a file and hashed,
 * region by region for several streams, and be reused only once all of them are done with it.
 */
export function holdMd5Slot(slot: Md5Slot): void {
  pool.hold(slot.id);
}

/** The size of every pool buffer. */
export const MD5_SLOT_BYTES = SlotPool.SLOT_BYTES;
const shared = new Md5Worker((ids) => {
  for (const id of ids) pool.giveBack(id);
});
let nextStream = 0;

/**
 * The MD5 of bytes fed in order, hashed in the worker beside the other streams open at the time.
 * Call `digest` or `drop` exactly once.
 */
export class WorkerMd5 {
  private readonly stream = nextStream++;
  /** The pool buffer being filled: bytes before `used` are copied in, those before `sent` were sent. */
  private slot: { id: number; buffer: SharedArrayBuffer; bytes: Uint8Array; used: number; sent: number } | undefined;

  /** lazy: for streams whose bytes come one after another (a download's parts): see worker.ts. */
  constructor(options: { lazy?: boolean } = {}) {
    shared.send({ kind: 'open', stream: this.stream, lazy: options.lazy ?? false });
  }

  /**
   * Feeds `data`. Bytes in shared memory (a SharedArrayBuffer, such as an upload's part buffers) are
   * read in place and must stay unchanged until the digest is in; other bytes are copied into the
   * pool's buffers, so `data` is free again at once.
   */
  update(data: Uint8Array): void {
    if (!data.length) return;
    if (data.buffer instanceof SharedArrayBuffer) {
      this.send();
      shared.send({ kind: 'data', stream: this.stream, views: [{ buffer: data.buffer, offset: data.byteOffset, length: data.length }] });
      return;
    }
    for (let done = 0; done < data.length; ) {
      if (!this.slot || this.slot.used === SlotPool.SLOT_BYTES) {
        this.send();
        const { id, buffer } = pool.take();
        this.slot = { id, buffer, bytes: new Uint8Array(buffer), used: 0, sent: 0 };
      }
      const take = Math.min(data.length - done, SlotPool.SLOT_BYTES - this.slot.used);
      this.slot.bytes.set(data.subarray(done, done + take), this.slot.used);
      this.slot.used += take;
      done += take;
    }
    if (this.slot?.used === SlotPool.SLOT_BYTES) this.send();
  }

  /**
   * Feeds `length` bytes of a lent slot (`takeMd5Slot`) from `offset`, hashed in place: they must not
   * change until the slot is given back. `release` lets the slot go (call it with the slot's last
   * bytes, or with length 0); the pool has it back once the worker has hashed what was fed.
   */
  updateSlot(slot: Md5Slot, offset: number, length: number, release: boolean): void {
    this.send();
    if (!length && !release) return;
    shared.send({
      kind: 'data',
      stream: this.stream,
      views: [{ buffer: slot.bytes.buffer as SharedArrayBuffer, offset: slot.bytes.byteOffset + offset, length, slot: release ? slot.id : undefined }],
    });
  }

  /** Feeds `length` bytes of `file` from `offset`, read by the worker. */
  updateFromFile(file: string, offset: number, length: number): void {
    this.send();
    if (length > 0) shared.send({ kind: 'file', stream: this.stream, file, offset, length });
  }

  digest(): Promise<string> {
    this.send(true);
    return shared.digest(this.stream);
  }

  drop(): void {
    this.send(true);
    shared.send({ kind: 'drop', stream: this.stream });
  }

  /**
   * Sends the bytes copied into the current pool buffer and not sent yet. A full buffer, or the
   * last one (`last`), is let go: the view that ends it carries its id, and the worker hands it back
   * once it has hashed (or dropped) it.
   */
  private send(last = false): void {
    const slot = this.slot;
    if (!slot) return;
    const end = last || slot.used === SlotPool.SLOT_BYTES;
    if (slot.used > slot.sent || end) {
      shared.send({
        kind: 'data',
        stream: this.stream,
        views: [{ buffer: slot.buffer, offset: slot.sent, length: slot.used - slot.sent, slot: end ? slot.id : undefined }],
      });
      slot.sent = slot.used;
    }
    if (end) this.slot = undefined;
  }
}
