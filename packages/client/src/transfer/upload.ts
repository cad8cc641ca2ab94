import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { once } from 'node:events';
import type { PanxClient } from '../create-client.js';
import { isApiError, PanxApiError } from '../errors.js';
import { allOrFirstError, type Limiter, sleep } from './limiter.js';
import { md5OfBuffer, PartMd5sAhead, sharedBuffer } from './md5.js';
import { type FileProgress, TransferError, type TransferProgress } from './progress.js';

/**
 * Multipart upload as `dx upload` does it (file/new → upload per part → PUT → close). With a
 * `stateDir` it is resumable: the file ID and part size are kept in a state file named after the
 * local file and the destination, so running the same upload again after an interruption sends
 * only the parts the server does not have yet.
 */

const MiB = 1024 * 1024;
/** Files up to this size are uploaded in one part without asking for the project's upload parameters. */
const ONE_PART_ALWAYS_BYTES = 5 * MiB;
const MAX_ATTEMPTS = 5;
/** Parts from this size are hashed ahead from the file (PartMd5sAhead); smaller ones in place once read. */
const MD5_AHEAD_MIN_BYTES = MiB;
/** Chunks a part is read from the disk and sent in (progress moves by this much). */
const STREAM_CHUNK = 1024 * 1024;

export interface UploadParameters {
  minimumPartSize: number;
  maximumPartSize: number;
  maximumNumParts: number;
  maximumFileSize: number;
  emptyLastPartAllowed: boolean;
}

export interface UploadTarget {
  /** A project or container ID. */
  project: string;
  folder: string;
  name: string;
  /** Create the folder (and its parents) when missing. */
  parents: boolean;
}

export interface UploadSettings {
  partSizeBytes: number;
  /** Wait until the file is closed (not only closing). */
  wait: boolean;
  tags?: string[];
  properties?: Record<string, string>;
  /** Extra fields of file/new (`media`, `hidden`, `types`, `details`). */
  fields?: { media?: string; hidden?: boolean; types?: string[]; details?: unknown };
  /** Where resumable uploads remember their open file; without it every upload starts afresh. */
  stateDir?: string;
  /** Called after each part PUT that succeeded (the CLI's crash tests hook in here). */
  onPartSent?: () => void;
}

/** What one upload run shares between its files: the part slots, the progress and the containers' limits. */
export interface UploadShared {
  parts: Limiter;
  progress: TransferProgress;
  parameters: Map<string, Promise<UploadParameters>>;
}

export interface UploadResult {
  id: string;
  resumed: boolean;
  partsSkipped: number;
  partsSent: number;
}

interface UploadState {
  version: 1;
  fileId: string;
  project: string;
  folder: string;
  name: string;
  path: string;
  size: number;
  mtimeMs: number;
  partSize: number;
  created: number;
}

interface PartSpec {
  index: number;
  offset: number;
  length: number;
}

type RemoteParts = Record<string, { state?: string; size?: number; md5?: string }>;

/** The part size to use: the request clamped to the container's limits, grown when the file would need too many parts. */
export function choosePartSize(size: number, requested: number, limits: UploadParameters): number {
  if (size > limits.maximumFileSize) throw new TransferError(`the file is ${size} bytes, over the maximum of ${limits.maximumFileSize}`);
  let partSize = Math.min(Math.max(Math.round(requested), limits.minimumPartSize), limits.maximumPartSize);
  if (Math.ceil(size / partSize) > limits.maximumNumParts) partSize = Math.ceil(size / limits.maximumNumParts);
  if (partSize > limits.maximumPartSize)
    throw new TransferError(`the file is too large for ${limits.maximumNumParts} parts of at most ${limits.maximumPartSize} bytes`);
  return partSize;
}

export function planParts(size: number, partSize: number): PartSpec[] {
  if (size === 0) return [{ index: 1, offset: 0, length: 0 }];
  const parts: PartSpec[] = [];
  for (let offset = 0, index = 1; offset < size; offset += partSize, index++) parts.push({ index, offset, length: Math.min(partSize, size - offset) });
  return parts;
}

