import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { type Readable, Transform, type TransformCallback, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WorkerMd5 } from '@panx/md5';
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

/** Bytes gathered before each write to the spool file. */
const WRITE_BATCH = 2 * 1024 * 1024;

/**
 * Writes a stream to a new file in batches (one write per 2 MiB): fs.createWriteStream writes each
 * 64 KiB socket chunk on its own, and those thread-pool round trips cost the server about a core
 * at 250 MiB/s.
 */
class BatchedFileWriter extends Writable {
  private handle: fsp.FileHandle | undefined;
  private batch: Buffer[] = [];
  private batchBytes = 0;

  constructor(
    private readonly file: string,
    /** Gets every chunk as it comes (the md5 worker copies it into its own memory at once). */
    private readonly onChunk: (chunk: Buffer) => void,
  ) {
    super({ highWaterMark: WRITE_BATCH });
  }

  override _construct(callback: (error?: Error | null) => void): void {
    fsp.open(this.file, 'w').then((handle) => {
      this.handle = handle;
      callback();
    }, callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.onChunk(chunk);
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    if (this.batchBytes < WRITE_BATCH) callback();
    else this.flush().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    // fsynced here, through the open handle: a part is on disk before it is acknowledged.
    this.flush()
      .then(() => this.handle?.sync())
      .then(() => callback(), callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const handle = this.handle;
    this.handle = undefined;
    if (!handle) callback(error);
    else
      handle.close().then(
        () => callback(error),
        () => callback(error),
      );
  }

  private async flush(): Promise<void> {
    const handle = this.handle;
    if (!this.batchBytes || !handle) return;
    // The chunks as they came, in one writev: no copy into a batch buffer of its own.
    const chunks = this.batch;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    const { bytesWritten } = await handle.writev(chunks);
    if (bytesWritten < bytes) {
      const rest = Buffer.concat(chunks, bytes).subarray(bytesWritten);
      for (let done = 0; done < rest.length; ) done += (await handle.write(rest, done)).bytesWritten;
    }
  }
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
): Promise<{ size: number; md5: string }> {
  const cap = Math.min(expected.size ?? MAX_PART_BYTES, MAX_PART_BYTES);
  const measure = new MeasuringTransform(cap, Math.min(cap + OVERRUN_SLACK, MAX_PART_BYTES), index);
  if (expected.size !== undefined && expected.size < WORKER_MIN_BYTES) return spoolSmallPart(body, measure, file, index, { ...expected, size: expected.size });
  // The md5 of the bytes as they are written, computed by the md5 worker beside the other parts
  // being received (several streams cost about what one does there).
  const hash = new WorkerMd5();
  let digested = false;
  try {
    await pipeline(body, measure, new BatchedFileWriter(file, (chunk) => hash.update(chunk)));
    if (measure.size > MAX_PART_BYTES) throw new BlobIntegrityError(`Part ${index} has ${measure.size} bytes, over the maximum of ${MAX_PART_BYTES}`);
    if (expected.size !== undefined && expected.size !== measure.size) {
      throw new BlobIntegrityError(`Part ${index} has ${measure.size} bytes but ${expected.size} were declared`);
    }
    digested = true;
    const md5 = await hash.digest();
    if (expected.md5 !== undefined && expected.md5 !== md5) throw new BlobIntegrityError(`Part ${index} has md5 ${md5} but ${expected.md5} was declared`);
    return { size: measure.size, md5 };
  } catch (error) {
    if (!digested) hash.drop();
    await fsp.rm(file, { force: true });
    throw error;
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
): Promise<{ size: number; md5: string }> {
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
  return { size: measure.size, md5 };
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
