import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { finished, type Readable, Transform, type TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MD5_SLOT_ALIGNMENT, MD5_SLOT_BYTES, type Md5Slot, returnMd5Slot, takeMd5Slot, WorkerMd5 } from '@panx/md5';
import { BlobIntegrityError } from './blob-store.js';

/** Parts declared smaller than this are hashed in place: less than the messages to and from the md5 worker cost. */
const WORKER_MIN_BYTES = 1024 * 1024;

/** No part may exceed this (S3's and DNAnexus's maximum part size). */
export const MAX_PART_BYTES = 5 * 1024 * 1024 * 1024;

/**
 * Counts every byte that passes, but forwards at most `cap` bytes: a body a little longer
 * than declared is read to its end (so the client gets the error answer rather than a reset
 * connection) without filling the disk; one far longer is cut off.
 */
class MeasuringTransform extends Transform {
  size = 0;
  constructor(
    private readonly cap: number,
    /** Past this many bytes the body is not read on: the request fails at once. */
    private readonly giveUpAfter: number,
    private readonly index: number,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const room = this.cap - this.size;
    this.size += chunk.length;
    if (this.size > this.giveUpAfter) done(new BlobIntegrityError(`Part ${this.index} is longer than ${this.cap} bytes`));
    else if (room <= 0) done();
    else done(null, chunk.length > room ? chunk.subarray(0, room) : chunk);
  }
}

/** O_DIRECT where the platform has it (Linux): writes that skip the page cache. */
const O_DIRECT: number | undefined = (fs.constants as Record<string, number | undefined>).O_DIRECT;
/** Folders whose file system refused O_DIRECT (tmpfs, some network file systems): written through the page cache. */
const noDirectIo = new Set<string>();

/** Full slots waiting for their write before the body is paused (4 MiB each). */
const SLOTS_QUEUED_MAX = 2;

/**
 * Writes a part's body to a new file through the md5 worker's shared slots: each chunk is copied
 * into the slot being filled as it arrives, so no chunk is held (chunks kept across a scavenge were
 * promoted and their memory, counted as the old generation's, set off a full collection every
 * 100 ms or so: over a second of the GC's helper threads per GiB received). A full slot (4 MiB) is
 * written at its place in the file, one write at a time, and then handed to the md5 worker, which
 * hashes it in place and gives it back.
 *
 * With `directIo` the file is written with O_DIRECT from the page-aligned slots: the bytes go from
 * the slot to the disk, not through the page cache. On this kind of VM the page cache's writes cost
 * 1.4-2.1 s of system time per GiB against 0.2 s direct (dd, 16 MiB blocks), and they were the
 * largest item of an upload's server CPU. The tail that does not fill a whole page is written padded
 * with zeros and the file truncated to its size. Where O_DIRECT is refused, or slots cannot be
 * aligned, the same writes go through the page cache.
 */
class SlotFileWriter {
  private slot: Md5Slot | undefined;
  private used = 0;
  /** Where the next full slot goes in the file. */
  private position = 0;
  private readonly queued: { slot: Md5Slot; length: number; position: number }[] = [];
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;
  private waiters: { resolve: () => void; reject: (error: Error) => void }[] = [];

  private constructor(
    private readonly fd: number,
    private readonly hash: WorkerMd5,
    readonly direct: boolean,
    firstSlot: Md5Slot | undefined,
  ) {
    this.slot = firstSlot;
  }

