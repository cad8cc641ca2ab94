import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertSafeKey, BlobIntegrityError, type BlobStore, type ByteRange, type StoredPart } from './blob-store.js';

export interface S3BlobStoreOptions {
  endpoint?: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  downloadMode: 'presigned' | 'proxy';
}

/**
 * Blobs in an S3-compatible bucket. A file's upload is one S3 multipart upload (DNAnexus part limits
 * are S3's), so closing is CompleteMultipartUpload and the bytes are never copied. Parts are buffered
 * in memory to check size and md5 before they are sent (parts are at most 5 GiB; clients send 16 MiB).
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly options: S3BlobStoreOptions) {
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

  /** Creates the bucket when it does not exist yet (convenient for a fresh installation). */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch {
      await this.client.send(new CreateBucketCommand({ Bucket: this.options.bucket }));
    }
  }

  async startUpload(key: string): Promise<string> {
    const result = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
    if (!result.UploadId) throw new Error('S3 did not return an upload id');
    return result.UploadId;
  }

  async putPart(key: string, uploadId: string, index: number, body: Readable, expected: { size?: number; md5?: string }): Promise<StoredPart> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    const md5 = createHash('md5').update(bytes).digest('hex');
    if (expected.size !== undefined && expected.size !== bytes.length) {
      throw new BlobIntegrityError(`Part ${index} has ${bytes.length} bytes but ${expected.size} were declared`);
    }
    if (expected.md5 !== undefined && expected.md5 !== md5) throw new BlobIntegrityError(`Part ${index} has md5 ${md5} but ${expected.md5} was declared`);
    const result = await this.client.send(
      new UploadPartCommand({
        Bucket: this.options.bucket,
        Key: this.key(key),
        UploadId: uploadId,
        PartNumber: index,
        Body: bytes,
        ContentLength: bytes.length,
        ContentMD5: Buffer.from(md5, 'hex').toString('base64'),
      }),
    );
    return { size: bytes.length, md5, partRef: result.ETag ?? '' };
  }

  async completeUpload(key: string, uploadId: string, parts: { index: number; partRef: string; size: number }[]): Promise<void> {
    // A file of no bytes (or only an empty part) cannot be a multipart object: store it plainly.
    const nonEmpty = parts.filter((part, i) => part.size > 0 || (i === 0 && parts.length === 1)).sort((a, b) => a.index - b.index);
    const total = parts.reduce((sum, part) => sum + part.size, 0);
    if (await this.exists(key)) return; // completed before a crash
    if (total === 0) {
      await this.client.send(new PutObjectCommand({ Bucket: this.options.bucket, Key: this.key(key), Body: Buffer.alloc(0) }));
      await this.abortUpload(key, uploadId);
      return;
    }
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.options.bucket,
        Key: this.key(key),
        UploadId: uploadId,
        MultipartUpload: { Parts: nonEmpty.filter((part) => part.size > 0).map((part) => ({ PartNumber: part.index, ETag: part.partRef })) },
      }),
    );
  }

  private async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(key) }));
      return true;
    } catch {
      return false;
    }
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.options.bucket, Key: this.key(key), UploadId: uploadId }));
    } catch {
      // already completed or aborted
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const result = await this.client.send(
      new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    return result.Body as Readable;
  }

  async directDownloadUrl(key: string, expiresInSeconds: number, filename: string): Promise<string | undefined> {
    if (this.options.downloadMode !== 'presigned') return undefined;
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.options.bucket,
        Key: this.key(key),
        ResponseContentDisposition: `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`,
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