function stateFile(stateDir: string, absolutePath: string, size: number, mtimeMs: number, target: UploadTarget): string {
  const key = createHash('sha256')
    .update(JSON.stringify([absolutePath, size, mtimeMs, target.project, target.folder, target.name]))
    .digest('hex');
  return path.join(stateDir, `${key}.json`);
}

function readState(file: string | undefined): UploadState | undefined {
  if (!file) return undefined;
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as UploadState;
    return state.version === 1 && typeof state.fileId === 'string' && state.partSize > 0 ? state : undefined;
  } catch {
    return undefined;
  }
}

function writeState(file: string | undefined, state: UploadState): void {
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
}

function removeState(file: string | undefined): void {
  if (file) fs.rmSync(file, { force: true });
}

const PARAMETER_KEYS = ['minimumPartSize', 'maximumPartSize', 'maximumNumParts', 'maximumFileSize', 'emptyLastPartAllowed'] as const;

/** The container's `fileUploadParameters`, with the contract's defaults for any the server left out. */
async function uploadParameters(client: PanxClient, shared: UploadShared, project: string): Promise<UploadParameters> {
  let cached = shared.parameters.get(project);
  if (!cached) {
    cached = (async () => {
      const described = (await client.post(project, 'describe', { fields: { fileUploadParameters: true } })) as {
        fileUploadParameters?: Partial<UploadParameters>;
      };
      const given = described.fileUploadParameters ?? {};
      if (PARAMETER_KEYS.every((key) => given[key] !== undefined)) return given as UploadParameters;
      // Loading the contract builds every zod schema: only when the server did not say.
      const { UPLOAD_LIMITS } = await import('@panx/contract');
      return { ...UPLOAD_LIMITS, ...given };
    })();
    shared.parameters.set(project, cached);
  }
  return cached;
}

/** Errors of the API call that another attempt will not fix. */
function isPermanent(error: unknown): boolean {
  return (
    error instanceof TransferError ||
    (error instanceof PanxApiError &&
      ['InvalidState', 'PermissionDenied', 'ResourceNotFound', 'InvalidInput', 'InvalidAuthentication', 'SpendingLimitExceeded'].includes(error.type))
  );
}

async function putPart(client: PanxClient, fileId: string, part: PartSpec, data: Buffer, md5: string, progress: FileProgress): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let sent = 0;
    try {
      const { url, headers } = await client.call('file-xxxx/upload', fileId, { index: part.index, md5, size: part.length });
      // Exactly the headers the server gave, and no Authorization: the signed URL is the credential.
      const { status, text } = await putBytes(url, headers, data, (bytes) => {
        sent += bytes;
        progress.add(bytes);
      });
      if (status < 200 || status >= 300) {
        let message = text.slice(0, 300);
        try {
          const envelope = JSON.parse(text) as { error?: { type?: string; message?: string } };
          if (envelope.error) message = `${envelope.error.type}: ${envelope.error.message}`;
        } catch {
          // not JSON: keep the raw text
        }
        throw new Error(`PUT of part ${part.index} failed with HTTP ${status}: ${message}`);
      }
      if (sent !== part.length) progress.add(part.length - sent);
      return;
    } catch (error) {
      progress.add(-sent);
      if (attempt >= MAX_ATTEMPTS || isPermanent(error)) throw error;
      await sleep(250 * 2 ** attempt);
    }
  }
}

/**
 * PUTs a part with node:http, in slices so that progress moves (fetch with a web stream body cost
 * about a core for 200 MiB/s). Answers the status and the body of the answer, also when the server
 * answered early and stopped reading.
 */
