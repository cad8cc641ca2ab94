import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, BlobIntegrityError, type BlobStore, type ByteRange, type StoredPart } from './blob-store.js';

/**
 * Blobs as files under one directory: `blobs/<key>` for assembled files and
 * `uploads/<uploadId>/<index>` for parts. Writes go to a temporary name, are fsynced and then renamed,
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
    await fsp.mkdir(dir, { recursive: true });
    const tmp = path.join(this.tmpRoot, `${uploadId}.${index}.${randomBytes(6).toString('hex')}`);
    const hash = createHash('md5');
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
    });
    try {
      await pipeline(body, fs.createWriteStream(tmp));
      const md5 = hash.digest('hex');
      if (expected.size !== undefined && expected.size !== size) {
        throw new BlobIntegrityError(`Part ${index} has ${size} bytes but ${expected.size} were declared`);
      }
      if (expected.md5 !== undefined && expected.md5 !== md5) {
        throw new BlobIntegrityError(`Part ${index} has md5 ${md5} but ${expected.md5} was declared`);
      }
      await fsyncFile(tmp);
      const partRef = String(index);
      await fsp.rename(tmp, path.join(dir, partRef));
      return { size, md5, partRef };
    } catch (error) {
      await fsp.rm(tmp, { force: true });
      throw error;
    }
  }

  async completeUpload(key: string, uploadId: string, parts: { index: number; partRef: string; size: number }[]): Promise<void> {
    const target = this.blobPath(key);
    if (fs.existsSync(target)) return; // already assembled before a crash: completing again is a no-op
    const dir = this.uploadDir(uploadId);
    const tmp = path.join(this.tmpRoot, `${uploadId}.assembled.${randomBytes(6).toString('hex')}`);
    const out = fs.createWriteStream(tmp);
    try {
      for (const part of [...parts].sort((a, b) => a.index - b.index)) {
        await pipeline(fs.createReadStream(path.join(dir, part.partRef)), out, { end: false });
      }
      await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
      await fsyncFile(tmp);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      await fsp.rename(tmp, target);
    } catch (error) {
      out.destroy();
      await fsp.rm(tmp, { force: true });
      throw error;
    }
    await fsp.rm(dir, { recursive: true, force: true });
  }

  async abortUpload(_key: string, uploadId: string): Promise<void> {
    await fsp.rm(this.uploadDir(uploadId), { recursive: true, force: true });
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.blobPath(key);
    await fsp.access(file);
    return fs.createReadStream(file, range ? { start: range.start, end: range.end } : {});
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

async function fsyncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
