import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { GetBucketCorsCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BlobIntegrityError, BlobNotFoundError, type BlobStore, UploadGoneError } from '../src/storage/blob-store.js';
import { FsBlobStore } from '../src/storage/fs.blob-store.js';
import { S3BlobStore, type S3BlobStoreOptions } from '../src/storage/s3.blob-store.js';
import { MIN_PART, md5, random, sha256 } from './data-helpers.js';
import { startMoto } from './moto.js';

interface StoreUnderTest {
  store: BlobStore;
  /** Upload ids the backend still holds open (parts not yet completed or aborted). */
  openUploads(): Promise<string[]>;
  cleanup(): Promise<void>;
}

const makers: { name: string; make: () => Promise<StoreUnderTest> }[] = [
  {
    name: 'FsBlobStore',
    async make() {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-blobs-'));
      return {
        store: new FsBlobStore(root),
        openUploads: async () => fs.readdirSync(path.join(root, 'uploads')),
        cleanup: async () => fs.rmSync(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'S3BlobStore (moto)',
    async make() {
      const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-spool-'));
      const options: S3BlobStoreOptions = {
        endpoint: await startMoto(),
        region: 'us-east-1',
        bucket: `contract-${randomBytes(6).toString('hex')}`,
        prefix: 'pfx/',
        accessKeyId: 'test',
        secretAccessKey: 'test',
        forcePathStyle: true,
        downloadMode: 'presigned',
        spoolDir,
      };
      const store = new S3BlobStore(options);
      await store.ensureBucket();
      const client = new S3Client({
        endpoint: options.endpoint,
        region: options.region,
        forcePathStyle: true,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      return {
        store,
        async openUploads() {
          const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: options.bucket }));
          return (listed.Uploads ?? []).map((upload) => upload.UploadId ?? '');
        },
        async cleanup() {
          // Nothing may be left in the spool directory once parts are sent (or refused).
          expect(fs.readdirSync(spoolDir)).toEqual([]);
          client.destroy();
          fs.rmSync(spoolDir, { recursive: true, force: true });
        },
      };
    },
  },
];

const body = (bytes: Buffer, chunk = 64 * 1024) => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) chunks.push(bytes.subarray(i, i + chunk));
  return Readable.from(chunks.length ? chunks : [Buffer.alloc(0)]);
};

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.each(makers)('blob store contract: $name', ({ make }) => {
  let s: StoreUnderTest;
  let store: BlobStore;
  const key = (name: string) => `files/${name}-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    s = await make();
    store = s.store;
  }, 60_000);
  afterAll(() => s?.cleanup());

  it('stores parts checked against size and md5, and assembles them in index order', async () => {
    const k = key('multi');
    const upload = await store.startUpload(k);
    const p1 = random(MIN_PART);
    const p2 = random(MIN_PART + 3);
    const p3 = random(777);
    // Out of order, and with sizes and md5s declared or not.
    const r3 = await store.putPart(k, upload, 3, body(p3), { size: p3.length, md5: md5(p3) });
    const r1 = await store.putPart(k, upload, 1, body(p1), { md5: md5(p1) });
    const r2 = await store.putPart(k, upload, 2, body(p2), {});
    expect([r1.size, r2.size, r3.size]).toEqual([p1.length, p2.length, p3.length]);
    expect([r1.md5, r2.md5, r3.md5]).toEqual([md5(p1), md5(p2), md5(p3)]);
    expect(await s.openUploads()).toContain(upload);
    const parts = [
      { index: 3, partRef: r3.partRef, size: p3.length },
      { index: 1, partRef: r1.partRef, size: p1.length },
      { index: 2, partRef: r2.partRef, size: p2.length },
    ];
    await store.completeUpload(k, upload, parts);
    const whole = Buffer.concat([p1, p2, p3]);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));
    expect(await s.openUploads()).not.toContain(upload);

    // Completing again (as the recovery after a crash does) changes nothing.
    await store.completeUpload(k, upload, parts);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));

    // Ranges, inclusive at both ends, across part boundaries.
    for (const [start, end] of [
      [0, 0],
      [0, 99],
      [MIN_PART - 5, MIN_PART + 5],
      [whole.length - 10, whole.length - 1],
      [MIN_PART * 2, MIN_PART * 2 + 3],
    ] as [number, number][]) {
      const got = await readAll(await store.read(k, { start, end }));
      expect(Buffer.compare(got, whole.subarray(start, end + 1)), `${start}-${end}`).toBe(0);
    }
  });

  it('keeps nothing of a part whose size or md5 does not match', async () => {
    const k = key('integrity');
    const upload = await store.startUpload(k);
    const good = random(1000);
    const kept = await store.putPart(k, upload, 1, body(good), { size: 1000, md5: md5(good) });
    for (const [bytes, expected] of [
      [random(1000), { size: 1000, md5: md5(good) }],
      [random(1001), { size: 1000 }],
      [random(999), { size: 1000 }],
      [Buffer.alloc(0), { size: 1 }],
      [random(50), { md5: md5(Buffer.from('other')) }],
    ] as [Buffer, { size?: number; md5?: string }][]) {
      await expect(store.putPart(k, upload, 1, body(bytes), expected)).rejects.toBeInstanceOf(BlobIntegrityError);
      await expect(store.putPart(k, upload, 2, body(bytes), expected)).rejects.toBeInstanceOf(BlobIntegrityError);
    }
    await store.completeUpload(k, upload, [{ index: 1, partRef: kept.partRef, size: 1000 }]);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(good));
  });

  it('assembles the part recorded for an index, even when the index was sent twice', async () => {
    const k = key('resent');
    const upload = await store.startUpload(k);
    const first = random(500);
    const second = random(600);
    await store.putPart(k, upload, 1, body(first), {});
    const latest = await store.putPart(k, upload, 1, body(second), {});
    await store.completeUpload(k, upload, [{ index: 1, partRef: latest.partRef, size: second.length }]);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(second));
  });

  it('stores an empty file from one empty part, and from no part at all', async () => {
    const k = key('empty');
    const upload = await store.startUpload(k);
    const empty = await store.putPart(k, upload, 1, body(Buffer.alloc(0)), { size: 0, md5: md5(Buffer.alloc(0)) });
    expect(empty.size).toBe(0);
    await store.completeUpload(k, upload, [{ index: 1, partRef: empty.partRef, size: 0 }]);
    expect((await readAll(await store.read(k))).length).toBe(0);
    expect(await s.openUploads()).not.toContain(upload);

    const none = key('none');
    const noneUpload = await store.startUpload(none);
    await store.completeUpload(none, noneUpload, []);
    expect((await readAll(await store.read(none))).length).toBe(0);
  });

  it('drops an empty last part after full-size ones', async () => {
    const k = key('empty-last');
    const upload = await store.startUpload(k);
    const p1 = random(MIN_PART);
    const r1 = await store.putPart(k, upload, 1, body(p1), {});
    const r2 = await store.putPart(k, upload, 2, body(Buffer.alloc(0)), { size: 0 });
    await store.completeUpload(k, upload, [
      { index: 1, partRef: r1.partRef, size: p1.length },
      { index: 2, partRef: r2.partRef, size: 0 },
    ]);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(p1));
  });

  it('aborts an upload (idempotently); the aborted upload takes no more parts', async () => {
    const k = key('abort');
    const upload = await store.startUpload(k);
    await store.putPart(k, upload, 1, body(random(10)), {});
    expect(await s.openUploads()).toContain(upload);
    await store.abortUpload(k, upload);
    await store.abortUpload(k, upload);
    expect(await s.openUploads()).not.toContain(upload);
    await expect(store.read(k)).rejects.toBeInstanceOf(BlobNotFoundError);
    if (store.kind === 'local') {
      // (moto answers a 500 instead of S3's NoSuchUpload here, so this is checked on the local store only.)
      await expect(store.putPart(k, upload, 2, body(random(10)), {})).rejects.toBeInstanceOf(UploadGoneError);
    }
  });

  it('deletes blobs (idempotently) and reports missing ones as BlobNotFoundError', async () => {
    const k = key('delete');
    const upload = await store.startUpload(k);
    const bytes = random(2048);
    const part = await store.putPart(k, upload, 1, body(bytes), {});
    await store.completeUpload(k, upload, [{ index: 1, partRef: part.partRef, size: bytes.length }]);
    expect((await readAll(await store.read(k))).length).toBe(2048);
    await store.delete(k);
    await store.delete(k);
    await expect(store.read(k)).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.read(k, { start: 0, end: 10 })).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.read(key('never'))).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('refuses unsafe keys and answers the readiness probe', async () => {
    await expect(store.read('../etc/passwd')).rejects.toThrow(/unsafe/);
    await expect(store.delete('/abs')).rejects.toThrow(/unsafe/);
    await store.check();
  });

  it('hands out direct download URLs only when it can (presigned S3)', async () => {
    const url = await store.directDownloadUrl('files/x', 60, 'x.txt');
    if (store.kind === 's3') expect(url).toMatch(/X-Amz-Signature=/);
    else expect(url).toBeUndefined();
  });
});

describe('FsBlobStore layout: a closed file is its one part, or its parts plus a manifest', () => {
  let root: string;
  let store: FsBlobStore;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-blobs-'));
    store = new FsBlobStore(root);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  async function uploadParts(k: string, sizes: number[]) {
    const upload = await store.startUpload(k);
    const bytes = sizes.map((size) => random(size));
    const parts = [];
    for (const [i, part] of bytes.entries())
      parts.push({ index: i + 1, partRef: (await store.putPart(k, upload, i + 1, body(part), {})).partRef, size: part.length });
    return { upload, parts, whole: Buffer.concat(bytes) };
  }

  it('closes without copying: the parts move into the blob folder, stale re-sent parts are dropped', async () => {
    const k = 'files/layout-a';
    const { upload, parts, whole } = await uploadParts(k, [MIN_PART, 1000]);
    const stale = await store.putPart(k, upload, 2, body(random(10)), {});
    const inode = fs.statSync(path.join(root, 'uploads', upload, parts[0]?.partRef ?? '')).ino;
    await store.completeUpload(k, upload, parts);
    const folder = path.join(root, 'blobs', k);
    expect(fs.readdirSync(folder).sort()).toEqual([...parts.map((part) => part.partRef), 'manifest.json'].sort());
    expect(fs.readdirSync(folder)).not.toContain(stale.partRef);
    // The same file, not a copy of it.
    expect(fs.statSync(path.join(folder, parts[0]?.partRef ?? '')).ino).toBe(inode);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));
    await store.delete(k);
    expect(fs.existsSync(folder)).toBe(false);
  });

  it('finishes a completion interrupted after the manifest was written, before the folder moved', async () => {
    const k = 'files/layout-b';
    const { upload, parts, whole } = await uploadParts(k, [MIN_PART, MIN_PART + 1, 7]);
    // The folder move fails as if the process died right there.
    const realRename = fsp.rename;
    const rename = vi.spyOn(fsp, 'rename').mockImplementation(async (from, to) => {
      if (String(from).endsWith(upload)) throw new Error('killed');
      await realRename(from, to);
    });
    await expect(store.completeUpload(k, upload, parts)).rejects.toThrow('killed');
    rename.mockRestore();
    expect(fs.readdirSync(path.join(root, 'uploads', upload))).toContain('manifest.json');
    await expect(store.read(k)).rejects.toBeInstanceOf(BlobNotFoundError);
    await store.completeUpload(k, upload, parts);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));
    expect(fs.existsSync(path.join(root, 'uploads', upload))).toBe(false);
  });

  it('closes a file of one part by moving that part into place (no manifest), ranges and all; a kill after the move is finished', async () => {
    const k = 'files/layout-single';
    const { upload, parts, whole } = await uploadParts(k, [200_000]);
    const stale = await store.putPart(k, upload, 1, body(random(10)), {});
    const inode = fs.statSync(path.join(root, 'uploads', upload, parts[0]?.partRef ?? '')).ino;
    // The removal of what is left of the upload fails as if the process died right after the move.
    const realRm = fs.rmSync;
    const rm = vi.spyOn(fs, 'rmSync').mockImplementation((target, options) => {
      if (String(target).endsWith(upload)) throw new Error('killed');
      realRm(target, options);
    });
    await expect(store.completeUpload(k, upload, parts)).rejects.toThrow('killed');
    rm.mockRestore();
    const blob = path.join(root, 'blobs', k);
    expect(fs.statSync(blob).isFile()).toBe(true);
    expect(fs.statSync(blob).ino).toBe(inode);
    expect(fs.readdirSync(path.join(root, 'uploads', upload))).toEqual([stale.partRef]);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));
    expect(await readAll(await store.read(k, { start: 1000, end: 1999 }))).toEqual(whole.subarray(1000, 2000));
    // Completing again (the start-up recovery) only clears the upload away.
    await store.completeUpload(k, upload, parts);
    expect(fs.existsSync(path.join(root, 'uploads', upload))).toBe(false);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));
    await store.delete(k);
    expect(fs.existsSync(blob)).toBe(false);
  });

  it('refuses to complete when a recorded part is missing or has another size on disk', async () => {
    const k = 'files/layout-c';
    const { upload, parts } = await uploadParts(k, [MIN_PART, 10]);
    await expect(store.completeUpload(k, upload, [parts[0] as (typeof parts)[0], { index: 2, partRef: '2.abc', size: 10 }])).rejects.toThrow();
    await expect(store.completeUpload(k, upload, [parts[0] as (typeof parts)[0], { ...(parts[1] as (typeof parts)[0]), size: 11 }])).rejects.toThrow(
      /bytes on disk/,
    );
    await expect(store.read(k)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('still reads blobs that earlier versions assembled into one file, with ranges', async () => {
    const k = 'files/layout-legacy';
    const whole = random(3 * 1024 * 1024 + 5);
    fs.mkdirSync(path.join(root, 'blobs', 'files'), { recursive: true });
    fs.writeFileSync(path.join(root, 'blobs', k), whole);
    expect(sha256(await readAll(await store.read(k)))).toBe(sha256(whole));
    const got = await readAll(await store.read(k, { start: 1024 * 1024 - 1, end: 2 * 1024 * 1024 + 1 }));
    expect(Buffer.compare(got, whole.subarray(1024 * 1024 - 1, 2 * 1024 * 1024 + 2))).toBe(0);
    await store.delete(k);
    await expect(store.read(k)).rejects.toBeInstanceOf(BlobNotFoundError);
  });
});

describe('S3 bucket set-up for browsers (moto)', () => {
  it('gives a new bucket a CORS rule for the web origin, keeps an existing one, and names the origin of its URLs', async () => {
    const endpoint = await startMoto();
    const options: S3BlobStoreOptions = {
      endpoint,
      region: 'us-east-1',
      bucket: `cors-${randomBytes(6).toString('hex')}`,
      prefix: '',
      accessKeyId: 'test',
      secretAccessKey: 'test',
      forcePathStyle: true,
      downloadMode: 'presigned',
    };
    const store = new S3BlobStore(options);
    await store.ensureBucket('http://panx.example:8080');
    expect(await store.directDownloadOrigin()).toBe(new URL(endpoint).origin);
    // The rule lets the web app's origin read with Range requests and see the headers PDF.js and the viewers need.
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const rules = async () => (await client.send(new GetBucketCorsCommand({ Bucket: options.bucket }))).CORSRules;
    expect(await rules()).toEqual([
      expect.objectContaining({
        AllowedOrigins: ['http://panx.example:8080'],
        AllowedMethods: ['GET', 'HEAD'],
        AllowedHeaders: expect.arrayContaining(['Range']),
        ExposeHeaders: expect.arrayContaining(['Content-Range', 'Accept-Ranges']),
      }),
    ]);
    // A second start with another origin leaves the existing (the operator's) configuration alone.
    await store.ensureBucket('http://other.example');
    expect((await rules())?.[0]?.AllowedOrigins).toEqual(['http://panx.example:8080']);

    const proxied = new S3BlobStore({ ...options, downloadMode: 'proxy' });
    expect(await proxied.directDownloadOrigin()).toBeUndefined();
    expect(await new FsBlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'panx-blobs-'))).directDownloadOrigin()).toBeUndefined();
  });
});
