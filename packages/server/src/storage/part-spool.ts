import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobIntegrityError } from './blob-store.js';

/** No part may exceed this (S3's and DNAnexus's maximum part size). */
export const MAX_PART_BYTES = 5 * 1024 * 1024 * 1024;

/**
 * Hashes and counts every byte that passes, but forwards at most `cap` bytes: a body a little longer
 * than declared is read to its end (so the client gets the error answer rather than a reset
 * connection) without filling the disk; one far longer is cut off.
 */
class MeasuringTransform extends Transform {
  readonly hash = createHash('md5');
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
    this.hash.update(chunk);
    if (this.size > this.giveUpAfter) done(new BlobIntegrityError(`Part ${this.index} is longer than ${this.cap} bytes`));
    else if (room <= 0) done();
    else done(null, chunk.length > room ? chunk.subarray(0, room) : chunk);
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
  try {
    await pipeline(body, measure, fs.createWriteStream(file));
    const md5 = measure.hash.digest('hex');
    if (measure.size > MAX_PART_BYTES) throw new BlobIntegrityError(`Part ${index} has ${measure.size} bytes, over the maximum of ${MAX_PART_BYTES}`);
    if (expected.size !== undefined && expected.size !== measure.size) {
      throw new BlobIntegrityError(`Part ${index} has ${measure.size} bytes but ${expected.size} were declared`);
    }
    if (expected.md5 !== undefined && expected.md5 !== md5) throw new BlobIntegrityError(`Part ${index} has md5 ${md5} but ${expected.md5} was declared`);
    await fsyncFile(file);
    return { size: measure.size, md5 };
  } catch (error) {
    await fsp.rm(file, { force: true });
    throw error;
  }
}

export async function fsyncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
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