  static async open(file: string, hash: WorkerMd5, directIo: boolean): Promise<SlotFileWriter> {
    let direct = directIo && O_DIRECT !== undefined && !noDirectIo.has(path.dirname(file));
    // Direct I/O reads only page-aligned memory: without the native module's addresses, no direct I/O.
    const first = direct ? takeMd5Slot() : undefined;
    if (first && !first.aligned) direct = false;
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC;
    const open = (withDirect: boolean) =>
      new Promise<number>((resolve, reject) =>
        fs.open(file, withDirect ? flags | (O_DIRECT as number) : flags, 0o644, (error, fd) => (error ? reject(error) : resolve(fd))),
      );
    try {
      try {
        return new SlotFileWriter(await open(direct), hash, direct, first);
      } catch (error) {
        if (!direct || (error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        // This file system has no direct I/O: remembered, and written through the page cache.
        noDirectIo.add(path.dirname(file));
        return new SlotFileWriter(await open(false), hash, false, first);
      }
    } catch (error) {
      if (first) returnMd5Slot(first);
      throw error;
    }
  }

  /** Copies `chunk` in; false when the writes are behind, and `ready()` should be awaited before more. */
  fill(chunk: Buffer): boolean {
    for (let done = 0; done < chunk.length; ) {
      if (!this.slot) {
        this.slot = takeMd5Slot();
        this.used = 0;
        if (this.direct && !this.slot.aligned) throw new Error('md5 slots lost their alignment: direct writes cannot go on');
      }
      const take = Math.min(chunk.length - done, MD5_SLOT_BYTES - this.used);
      chunk.copy(this.slot.bytes, this.used, done, done + take);
      this.used += take;
      done += take;
      if (this.used === MD5_SLOT_BYTES) this.enqueue();
    }
    return this.queued.length < SLOTS_QUEUED_MAX && !this.failure;
  }

  /** Resolves once the writes have caught up (rejects if one failed). */
  ready(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.queued.length < SLOTS_QUEUED_MAX) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Writes what is left, cuts a padded last page off again and fsyncs: the part is on disk. */
  async finish(): Promise<void> {
    if (this.slot && this.used > 0) this.enqueue();
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure;
    if (this.direct && this.position % MD5_SLOT_ALIGNMENT) {
      await new Promise<void>((resolve, reject) => fs.ftruncate(this.fd, this.position, (error) => (error ? reject(error) : resolve())));
    }
    // Before the part is acknowledged (direct writes may still sit in the disk's own cache).
    await new Promise<void>((resolve, reject) => fs.fsync(this.fd, (error) => (error ? reject(error) : resolve())));
  }

  /** Lets go of everything, after `finish` or instead of it: slots go back once no write reads them. */
  async close(): Promise<void> {
    this.failure ??= new Error('the part was not finished');
    while (this.writing) await this.writing.catch(() => undefined);
    for (const { slot } of this.queued.splice(0)) returnMd5Slot(slot);
    if (this.slot) returnMd5Slot(this.slot);
    this.slot = undefined;
    await new Promise<void>((resolve) => fs.close(this.fd, () => resolve()));
  }

  private enqueue(): void {
    this.queued.push({ slot: this.slot as Md5Slot, length: this.used, position: this.position });
    this.position += this.used;
    this.slot = undefined;
    this.used = 0;
    this.writeNext();
  }

  private writeNext(): void {
    if (this.writing || this.failure) return;
    const next = this.queued.shift();
    if (!next) return;
    const { slot, length, position } = next;
    // Padded with zeros to whole pages for a direct write (only the last slot can be short).
    const written = this.direct ? Math.ceil(length / MD5_SLOT_ALIGNMENT) * MD5_SLOT_ALIGNMENT : length;
    if (written > length) slot.bytes.fill(0, length, written);
    this.writing = writeFully(this.fd, slot.bytes, written, position).then(
      () => {
        // Hashed in order: one write at a time.
        this.hash.updateSlot(slot, 0, length, true);
        this.writing = undefined;
        this.writeNext();
        if (this.queued.length < SLOTS_QUEUED_MAX) for (const waiter of this.waiters.splice(0)) waiter.resolve();
      },
      (error: Error) => {
        returnMd5Slot(slot);
        this.failure = error;
        this.writing = undefined;
        for (const waiter of this.waiters.splice(0)) waiter.reject(error);
      },
    );
  }
}

/**
 * Receives `body` into `writer`, counting every byte but storing at most `cap` of them (see
 * MeasuringTransform); the body is paused while the writes are behind. Answers the body's size.
 */
function receiveInto(body: Readable, writer: SlotFileWriter, cap: number, giveUpAfter: number, index: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      // As a pipeline does: the rest of the body is not read (a client still sending sees the connection end).
      body.destroy();
      reject(error);
    };
    /**
     * A write of ours failed (a full disk) while the client may still be sending: the rest of the
     * body is read and dropped, up to `giveUpAfter`, so that the client gets the answer (503) rather
     * than a connection reset in the middle of its request.
     */
    const failAfterBody = (error: Error) => {
      if (settled) return;
      if (body.readableEnded || body.destroyed) return fail(error);
      settled = true;
      body.off('data', onData);
      const drop = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= giveUpAfter) return;
        body.off('data', drop);
        body.destroy();
        reject(error);
      };
      body.on('data', drop);
      finished(body, { writable: false }, () => reject(error));
      body.resume();
    };
    const onData = (chunk: Buffer) => {
      const room = cap - size;
      size += chunk.length;
      if (size > giveUpAfter) return fail(new BlobIntegrityError(`Part ${index} is longer than ${cap} bytes`));
      if (room <= 0) return;
      try {
        if (writer.fill(room < chunk.length ? chunk.subarray(0, room) : chunk)) return;
      } catch (error) {
        return failAfterBody(error as Error);
      }
      body.pause();
      writer.ready().then(() => {
        if (!settled) body.resume();
      }, failAfterBody);
    };
    body.on('data', onData);
    finished(body, { writable: false }, (error) => {
      if (error) return fail(error);
      if (settled) return;
      writer.finish().then(() => {
        settled = true;
        resolve(size);
      }, fail);
    });
  });
}

