import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  GetBucketCorsCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutBucketCorsCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertSafeKey, BlobNotFoundError, type BlobStore, type ByteRange, type StoredPart, UploadGoneError } from './blob-store.js';
import { spoolPart, sweepScratch } from './part-spool.js';

export interface S3BlobStoreOptions {
  endpoint?: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  downloadMode: 'presigned' | 'proxy';
  /** Where parts are checked before they are sent to the bucket (default: the system's temporary directory). */
  spoolDir?: string;
}

const SPOOL_PREFIX = 'panx-s3-part-';

function errorName(error: unknown): string | undefined {
  return (error as { name?: string } | null)?.name;
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

/**
 * Blobs in an S3-compatible bucket. A file's upload is one S3 multipart upload (DNAnexus part limits
 * are S3's), so closing is CompleteMultipartUpload and the bytes are never copied. Parts are spooled
 * to a local file to check size and md5 before they are sent (parts are at most 5 GiB).
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  private readonly spoolDir: string;

  constructor(private readonly options: S3BlobStoreOptions) {
    this.spoolDir = options.spoolDir ?? os.tmpdir();
    void sweepScratch(this.spoolDir, SPOOL_PREFIX, 86_400_000, Date.now());
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private key(key: string): string {
    assertSafeKey(key);
    return `${this.options.prefix}${key}`;
  }

  /**
   * Creates the bucket when it does not exist yet (convenient for a fresh installation). With presigned
   * downloads, browsers read the bucket from the web app's origin (previews use Range requests), so a
   * bucket without a CORS configuration gets one allowing GET and HEAD from `webOrigin`; an existing
   * configuration is the operator's and is left alone.
   */
  async ensureBucket(webOrigin?: string): Promise<string | undefined> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch {
      await this.client.send(new CreateBucketCommand({ Bucket: this.options.bucket }));
    }
    if (this.options.downloadMode !== 'presigned' || !webOrigin) return undefined;
    // Credentials without the CORS permissions must not stop the server: the problem is returned for the log.
    try {
      await this.client.send(new GetBucketCorsCommand({ Bucket: this.options.bucket }));
      return undefined;
    } catch (error) {
      if (errorName(error) !== 'NoSuchCORSConfiguration' && httpStatus(error) !== 404) {
        return `could not read the bucket's CORS configuration (browsers may not read presigned URLs): ${String(error)}`;
      }
    }
    try {
      await this.client.send(
        new PutBucketCorsCommand({
          Bucket: this.options.bucket,
          CORSConfiguration: {
            CORSRules: [
              {
                AllowedOrigins: [webOrigin],
                AllowedMethods: ['GET', 'HEAD'],
                AllowedHeaders: ['Range', 'If-None-Match', 'If-Modified-Since'],
                ExposeHeaders: ['Content-Range', 'Content-Length', 'Accept-Ranges', 'ETag', 'Content-Disposition'],
                MaxAgeSeconds: 3600,
              },
            ],
          },
        }),
      );
      return undefined;
    } catch (error) {
      return `could not set the bucket's CORS rule (browsers may not read presigned URLs): ${String(error)}`;
    }
  }

  async directDownloadOrigin(): Promise<string | undefined> {
    if (this.options.downloadMode !== 'presigned') return undefined;
    // Whatever host the SDK signs for (path-style endpoint, virtual-hosted bucket, AWS region host).
    return new URL(await getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key('origin-probe') }), { expiresIn: 60 }))
      .origin;
  }

  async startUpload(key: string): Promise<string> {
    const result = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
    if (!result.UploadId) throw new Error('S3 did not return an upload id');
    return result.UploadId;
  }

  async putPart(key: string, uploadId: string, index: number, body: Readable, expected: { size?: number; md5?: string }): Promise<StoredPart> {
    // Spooled to a local file first: the size and md5 are checked before anything reaches the
    // bucket, without holding a part (up to 5 GiB) in memory.
    const spool = path.join(this.spoolDir, `${SPOOL_PREFIX}${randomBytes(8).toString('hex')}`);
    const { size, md5 } = await spoolPart(body, spool, index, expected);
    try {
      const result = await this.client.send(
        new UploadPartCommand({
          Bucket: this.options.bucket,
          Key: this.key(key),
          UploadId: uploadId,
          PartNumber: index,
          Body: fs.createReadStream(spool),
          ContentLength: size,
          ContentMD5: Buffer.from(md5, 'hex').toString('base64'),
        }),
      );
      if (!result.ETag) throw new Error(`S3 answered no ETag for part ${index} of ${key}`);
      return { size, md5, partRef: result.ETag };
    } catch (error) {
      if (errorName(error) === 'NoSuchUpload') throw new UploadGoneError(`The upload of ${key} no longer exists`);
      throw error;
    } finally {
      await fsp.rm(spool, { force: true });
    }
  }

  async completeUpload(key: string, uploadId: string, parts: { index: number; partRef: string; size: number }[]): Promise<void> {
    if (await this.exists(key)) {
      // Completed before a crash (or by an earlier call): nothing to assemble; drop a leftover upload.
      await this.abortUpload(key, uploadId);
      return;
    }
    // S3 refuses empty parts in a multipart object (only the last may be small), and an object of no
    // bytes cannot be a multipart object at all: store that one plainly.
    const nonEmpty = parts.filter((part) => part.size > 0).sort((a, b) => a.index - b.index);
    if (!nonEmpty.length) {
      await this.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: this.key(key), Body: Buffer.alloc(0) }));
      await this.abortUpload(key, uploadId);
      return;
    }
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.options.bucket,
        Key: this.key(key),
        UploadId: uploadId,
        MultipartUpload: { Parts: nonEmpty.map((part) => ({ PartNumber: part.index, ETag: part.partRef })) },
      }),
    );
  }

  private async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
      return true;
    } catch (error) {
      // Only "not there" means not there; anything else (network, credentials) must not be taken for it.
      if (errorName(error) === 'NotFound' || errorName(error) === 'NoSuchKey' || httpStatus(error) === 404) return false;
      throw error;
    }
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.options.bucket, Key: this.key(key), UploadId: uploadId }));
    } catch (error) {
      if (errorName(error) === 'NoSuchUpload' || httpStatus(error) === 404) return; // already completed or aborted
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return result.Body as Readable;
    } catch (error) {
      if (errorName(error) === 'NoSuchKey' || httpStatus(error) === 404) throw new BlobNotFoundError(`No blob ${key}`);
      throw error;
    }
  }

  async directDownloadUrl(key: string, expiresInSeconds: number, filename: string, contentType?: string): Promise<string | undefined> {
    if (this.options.downloadMode !== 'presigned') return undefined;
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.options.bucket,
        Key: this.key(key),
        ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`,
        ResponseContentType: contentType,
      }),
      { expiresIn: Math.min(expiresInSeconds, 7 * 86_400) },
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
  }
}