async function putBytes(
  url: string,
  headers: Record<string, string>,
  data: Buffer,
  onChunk: (bytes: number) => void,
): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const request = (target.protocol === 'https:' ? https : http).request(target, { method: 'PUT', headers });
  const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  const sending = (async () => {
    for (let offset = 0; offset < data.length && !request.destroyed; offset += STREAM_CHUNK) {
      const slice = data.subarray(offset, Math.min(offset + STREAM_CHUNK, data.length));
      if (!request.write(slice)) await once(request, 'drain');
      onChunk(slice.length);
    }
    request.end();
  })().then(
    () => undefined,
    (error: Error) => error,
  );
  const response = await answered;
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const status = response.statusCode ?? 0;
  const text = Buffer.concat(chunks).toString('utf8');
  if (status < 200 || status >= 300) {
    // Refused, maybe before the server read the whole body: stop sending it.
    request.destroy();
    return { status, text };
  }
  const failed = await sending;
  if (failed) throw failed;
  return { status, text };
}

/**
 * Part buffers, reused while uploads run (allocating a fresh 16 MiB per part kept the garbage
 * collector busy) and let go when the last one ends (the job helpers' process stays up). They are
 * shared memory, so that an md5 worker hashes them in place.
 */
const spareBuffers: Buffer[] = [];
const SPARE_BUFFERS_KEPT = 8;
let uploadsRunning = 0;

async function readPart(handle: fs.promises.FileHandle, part: PartSpec): Promise<Buffer> {
  const index = spareBuffers.findIndex((buffer) => buffer.length === part.length);
  const data = index >= 0 ? (spareBuffers.splice(index, 1)[0] as Buffer) : sharedBuffer(part.length);
  let read = 0;
  while (read < part.length) {
    const { bytesRead } = await handle.read(data, read, part.length - read, part.offset + read);
    if (bytesRead === 0) throw new TransferError('the file got shorter while it was uploading');
    read += bytesRead;
  }
  return data;
}

async function sendPart(
  client: PanxClient,
  fileId: string,
  handle: fs.promises.FileHandle,
  part: PartSpec,
  md5Ahead: (() => Promise<string>) | undefined,
  remote: RemoteParts,
  progress: FileProgress,
  onPartSent: (() => void) | undefined,
): Promise<'skipped' | 'sent'> {
  // Large parts were hashed ahead, from the file (PartMd5sAhead): a part the server has is not read.
  // (Should that fail, as when the file got shorter, the part is read and hashed here, which says why.)
  const hashedAhead = md5Ahead ? await md5Ahead().catch(() => undefined) : undefined;
  const existing = remote[String(part.index)];
  const onServer = (md5: string) => existing?.state === 'complete' && existing.size === part.length && existing.md5 === md5;
  if (hashedAhead !== undefined && onServer(hashedAhead)) {
    progress.add(part.length);
    return 'skipped';
  }
  const data = await readPart(handle, part);
  try {
    const md5 = hashedAhead ?? (await md5OfBuffer(data));
    if (hashedAhead === undefined && onServer(md5)) {
      progress.add(part.length);
      return 'skipped';
    }
    await putPart(client, fileId, part, data, md5, progress);
  } finally {
    if (spareBuffers.length < SPARE_BUFFERS_KEPT) spareBuffers.push(data);
  }
  onPartSent?.();
  return 'sent';
}

/**
 * Polls until the file is closed (closing assembles the parts on the server). The first look comes
 * soon (a small file closes in milliseconds, and job helpers wait on each of their outputs), then
 * the interval doubles up to 2 s for large files.
 */
