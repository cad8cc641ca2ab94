import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { PanxClient } from '../create-client.js';
import { isApiError } from '../errors.js';
import { sleep } from './limiter.js';
import { Md5Stream, md5OfFileRange } from './md5.js';
import { TransferError, type TransferProgress } from './progress.js';
import { RawGetUnsupported, rawGetInto } from './raw-get.js';
import { waitUntilClosed } from './upload.js';

/**
 * Downloads as `dx download` does (describe with parts → /file-xxxx/download → GET the signed URL,
 * without Authorization), into `<out>.part`. An interrupted download resumes from the bytes already
 * in the `.part` file with `Range: bytes=<have>-`; the result is checked against the size and the
 * per-part md5s of the describe before it is renamed to `<out>`.
 */

const MAX_ATTEMPTS = 5;

export interface DownloadSource {
  id: string;
  /** The container whose copy is read (the describe and download `project` hint). */
  project?: string;
}

export interface FileDescribe {
  name: string;
  state: string;
  size: number;
  parts?: Record<string, { size?: number; md5?: string; state?: string }>;
}

export interface DownloadOptions {
  overwrite: boolean;
  progress: TransferProgress;
  /** Called with the byte count of each chunk written (the CLI's crash tests hook in here). */
  onBytesWritten?: (bytes: number) => void;
  /** A describe the caller made already (with parts), to save a request. */
  described?: FileDescribe;
  /**
   * Write each received chunk at once with a synchronous write on the calling thread, while its bytes
   * are still in this core's cache. For a process that does nothing else (px) this costs less than
   * writes on the thread pool (1 GiB from a plain server: 2.6 s against 3.4 s, curl 2.1 s; with the
   * md5 check running too the gain is small, about 0.1-0.3 s); a process that serves others meanwhile
   * (the job helper host) must leave it off, as a write can block while the kernel flushes dirty pages.
   */
  syncWrites?: boolean;
  /**
   * With `syncWrites`: write around the page cache (O_DIRECT) or not. Unset, downloads of 16 MiB or
   * more start in the page cache and move around it once it is slow (part-file-writer.ts).
   */
  directWrites?: boolean;
  /** Stops the download (the GET under way and any retry): the `.part` file stays, to resume from. */
  signal?: AbortSignal;
}

const hint = (source: DownloadSource) => (source.project ? { project: source.project } : {});

export async function describeFile(client: PanxClient, source: DownloadSource): Promise<FileDescribe> {
  const described = (await client.call('file-xxxx/describe', source.id, {
    ...hint(source),
    fields: { name: true, state: true, size: true, parts: true },
  })) as Partial<FileDescribe>;
  return { name: described.name ?? source.id, state: described.state ?? 'unknown', size: described.size ?? 0, parts: described.parts };
}

/** A signed URL for the bytes; `Range` is added by the caller. */
export async function downloadUrl(client: PanxClient, source: DownloadSource): Promise<{ url: string; headers: Record<string, string> }> {
  const { url, headers } = await client.call('file-xxxx/download', source.id, { ...hint(source), preauthenticated: false });
  return { url, headers };
}

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

interface CheckablePart {
  index: number;
  offset: number;
  size: number;
  md5: string;
}

/**
 * Checks the parts' md5s while the download goes on, so that the check costs no pass of its own at
 * the end: the received chunks go to an md5 worker once written (Md5Stream), and what an earlier run
 * left in the `.part` file is hashed from the file meanwhile. A rewind (the server sent the whole file
 * again, or the `.part` file was cut) forgets what was hashed past that point.
 */
class PartChecker {
  private readonly results = new Map<number, Promise<string | Error>>();

  constructor(
    private readonly file: string,
    private readonly parts: CheckablePart[],
  ) {}

  /** The bytes before `position` are on disk: hash the parts they hold that have no md5 yet. */
  onDisk(position: number): void {
    for (const part of this.parts) {
      if (part.offset + part.size > position) break;
      if (this.results.has(part.index)) continue;
      this.results.set(
        part.index,
        md5OfFileRange(this.file, part.offset, part.size).catch((error: unknown) => error as Error),
      );
    }
  }

  /** Hashes the bytes about to arrive from `start` (the parts before it must have been given to `onDisk`). */
  stream(start: number): Md5Stream {
    return new Md5Stream(
      this.file,
      this.parts.filter((part) => part.size > 0 && part.offset + part.size > start),
      start,
    );
  }

