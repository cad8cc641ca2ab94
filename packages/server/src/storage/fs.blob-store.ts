import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { isPageAligned } from '@panx/md5';
import { assertSafeKey, BlobNotFoundError, type BlobReader, type BlobStore, type ByteRange, type StoredPart, UploadGoneError } from './blob-store.js';
import { spoolPart, sweepScratch } from './part-spool.js';

const TMP_PREFIX = 'part-';
const MANIFEST = 'manifest.json';
/** Reads of a blob at least this long are direct (O_DIRECT) when the store writes that way; smaller ones may profit from the page cache. */
const DIRECT_READ_MIN_BYTES = 64 * 1024 * 1024;
/** The unit of direct I/O: offsets, lengths and memory are multiples of it. */
const PAGE = 4096;
const O_DIRECT: number | undefined = (fs.constants as Record<string, number | undefined>).O_DIRECT;
/** Bytes per read when serving a blob: large reads keep a download from stalling on the thread pool. */
const READ_CHUNK = 1024 * 1024;

/** The parts of a closed file, in order: the file's bytes are their concatenation. */
interface Manifest {
  version: 1;
  size: number;
  parts: { ref: string; size: number }[];
}

/** A stretch of one file on disk, `end` inclusive. */
interface Segment {
  file: string;
  start: number;
  end: number;
}

/**
 * Blobs as files under one directory. Parts are written to `tmp/`, fsynced, then renamed into
 * `uploads/<uploadId>/<index>.<random>` (one name per PUT). Closing copies nothing. A file of one
 * part (most files) becomes that part, renamed to `blobs/<key>`. A file of several parts (or none)
 * gets a manifest (the parts in order, fsynced) in the upload's folder, which is renamed to
 * `blobs/<key>/`: a folder of its parts plus `manifest.json`. Either way the blob appears under its
 * final name at once or not at all; both layouts are read.
 */
