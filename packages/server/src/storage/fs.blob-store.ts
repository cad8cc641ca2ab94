import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { assertSafeKey, BlobNotFoundError, type BlobStore, type ByteRange, type StoredPart, UploadGoneError } from './blob-store.js';
import { spoolPart, sweepScratch } from './part-spool.js';

const TMP_PREFIX = 'part-';

/**
 * Blobs as files under one directory: `blobs/<key>` for assembled files and
 * `uploads/<uploadId>/<index>.<random>` for parts (one name per PUT). Writes go to a temporary name, are fsynced and then renamed,
 * so a crash never leaves a half-written blob under its final name.
 */
export class FsBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  private readonly blobRoot: string;
  private readonly uploadRoot: string;
  private readonly tmpRoot: string;

  constructor(root: string) {
    this.blobRoot = path.join(root, 'blobs');
    this.uploadRoot = path.join(root, 'uploads');
    this.tmpRoot = path.join(root, 'tmp');
    for (const dir of [this.blobRoot, this.uploadRoot, this.tmpRoot]) fs.mkdirSync(dir, { recursive: true });
    // Scratch files of writes a crash interrupted (a day old, so no live write can be one of them).
    void sweepScratch(this.tmpRoot, TMP_PREFIX, 86_400_000, Date.now());
  }

  private blobPath(key: string): string {
    assertSafeKey(key);
    return path.join(this.blobRoot, key);
  }

  private uploadDir(uploadId: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(uploadId)) throw new Error(`unsafe upload id: ${uploadId}`);
    return path.join(this.uploadRoot, uploadId);
  }

  async startUpload(_key: string): Promise<string> {
    const uploadId = randomBytes(12).toString('hex');
    await fsp.mkdir(this.uploadDir(uploadId), { recursive: true });
    return uploadId;
  }

  async putPart(_key: string, uploadId: string, index: number, body: Readable, expected: { size?: number; md5?: string }): Promise<StoredPart> {
    const dir = this.uploadDir(uploadId);
    // Every PUT gets its own name: a part re-sent while the file closes cannot replace the bytes the
    // database records for that index (the assembly reads exactly the recorded partRef).
    const partRef = `${index}.${randomBytes(6).toString('hex')}`;
    const tmp = path.join(this.tmpRoot, `${TMP_PREFIX}${uploadId}.${partRef}`);
    const stored = await spoolPart(body, tmp, index, expected);
    try {
      await fsp.rename(tmp, path.join(dir, partRef));
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UploadGoneError(`The upload ${uploadId} no longer exists`);
      throw error;
    }
    return { ...stored, partRef };
  }

  async completeUpload(key: string, uploadId: string, parts: { index: number; partRef: string; size: number }[]): Promise<void> {
    const target = this.blobPath(key);
    const dir = this.uploadDir(uploadId);
    if (!fs.existsSync(target)) {
      const tmp = path.join(this.tmpRoot, `${TMP_PREFIX}${uploadId}.assembled.${randomBytes(6).toString('hex')}`);
      const out = await fsp.open(tmp, 'w');
      try {
        // Plain reads and writes through one handle: no stream listeners pile up over thousands of parts.
        for (const part of [...parts].sort((a, b) => a.index - b.index)) {
          for await (const chunk of fs.createReadStream(path.join(dir, assertSafePartRef(part.partRef)), { highWaterMark: 4 * 1024 * 1024 })) {
            await out.write(chunk as Buffer);
          }
        }
        await out.sync();
        await out.close();
        const { size } = await fsp.stat(tmp);
        const expected = parts.reduce((sum, part) => sum + part.size, 0);
        if (size !== expected) throw new Error(`assembled ${size} bytes for ${key} but the parts add up to ${expected}`);
        await fsp.mkdir(path.dirname(target), { recursive: true });
        await fsp.rename(tmp, target);
      } catch (error) {
        await out.close().catch(() => undefined);
        await fsp.rm(tmp, { force: true });
        throw error;
      }
    }
    // Also reached when a crash came between the rename and this removal: completing again cleans up.
    await fsp.rm(dir, { recursive: true, force: true });
  }

  async abortUpload(_key: string, uploadId: string): Promise<void> {
    // A part PUT racing the abort can add a file while the folder is being removed (ENOTEMPTY): retry.
    await fsp.rm(this.uploadDir(uploadId), { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.blobPath(key);
    // Opened before answering, so a missing blob is an error here rather than in the middle of a response.
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(`No blob ${key}`);
      throw error;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async directDownloadOrigin(): Promise<string | undefined> {
    return undefined;
  }

  async directDownloadUrl(): Promise<string | undefined> {
    return undefined;
  }

  async delete(key: string): Promise<void> {
    await fsp.rm(this.blobPath(key), { force: true });
  }

  async check(): Promise<void> {
    await fsp.access(this.blobRoot, fs.constants.W_OK);
  }
}

function assertSafePartRef(partRef: string): string {
  if (!/^[0-9]+(\.[0-9a-f]+)?$/.test(partRef)) throw new Error(`unsafe part reference: ${partRef}`);
  return partRef;
}