  async endStream(stream: Md5Stream): Promise<void> {
    await stream.end();
    for (const [index, md5] of stream.results) this.results.set(index, Promise.resolve(md5));
  }

  rewind(position: number): void {
    for (const part of this.parts) if (part.offset + part.size > position) this.results.delete(part.index);
  }

  /** The index of the first part whose md5 differs, or undefined when all match (call once every byte is written). */
  async firstBad(): Promise<number | undefined> {
    this.onDisk(Number.POSITIVE_INFINITY);
    for (const part of this.parts) {
      const got = await this.results.get(part.index);
      if (got !== part.md5) return part.index;
    }
    return undefined;
  }
}

/** The parts of the describe in order, when they account for exactly the file's bytes. */
function checkableParts(described: FileDescribe): CheckablePart[] | undefined {
  if (!described.parts) return undefined;
  let offset = 0;
  const parts = Object.entries(described.parts)
    .map(([index, part]) => ({ index: Number(index), size: part.size ?? -1, md5: part.md5 ?? '', offset: 0 }))
    .sort((a, b) => a.index - b.index);
  for (const part of parts) {
    part.offset = offset;
    offset += part.size;
  }
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  if (!parts.length || total !== described.size || parts.some((part) => part.size < 0 || !/^[0-9a-f]{32}$/.test(part.md5))) return undefined;
  return parts;
}

/** Received bytes are written in batches of about this size (one writev each on the thread pool). */
const WRITE_BATCH = 4 * 1024 * 1024;
/** With synchronous writes, written chunks go to the md5 workers in batches of about this size. */
const FEED_BATCH = 1024 * 1024;

function get(url: string, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<http.IncomingMessage> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).get(target, { headers, ...(signal ? { signal } : {}) });
    request.once('response', resolve);
    request.once('error', reject);
  });
}

/**
 * GETs from `have` to the end into the `.part` file; returns the new byte count. node:http rather
 * than fetch, and large writes with one in flight while the next batch arrives: a chunk-by-chunk
 * write loop behind a web stream used a core for about 300 MiB/s.
 */
async function fetchRest(
  partPath: string,
  have: number,
  size: number,
  url: { url: string; headers: Record<string, string> },
  onBytes: (n: number) => void,
  onBytesWritten: ((n: number) => void) | undefined,
  checker: PartChecker | undefined,
  syncWrites: boolean,
  signal: AbortSignal | undefined,
) {
  const headers: Record<string, string> = { ...url.headers };
  if (have > 0) headers.range = `bytes=${have}-`;
  const response = await get(url.url, headers, signal);
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const error = new Error(`GET failed with HTTP ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`);
    Object.assign(error, { status });
    throw error;
  }
  let start = 0;
  if (have > 0 && status === 206) {
    const range = /^bytes (\d+)-/.exec(response.headers['content-range'] ?? '');
    start = range ? Number(range[1]) : 0;
    if (start !== have) {
      response.destroy();
      throw new Error(`asked for bytes from ${have}, the server sent from ${start}`);
    }
  } else if (have > 0) {
    // 200: the whole file again. Start over rather than append.
    onBytes(-have);
    checker?.rewind(0);
  }
  const handle = await fs.promises.open(partPath, start > 0 ? 'a' : 'w');
  const hashing = checker?.stream(start);
  let position = start;
  let received = start;
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let writing: Promise<void> = Promise.resolve();
  const written = (chunks: Buffer[], bytes: number) => {
    position += bytes;
    // Written: the chunks can go to the md5 worker now (they are moved, not copied).
    hashing?.feed(chunks);
    onBytesWritten?.(bytes);
  };
  const write = async (chunks: Buffer[], bytes: number) => {
    const { bytesWritten } = await handle.writev(chunks);
    if (bytesWritten < bytes) {
      const rest = Buffer.concat(chunks).subarray(bytesWritten);
      let done = 0;
      while (done < rest.length) done += (await handle.write(rest, done)).bytesWritten;
    }
    written(chunks, bytes);
  };
  const flush = async () => {
    await writing;
    if (!batchBytes) return;
    if (syncWrites) {
      written(batch, batchBytes);
    } else {
      writing = write(batch, batchBytes);
      // Awaited at the next flush; until then a failure must not count as unhandled.
      writing.catch(() => undefined);
    }
    batch = [];
    batchBytes = 0;
  };
  try {
    for await (const chunk of response) {
      const bytes = chunk as Buffer;
      received += bytes.length;
      if (received > size) throw new TransferError(`the server sent more than the ${size} bytes the file has`);
      onBytes(bytes.length);
      if (syncWrites) {
        // Written at once, while the bytes are still in this core's cache; `flush` then only hands them on.
        let done = 0;
        while (done < bytes.length) done += fs.writeSync(handle.fd, bytes, done);
      }
      batch.push(bytes);
      batchBytes += bytes.length;
      if (batchBytes >= (syncWrites ? FEED_BATCH : WRITE_BATCH)) await flush();
    }
    await flush();
    await writing;
  } finally {
    response.destroy();
    await writing.catch(() => undefined);
    await handle.close();
    // Also after a failure: what was fed was written, so the parts it completed are good to keep.
    if (hashing) await checker?.endStream(hashing);
  }
  return position;
}