export async function waitUntilClosed(client: PanxClient, id: string, project: string | undefined, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 2000)) {
    const { state } = await client.call('file-xxxx/describe', id, { ...(project ? { project } : {}), fields: { state: true } });
    if (state === 'closed') return;
    if (state !== 'closing' && state !== 'open') throw new TransferError(`${id} is ${state}, not closed`);
    if (Date.now() > deadline) throw new TransferError(`${id} is still ${state} after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(delay);
  }
}

/** Uploads (or, with a state dir, finishes uploading) one local file and closes it. */
export async function uploadFile(
  client: PanxClient,
  localPath: string,
  target: UploadTarget,
  settings: UploadSettings,
  shared: UploadShared,
): Promise<UploadResult> {
  uploadsRunning++;
  try {
    return await uploadOneFile(client, localPath, target, settings, shared);
  } finally {
    if (--uploadsRunning === 0) spareBuffers.length = 0;
  }
}

async function uploadOneFile(
  client: PanxClient,
  localPath: string,
  target: UploadTarget,
  settings: UploadSettings,
  shared: UploadShared,
): Promise<UploadResult> {
  const absolute = path.resolve(localPath);
  const stat = await fs.promises.stat(absolute);
  const stateFilePath = settings.stateDir ? stateFile(settings.stateDir, absolute, stat.size, stat.mtimeMs, target) : undefined;
  const saved = readState(stateFilePath);
  let fileId: string | undefined;
  let partSize = 0;
  let remote: RemoteParts = {};

  if (saved) {
    try {
      const described = await client.call('file-xxxx/describe', saved.fileId, { project: target.project, fields: { parts: true, state: true } });
      if (described.state === 'open') {
        fileId = saved.fileId;
        partSize = saved.partSize;
        remote = (described.parts as RemoteParts | undefined) ?? {};
      } else if (described.state === 'closing' || described.state === 'closed') {
        // The previous run closed the file but stopped before forgetting it.
        if (settings.wait) await waitUntilClosed(client, saved.fileId, target.project);
        removeState(stateFilePath);
        shared.progress.file(target.name, stat.size, stat.size).done();
        return { id: saved.fileId, resumed: true, partsSkipped: 0, partsSent: 0 };
      }
    } catch (error) {
      if (!isApiError(error)) throw error;
      // The file was removed or abandoned: start over.
    }
    if (!fileId) removeState(stateFilePath);
  }

  const resumed = Boolean(fileId);
  if (!fileId) {
    // A file of at most 5 MiB goes in one part whatever the project's limits (no platform's minimum
    // part size or maximum file size is smaller), so they are not asked for: one request less per
    // small file, which is most of a job's outputs.
    partSize =
      stat.size <= ONE_PART_ALWAYS_BYTES
        ? Math.max(settings.partSizeBytes, ONE_PART_ALWAYS_BYTES)
        : choosePartSize(stat.size, settings.partSizeBytes, await uploadParameters(client, shared, target.project));
    ({ id: fileId } = await client.call('file/new', {
      project: target.project,
      folder: target.folder,
      name: target.name,
      parents: target.parents,
      ...settings.fields,
      ...(settings.tags?.length ? { tags: settings.tags } : {}),
      ...(settings.properties && Object.keys(settings.properties).length ? { properties: settings.properties } : {}),
      nonce: `${randomBytes(24).toString('hex')}-${Date.now()}`,
    }));
    writeState(stateFilePath, {
      version: 1,
      fileId,
      project: target.project,
      folder: target.folder,
      name: target.name,
      path: absolute,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      partSize,
      created: Date.now(),
    });
  }

  const parts = planParts(stat.size, partSize);
  if (resumed) {
    const have = parts.filter((part) => remote[String(part.index)]?.state === 'complete').length;
    shared.progress.log(`Resuming the upload of ${localPath} into ${fileId}: ${have} of ${parts.length} parts are on the server`);
  }
  const progress = shared.progress.file(target.name, stat.size);
  const handle = await fs.promises.open(absolute, 'r');
  let outcomes: ('skipped' | 'sent')[];
  try {
    const id = fileId;
    const ahead = new PartMd5sAhead(absolute, parts);
    outcomes = await allOrFirstError(
      parts.map((part, position) =>
        shared.parts.run(() =>
          sendPart(client, id, handle, part, part.length >= MD5_AHEAD_MIN_BYTES ? () => ahead.md5(position) : undefined, remote, progress, settings.onPartSent),
        ),
      ),
    );
  } finally {
    await handle.close();
  }
  const closed = await client.call('file-xxxx/close', fileId, {});
  // Panx says when the close finished already; DNAnexus answers only the id, and is then asked.
  if (settings.wait && closed.state !== 'closed') await waitUntilClosed(client, fileId, target.project);
  removeState(stateFilePath);
  progress.done();
  return {
    id: fileId,
    resumed,
    partsSkipped: outcomes.filter((outcome) => outcome === 'skipped').length,
    partsSent: outcomes.filter((outcome) => outcome === 'sent').length,
  };
}

export { MiB };