/** Writes `length` bytes of `buffer` at `position`, however many calls it takes. */
function writeFully(fd: number, buffer: Buffer, length: number, position: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const step = (done: number) => {
      if (done >= length) return resolve();
      fs.write(fd, buffer, done, length - done, position + done, (error, written) => {
        if (error) reject(error);
        else if (written === 0) reject(new Error('the disk accepted no bytes'));
        else step(done + written);
      });
    };
    step(0);
  });
}

/** How far past its declared size a body is still read to its end, so that the client gets a clean answer. */
const OVERRUN_SLACK = 16 * 1024 * 1024;

/**
 * Writes a part's body to `file`, fsynced, and checks it against the declared size and md5. On any
 * mismatch the file is removed and BlobIntegrityError is thrown: a part is kept whole or not at all.
 */
export async function spoolPart(
  body: Readable,
  file: string,
  index: number,
  expected: { size?: number; md5?: string },
  options: { directIo?: boolean } = {},
): Promise<{ size: number; md5: string /** Written with O_DIRECT. */; direct: boolean }> {
  const cap = Math.min(expected.size ?? MAX_PART_BYTES, MAX_PART_BYTES);
  const giveUpAfter = Math.min(cap + OVERRUN_SLACK, MAX_PART_BYTES);
  if (expected.size !== undefined && expected.size < WORKER_MIN_BYTES) {
    return spoolSmallPart(body, new MeasuringTransform(cap, giveUpAfter, index), file, index, { ...expected, size: expected.size });
  }
  // The md5 of the bytes as they are written, computed by the md5 worker beside the other parts
  // being received (several streams cost about what one does there).
  const hash = new WorkerMd5();
  let digested = false;
  let writer: SlotFileWriter | undefined;
  try {
    writer = await SlotFileWriter.open(file, hash, options.directIo ?? false);
    const size = await receiveInto(body, writer, cap, giveUpAfter, index);
    if (size > MAX_PART_BYTES) throw new BlobIntegrityError(`Part ${index} has ${size} bytes, over the maximum of ${MAX_PART_BYTES}`);
    if (expected.size !== undefined && expected.size !== size) {
      throw new BlobIntegrityError(`Part ${index} has ${size} bytes but ${expected.size} were declared`);
    }
    digested = true;
    const md5 = await hash.digest();
    if (expected.md5 !== undefined && expected.md5 !== md5) throw new BlobIntegrityError(`Part ${index} has md5 ${md5} but ${expected.md5} was declared`);
    return { size, md5, direct: writer.direct };
  } catch (error) {
    if (!digested) hash.drop();
    await writer?.close();
    writer = undefined;
    await fsp.rm(file, { force: true });
    throw error;
  } finally {
    await writer?.close();
  }
}

/**
 * A part declared under WORKER_MIN_BYTES (most parts of job outputs and small files): gathered in
 * memory and checked first, then written with synchronous calls and one asynchronous fsync. The
 * streaming writer's five thread-pool round trips (open, write, fsync, close, and the md5 worker's
 * answer) cost more than these writes, and under load each round trip waits behind other work.
 * Nothing is written unless the size and md5 are right.
 */
async function spoolSmallPart(
  body: Readable,
  measure: MeasuringTransform,
  file: string,
  index: number,
  expected: { size: number; md5?: string },
): Promise<{ size: number; md5: string; direct: false }> {
  const chunks: Buffer[] = [];
  const hash = createHash('md5');
  await pipeline(
    body,
    measure,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        hash.update(chunk);
        callback();
      },
    }),
  );
  if (expected.size !== measure.size) throw new BlobIntegrityError(`Part ${index} has ${measure.size} bytes but ${expected.size} were declared`);
  const md5 = hash.digest('hex');
  if (expected.md5 !== undefined && expected.md5 !== md5) throw new BlobIntegrityError(`Part ${index} has md5 ${md5} but ${expected.md5} was declared`);
  const fd = fs.openSync(file, 'w');
  try {
    for (const chunk of chunks) {
      for (let done = 0; done < chunk.length; ) done += fs.writeSync(fd, chunk, done);
    }
    // fsynced before the part is acknowledged; the one call that may take a while on a slow disk
    // stays off the event loop.
    await new Promise<void>((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return { size: measure.size, md5, direct: false };
}

/** Removes entries of a scratch directory older than `maxAgeMs` (left behind by a crash). Best effort. */
export async function sweepScratch(dir: string, prefix: string, maxAgeMs: number, now: number): Promise<void> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const file = `${dir}/${name}`;
    try {
      const stat = await fsp.stat(file);
      if (now - stat.mtimeMs > maxAgeMs) await fsp.rm(file, { recursive: true, force: true });
    } catch {
      // gone already
    }
  }
}