/** Downloads one closed file to `out` (resuming `<out>.part`), verifies it, then renames it into place. */
export async function downloadFile(client: PanxClient, source: DownloadSource, out: string, options: DownloadOptions): Promise<void> {
  let described = options.described?.parts ? options.described : await describeFile(client, source);
  if (described.state === 'closing') {
    // Just uploaded: the server is still assembling the parts.
    await waitUntilClosed(client, source.id, source.project);
    described = await describeFile(client, source);
  }
  if (described.state !== 'closed') throw new TransferError(`InvalidState: ${source.id} is ${described.state}; only closed files can be downloaded`);
  if (fs.existsSync(out) && !options.overwrite) throw new TransferError(`${out} already exists: use -f to overwrite it`);
  const partPath = `${out}.part`;
  let have = sizeOf(partPath);
  if (have > described.size) {
    fs.rmSync(partPath, { force: true });
    have = 0;
  }
  if (have > 0 && have < described.size) options.progress.log(`Resuming the download of ${described.name} at byte ${have} of ${described.size}`);
  const progress = options.progress.file(described.name, described.size, have);
  if (described.size === 0) fs.writeFileSync(partPath, '');
  const parts = checkableParts(described);
  const checker = parts ? new PartChecker(partPath, parts) : undefined;
  // What an earlier run left in the .part file is checked like the rest.
  checker?.onDisk(have);
  let url: { url: string; headers: Record<string, string> } | undefined;
  // With synchronous writes (px), a plain socket reads into the md5 worker's buffers (raw-get.ts).
  let raw = options.syncWrites ?? false;
  for (let attempt = 1; have < described.size; attempt++) {
    try {
      url ??= await downloadUrl(client, source);
      if (raw) {
        try {
          const from = have;
          have = await rawGetInto({
            url: url.url,
            headers: url.headers,
            have,
            size: described.size,
            partPath,
            checker,
            onRestart: () => {
              progress.add(-from);
              checker?.rewind(0);
            },
            onBytes: (bytes) => progress.add(bytes),
            onBytesWritten: options.onBytesWritten,
            signal: options.signal,
            directWrites: options.directWrites,
          });
          if (have < described.size) throw new Error(`the connection ended after ${have} of ${described.size} bytes`);
          continue;
        } catch (error) {
          if (!(error instanceof RawGetUnsupported)) throw error;
          raw = false;
        }
      }
      have = await fetchRest(
        partPath,
        have,
        described.size,
        url,
        (bytes) => progress.add(bytes),
        options.onBytesWritten,
        checker,
        options.syncWrites ?? false,
        options.signal,
      );
      if (have < described.size) throw new Error(`the connection ended after ${have} of ${described.size} bytes`);
    } catch (error) {
      if (error instanceof TransferError || isApiError(error) || options.signal?.aborted || attempt >= MAX_ATTEMPTS) throw error;
      const status = (error as { status?: number }).status;
      if (status === 401 || status === 403) url = undefined; // expired or refused: ask for a new URL
      if (status === 416) {
        fs.rmSync(partPath, { force: true });
        progress.add(-have);
      }
      have = sizeOf(partPath);
      checker?.rewind(have);
      await sleep(250 * 2 ** attempt);
    }
  }
  const size = sizeOf(partPath);
  if (size !== described.size) throw new TransferError(`${partPath} has ${size} bytes, expected ${described.size}; run the command again to resume`);
  if (checker) {
    const bad = await checker.firstBad();
    if (bad !== undefined) {
      fs.rmSync(partPath, { force: true });
      throw new TransferError(`the md5 of part ${bad} of ${source.id} does not match; the partial download was removed, run the command again`);
    }
  }
  fs.renameSync(partPath, out);
  progress.done();
}