export class FsBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  private readonly blobRoot: string;
  private readonly uploadRoot: string;
  private readonly tmpRoot: string;

  constructor(
    root: string,
    private readonly options: {
      /** Write parts, and read large blobs, with O_DIRECT where the file system allows it (see part-spool.ts). */
      directIo?: boolean;
      /** Blobs (or ranges) read with O_DIRECT from this many bytes; DIRECT_READ_MIN_BYTES by default. */
      directReadMinBytes?: number;
    } = {},
  ) {
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
    fs.mkdirSync(this.uploadDir(uploadId), { recursive: true });
    return uploadId;
  }

  async putPart(_key: string, uploadId: string, index: number, body: Readable, expected: { size?: number; md5?: string }): Promise<StoredPart> {
    const dir = this.uploadDir(uploadId);
    // Every PUT gets its own name: a part re-sent while the file closes cannot replace the bytes the
    // database records for that index (the manifest names exactly the recorded partRef).
    const partRef = `${index}.${randomBytes(6).toString('hex')}`;
    const tmp = path.join(this.tmpRoot, `${TMP_PREFIX}${uploadId}.${partRef}`);
    const stored = await spoolPart(body, tmp, index, expected, { directIo: this.options.directIo ?? false });
    try {
      // Metadata calls of a few microseconds are made synchronously here and below: as thread-pool
      // round trips each waited behind other work, milliseconds per file under load.
      fs.renameSync(tmp, path.join(dir, partRef));
    } catch (error) {
      fs.rmSync(tmp, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UploadGoneError(`The upload ${uploadId} no longer exists`);
      throw error;
    }
    return { size: stored.size, md5: stored.md5, partRef };
  }

  async completeUpload(key: string, uploadId: string, parts: { index: number; partRef: string; size: number }[]): Promise<void> {
    const target = this.blobPath(key);
    const dir = this.uploadDir(uploadId);
    if (!fs.existsSync(target)) {
      const kept = [...parts].sort((a, b) => a.index - b.index).filter((part) => part.size > 0);
      for (const part of kept) {
        const { size } = fs.statSync(path.join(dir, assertSafePartRef(part.partRef)));
        if (size !== part.size) throw new Error(`part ${part.partRef} of ${key} has ${size} bytes on disk but ${part.size} are recorded`);
      }
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const [only] = kept;
      if (kept.length === 1 && only) {
        // One part (most files): the part itself becomes the blob; no manifest to write and fsync.
        fs.renameSync(path.join(dir, only.partRef), target);
        await fsyncDir(path.dirname(target));
      } else {
        const manifest: Manifest = {
          version: 1,
          size: kept.reduce((sum, part) => sum + part.size, 0),
          parts: kept.map((part) => ({ ref: part.partRef, size: part.size })),
        };
        // Written in place: a crash mid-write leaves a manifest that the retry writes again, since
        // the folder only moves once it is whole.
        await writeFileDurably(path.join(dir, MANIFEST), JSON.stringify(manifest));
        // Parts sent more than once, or refused by the close: not part of the file.
        const keep = new Set([MANIFEST, ...kept.map((part) => part.partRef)]);
        for (const name of await fsp.readdir(dir)) if (!keep.has(name)) await fsp.rm(path.join(dir, name), { force: true });
        // The one step that makes the blob visible: the folder with its manifest moves into place whole.
        await fsp.rename(dir, target);
        // (The uploads folder is not fsynced: after a power cut that forgot the move's source side,
        // completing again finds the blob in place and removes what is left of the upload.)
        await fsyncDir(path.dirname(target));
        return;
      }
    }
    // The blob is in place (just now, or before a crash that came before the upload was forgotten):
    // what is left of the upload goes (an empty folder, unless parts were sent more than once).
    fs.rmSync(dir, { recursive: true, force: true });
  }

  async abortUpload(_key: string, uploadId: string): Promise<void> {
    // A part PUT racing the abort can add a file while the folder is being removed (ENOTEMPTY): retry.
    await fsp.rm(this.uploadDir(uploadId), { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    return readSegments(await this.segments(key, range));
  }

  async openReader(key: string, range?: ByteRange): Promise<BlobReader> {
    const segments = await this.segments(key, range);
    const bytes = segments.reduce((sum, segment) => sum + segment.end - segment.start + 1, 0);
    // Large reads go around the page cache like the writes (parts written with O_DIRECT are not in it).
    return new SegmentReader(segments, Boolean(this.options.directIo) && bytes >= (this.options.directReadMinBytes ?? DIRECT_READ_MIN_BYTES));
  }

  /** The stretches of files that hold the blob's bytes (of `range`), in order. */
  private async segments(key: string, range?: ByteRange): Promise<Segment[]> {
    const file = this.blobPath(key);
    // The layout is looked at before answering, so a missing blob is an error here rather than in the middle of a response.
    let segments: Segment[];
    try {
      const stat = await fsp.stat(file);
      if (stat.isDirectory()) {
        const manifest = JSON.parse(await fsp.readFile(path.join(file, MANIFEST), 'utf8')) as Manifest;
        segments = segmentsOf(
          manifest.parts.map((part) => ({ file: path.join(file, assertSafePartRef(part.ref)), size: part.size })),
          range,
        );
      } else {
        segments = segmentsOf([{ file, size: stat.size }], range);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(`No blob ${key}`);
      throw error;
    }
    return segments;
  }

  async directDownloadOrigin(): Promise<string | undefined> {
    return undefined;
  }

  async directDownloadUrl(): Promise<string | undefined> {
    return undefined;
  }

  async delete(key: string): Promise<void> {
    const target = this.blobPath(key);
    // Moved aside first, so that the blob disappears at once, never half deleted; the start-up sweep
    // removes what a crash leaves in tmp/.
    const aside = path.join(this.tmpRoot, `${TMP_PREFIX}deleted.${randomBytes(6).toString('hex')}`);
    try {
      await fsp.rename(target, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    await fsp.rm(aside, { recursive: true, force: true });
  }

  async check(): Promise<void> {
    await fsp.access(this.blobRoot, fs.constants.W_OK);
  }
}

function assertSafePartRef(partRef: string): string {
  if (!/^[0-9]+(\.[0-9a-f]+)?$/.test(partRef)) throw new Error(`unsafe part reference: ${partRef}`);
  return partRef;
}

/** The stretches of `files` (concatenated in order) that hold the bytes of `range` (all of them without one). */
function segmentsOf(files: { file: string; size: number }[], range: ByteRange | undefined): Segment[] {
  const segments: Segment[] = [];
  let offset = 0;
  for (const { file, size } of files) {
    const first = offset;
    const last = offset + size - 1;
    offset += size;
    if (size === 0) continue;
    const start = range ? Math.max(range.start, first) : first;
    const end = range ? Math.min(range.end, last) : last;
    if (start <= end) segments.push({ file, start: start - first, end: end - first });
  }
  return segments;
}

/**
 * Reads segments in order into the caller's buffers, one positioned read per call. A call takes its
 * stretch of the blob before it awaits anything, so calls may overlap (`readsAtOnce`): the disk
 * answers several 1 MiB reads at once faster than one after another (a 2 GiB blob served to `curl -o
 * /dev/null` on the VM measured: 1.96–3.03 s one read at a time, 1.47–2.08 s two, 1.00–1.09 s four;
 * six or eight were no faster). With `direct`, a page-aligned buffer is read with
 * O_DIRECT from the page below the position (the bytes before the position are moved out of the way):
 * no page cache to fill, about 0.05 s of system time per GiB against 1 s for a cold buffered read.
 * Unaligned buffers, and file systems that refuse O_DIRECT, are read through the page cache.
 */
class SegmentReader implements BlobReader {
  readonly readsAtOnce = 4;
  private index = 0;
  private position: number;
  /** Open files by segment and kind, closed once their segment is passed and no read uses them. */
  private readonly files = new Map<string, OpenSegment>();

  constructor(
    private readonly segments: Segment[],
    private direct = false,
  ) {
    this.position = segments[0]?.start ?? 0;
  }

  readInto(buffer: Buffer): Promise<number> {
    // Everything up to the read itself is decided here, synchronously: see the class comment.
    while (this.index < this.segments.length && this.position > (this.segments[this.index] as Segment).end) {
      this.index++;
      this.position = this.segments[this.index]?.start ?? 0;
      this.closePassed();
    }
    const segment = this.segments[this.index];
    if (!segment) return Promise.resolve(0);
    const left = segment.end - this.position + 1;
    const direct = this.direct && buffer.length >= PAGE && isPageAligned(buffer);
    // A direct read starts on the page below the position and reads whole pages (at most the buffer's).
    const head = direct ? this.position % PAGE : 0;
    const length = direct ? Math.min(Math.floor(buffer.length / PAGE) * PAGE - head, left) : Math.min(buffer.length, left);
    const at = this.position;
    this.position += length;
    const open = this.use(this.index, segment.file, direct);
    return this.readStretch(open, buffer, at, length, head).finally(() => {
      open.users--;
      this.closePassed();
    });
  }

  private async readStretch(open: OpenSegment, buffer: Buffer, at: number, length: number, head: number): Promise<number> {
    const { handle, direct } = await open.handle;
    if (direct) {
      const { bytesRead } = await handle.read(buffer, 0, Math.ceil((head + length) / PAGE) * PAGE, at - head);
      if (bytesRead < head + length) throw new Error(`${open.file} ends before byte ${at + length - 1}`);
      if (head) buffer.copy(buffer, 0, head, head + length);
      return length;
    }
    for (let done = 0; done < length; ) {
      const { bytesRead } = await handle.read(buffer, done, length - done, at + done);
      if (bytesRead === 0) throw new Error(`${open.file} ends before byte ${at + length - 1}`);
      done += bytesRead;
    }
    return length;
  }

  /** The segment's file, opened once per kind (a refusal of O_DIRECT turns direct reads off). */
  private use(index: number, file: string, direct: boolean): OpenSegment {
    const key = `${index}:${direct}`;
    let open = this.files.get(key);
    if (!open) {
      open = { index, file, users: 0, handle: this.openFile(file, direct) };
      // A failed open is the read's error; the entry is dropped with its segment.
      open.handle.catch(() => undefined);
      this.files.set(key, open);
    }
    open.users++;
    return open;
  }

  private async openFile(file: string, direct: boolean): Promise<{ handle: fsp.FileHandle; direct: boolean }> {
    if (direct && O_DIRECT !== undefined) {
      try {
        return { handle: await fsp.open(file, fs.constants.O_RDONLY | O_DIRECT), direct: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        this.direct = false;
      }
    }
    return { handle: await fsp.open(file, 'r'), direct: false };
  }

  private closePassed(): void {
    for (const [key, open] of this.files) {
      if (open.index < this.index && open.users === 0) {
        this.files.delete(key);
        open.handle.then(({ handle }) => handle.close()).catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    const opens = [...this.files.values()];
    this.files.clear();
    // FileHandle.close waits for reads still running on the handle.
    await Promise.all(opens.map((open) => open.handle.then(({ handle }) => handle.close()).catch(() => undefined)));
  }
}

interface OpenSegment {
  index: number;
  file: string;
  /** Reads asked for and not yet answered. */
  users: number;
  handle: Promise<{ handle: fsp.FileHandle; direct: boolean }>;
}

/** One stream over the segments in order (a new buffer per chunk: the consumer keeps them). */
function readSegments(segments: Segment[]): Readable {
  const reader = new SegmentReader(segments);
  return new Readable({
    highWaterMark: READ_CHUNK,
    async read() {
      try {
        const buffer = Buffer.allocUnsafe(READ_CHUNK);
        const bytesRead = await reader.readInto(buffer);
        this.push(bytesRead === 0 ? null : bytesRead < buffer.length ? buffer.subarray(0, bytesRead) : buffer);
      } catch (error) {
        this.destroy(error as Error);
      }
    },
    destroy(error, callback) {
      reader.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
}

async function writeFileDurably(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsyncDir(path.dirname(file));
}

/** Opening and closing are synchronous (microseconds); only the fsync, which a slow disk may stretch, leaves the event loop. */
async function fsyncDir(dir: string): Promise<void> {
  const fd = fs.openSync(dir, 'r');
  try {
    await new Promise<void>((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
  } finally {
    fs.closeSync(fd);
  }
}
