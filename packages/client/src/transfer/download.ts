import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { PanxClient } from '../create-client.js';
import { isApiError } from '../errors.js';
import { sleep } from './limiter.js';
import { TransferError, type TransferProgress } from './progress.js';
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

/** The index of the first part whose md5 differs, or undefined when all match. */
async function firstBadPart(file: string, parts: { index: number; size: number; md5: string }[]): Promise<number | undefined> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const buffer = Buffer.alloc(4 * 1024 * 1024);
    let offset = 0;
    for (const part of parts) {
      const hash = createHash('md5');
      let remaining = part.size;
      while (remaining > 0) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(remaining, buffer.length), offset);
        if (bytesRead === 0) return part.index;
        hash.update(buffer.subarray(0, bytesRead));
        offset += bytesRead;
        remaining -= bytesRead;
      }
      if (hash.digest('hex') !== part.md5) return part.index;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/** The parts of the describe in order, when they account for exactly the file's bytes. */
function checkableParts(described: FileDescribe): { index: number; size: number; md5: string }[] | undefined {
  if (!described.parts) return undefined;
  const parts = Object.entries(described.parts)
    .map(([index, part]) => ({ index: Number(index), size: part.size ?? -1, md5: part.md5 ?? '' }))
    .sort((a, b) => a.index - b.index);
  const total = parts.reduce((sum, part) => sum + part.size, 0);
  if (!parts.length || total !== described.size || parts.some((part) => part.size < 0 || !/^[0-9a-f]{32}$/.test(part.md5))) return undefined;
  return parts;
}

/** GETs from `have` to the end into the `.part` file; returns the new byte count. */
async function fetchRest(
  partPath: string,
  have: number,
  size: number,
  url: { url: string; headers: Record<string, string> },
  onBytes: (n: number) => void,
  onBytesWritten: ((n: number) => void) | undefined,
) {
  const headers: Record<string, string> = { ...url.headers };
  if (have > 0) headers.range = `bytes=${have}-`;
  const response = await fetch(url.url, { headers });
  if (!response.ok || !response.body) {
    const text = await response.text().catch(() => '');
    const error = new Error(`GET failed with HTTP ${response.status}: ${text.slice(0, 300)}`);
    Object.assign(error, { status: response.status });
    throw error;
  }
  let start = 0;
  if (have > 0 && response.status === 206) {
    const range = /^bytes (\d+)-/.exec(response.headers.get('content-range') ?? '');
    start = range ? Number(range[1]) : 0;
    if (start !== have) throw new Error(`asked for bytes from ${have}, the server sent from ${start}`);
  } else if (have > 0) {
    // 200: the whole file again. Start over rather than append.
    onBytes(-have);
  }
  const handle = await fs.promises.open(partPath, start > 0 ? 'a' : 'w');
  let position = start;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value: bytes } = await reader.read();
      if (done) break;
      await handle.write(bytes);
      position += bytes.length;
      onBytes(bytes.length);
      onBytesWritten?.(bytes.length);
      if (position > size) throw new TransferError(`the server sent more than the ${size} bytes the file has`);
    }
  } finally {
    await handle.close();
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
  let url: { url: string; headers: Record<string, string> } | undefined;
  for (let attempt = 1; have < described.size; attempt++) {
    try {
      url ??= await downloadUrl(client, source);
      have = await fetchRest(partPath, have, described.size, url, (bytes) => progress.add(bytes), options.onBytesWritten);
      if (have < described.size) throw new Error(`the connection ended after ${have} of ${described.size} bytes`);
    } catch (error) {
      if (error instanceof TransferError || isApiError(error) || attempt >= MAX_ATTEMPTS) throw error;
      const status = (error as { status?: number }).status;
      if (status === 401 || status === 403) url = undefined; // expired or refused: ask for a new URL
      if (status === 416) {
        fs.rmSync(partPath, { force: true });
        progress.add(-have);
      }
      have = sizeOf(partPath);
      await sleep(250 * 2 ** attempt);
    }
  }
  const size = sizeOf(partPath);
  if (size !== described.size) throw new TransferError(`${partPath} has ${size} bytes, expected ${described.size}; run the command again to resume`);
  const parts = checkableParts(described);
  if (parts) {
    const bad = await firstBadPart(partPath, parts);
    if (bad !== undefined) {
      fs.rmSync(partPath, { force: true });
      throw new TransferError(`the md5 of part ${bad} of ${source.id} does not match; the partial download was removed, run the command again`);
    }
  }
  fs.renameSync(partPath, out);
  progress.done();
}
