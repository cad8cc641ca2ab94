import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isApiError, PanxApiError } from '@panx/client';
import { loadContract } from '../contract.js';
import { CliError } from '../errors.js';
import { configDir, type Context } from '../session.js';
import { allOrFirstError, type Limiter, sleep } from './limiter.js';
import type { FileProgress, Progress } from './progress.js';

/**
 * Multipart upload as `dx upload` does it (file/new → upload per part → PUT → close), made
 * resumable: the file ID and part size are kept in a state file named after the local file and
 * the destination, so running the same command again after an interruption uploads only the parts
 * the server does not have yet.
 */

const MiB = 1024 * 1024;
const MAX_ATTEMPTS = 5;
/** Chunks the part body is streamed in, so that the progress bar moves during a part. */
const STREAM_CHUNK = 256 * 1024;

export interface UploadParameters {
  minimumPartSize: number;
  maximumPartSize: number;
  maximumNumParts: number;
  maximumFileSize: number;
  emptyLastPartAllowed: boolean;
}

export interface UploadTarget {
  project: string;
  folder: string;
  name: string;
  /** Create the folder (and its parents) when missing. */
  parents: boolean;
}

export interface UploadSettings {
  partSizeBytes: number;
  wait: boolean;
  tags: string[];
  properties: Record<string, string>;
}

/** What one upload run shares between its files: the part slots, the bars and the project limits. */
export interface UploadShared {
  parts: Limiter;
  progress: Progress;
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

/** The part size to use: the request clamped to the project's limits, grown when the file would need too many parts. */
export function choosePartSize(size: number, requested: number, limits: UploadParameters): number {
  if (size > limits.maximumFileSize) throw new CliError(`the file is ${size} bytes, over the maximum of ${limits.maximumFileSize}`);
  let partSize = Math.min(Math.max(Math.round(requested), limits.minimumPartSize), limits.maximumPartSize);
  if (Math.ceil(size / partSize) > limits.maximumNumParts) partSize = Math.ceil(size / limits.maximumNumParts);
  if (partSize > limits.maximumPartSize)
    throw new CliError(`the file is too large for ${limits.maximumNumParts} parts of at most ${limits.maximumPartSize} bytes`);
  return partSize;
}

export function planParts(size: number, partSize: number): PartSpec[] {
  if (size === 0) return [{ index: 1, offset: 0, length: 0 }];
  const parts: PartSpec[] = [];
  for (let offset = 0, index = 1; offset < size; offset += partSize, index++) parts.push({ index, offset, length: Math.min(partSize, size - offset) });
  return parts;
}

function stateFile(absolutePath: string, size: number, mtimeMs: number, target: UploadTarget): string {
  const key = createHash('sha256')
    .update(JSON.stringify([absolutePath, size, mtimeMs, target.project, target.folder, target.name]))
    .digest('hex');
  return path.join(configDir(), 'uploads', `${key}.json`);
}

function readState(file: string): UploadState | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(file, 'utf8')) as UploadState;
    return state.version === 1 && typeof state.fileId === 'string' && state.partSize > 0 ? state : undefined;
  } catch {
    return undefined;
  }
}

function writeState(file: string, state: UploadState): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
}

function removeState(file: string): void {
  fs.rmSync(file, { force: true });
}

async function uploadParameters(ctx: Context, shared: UploadShared, project: string): Promise<UploadParameters> {
  let cached = shared.parameters.get(project);
  if (!cached) {
    cached = Promise.all([loadContract(), ctx.client.call('project-xxxx/describe', project, { fields: { fileUploadParameters: true } })]).then(
      ([{ UPLOAD_LIMITS }, described]) => ({
        ...UPLOAD_LIMITS,
        ...((described as { fileUploadParameters?: Partial<UploadParameters> }).fileUploadParameters ?? {}),
      }),
    );
    shared.parameters.set(project, cached);
  }
  return cached;
}

/** Parts uploaded by this process; the test hook PANX_TEST_ABORT_AFTER_PARTS kills it after that many. */
let partsUploaded = 0;

function afterPartUploaded(): void {
  partsUploaded++;
  const limit = Number(process.env.PANX_TEST_ABORT_AFTER_PARTS);
  if (limit > 0 && partsUploaded >= limit) {
    process.stderr.write(`px: PANX_TEST_ABORT_AFTER_PARTS=${limit}: killing the upload\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

function bodyOf(data: Buffer, onChunk: (bytes: number) => void): ReadableStream<Uint8Array> | Buffer {
  if (!data.length) return data;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= data.length) {
        controller.close();
        return;
      }
      const end = Math.min(offset + STREAM_CHUNK, data.length);
      controller.enqueue(data.subarray(offset, end));
      onChunk(end - offset);
      offset = end;
    },
  });
}

/** Errors of the API call that another attempt will not fix. */
function isPermanent(error: unknown): boolean {
  return (
    error instanceof PanxApiError &&
    ['InvalidState', 'PermissionDenied', 'ResourceNotFound', 'InvalidInput', 'InvalidAuthentication', 'SpendingLimitExceeded'].includes(error.type)
  );
}

async function putPart(ctx: Context, fileId: string, part: PartSpec, data: Buffer, md5: string, progress: FileProgress): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let sent = 0;
    try {
      const { url, headers } = await ctx.client.call('file-xxxx/upload', fileId, { index: part.index, md5, size: part.length });
      // Exactly the headers the server gave, and no Authorization: the signed URL is the credential.
      const response = await fetch(url, {
        method: 'PUT',
        headers,
        body: bodyOf(data, (bytes) => {
          sent += bytes;
          progress.add(bytes);
        }),
        duplex: 'half',
      });
      const text = await response.text();
      if (!response.ok) {
        let message = text.slice(0, 300);
        try {
          const envelope = JSON.parse(text) as { error?: { type?: string; message?: string } };
          if (envelope.error) message = `${envelope.error.type}: ${envelope.error.message}`;
        } catch {
          // not JSON: keep the raw text
        }
        throw new Error(`PUT of part ${part.index} failed with HTTP ${response.status}: ${message}`);
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

async function sendPart(
  ctx: Context,
  fileId: string,
  handle: fs.promises.FileHandle,
  part: PartSpec,
  remote: RemoteParts,
  progress: FileProgress,
): Promise<'skipped' | 'sent'> {
  const data = Buffer.alloc(part.length);
  let read = 0;
  while (read < part.length) {
    const { bytesRead } = await handle.read(data, read, part.length - read, part.offset + read);
    if (bytesRead === 0) throw new CliError('the file got shorter while it was uploading');
    read += bytesRead;
  }
  const md5 = createHash('md5').update(data).digest('hex');
  const existing = remote[String(part.index)];
  if (existing?.state === 'complete' && existing.size === part.length && existing.md5 === md5) {
    progress.add(part.length);
    return 'skipped';
  }
  await putPart(ctx, fileId, part, data, md5, progress);
  afterPartUploaded();
  return 'sent';
}

/** Polls until the file is closed (closing assembles the parts on the server). */
export async function waitUntilClosed(ctx: Context, id: string, project: string, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    const { state } = await ctx.client.call('file-xxxx/describe', id, { project, fields: { state: true } });
    if (state === 'closed') return;
    if (state !== 'closing' && state !== 'open') throw new CliError(`${id} is ${state}, not closed`);
    if (Date.now() > deadline) throw new CliError(`${id} is still ${state} after ${Math.round(timeoutMs / 1000)} s`);
    await sleep(delay);
  }
}

/** Uploads (or finishes uploading) one local file and closes it. */
export async function uploadFile(ctx: Context, localPath: string, target: UploadTarget, settings: UploadSettings, shared: UploadShared): Promise<UploadResult> {
  const absolute = path.resolve(localPath);
  const stat = await fs.promises.stat(absolute);
  const stateFilePath = stateFile(absolute, stat.size, stat.mtimeMs, target);
  const saved = readState(stateFilePath);
  let fileId: string | undefined;
  let partSize = 0;
  let remote: RemoteParts = {};

  if (saved) {
    try {
      const described = await ctx.client.call('file-xxxx/describe', saved.fileId, { project: target.project, fields: { parts: true, state: true } });
      if (described.state === 'open') {
        fileId = saved.fileId;
        partSize = saved.partSize;
        remote = (described.parts as RemoteParts | undefined) ?? {};
      } else if (described.state === 'closing' || described.state === 'closed') {
        // The previous run closed the file but stopped before forgetting it.
        if (settings.wait) await waitUntilClosed(ctx, saved.fileId, target.project);
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
    partSize = choosePartSize(stat.size, settings.partSizeBytes, await uploadParameters(ctx, shared, target.project));
    ({ id: fileId } = await ctx.client.call('file/new', {
      project: target.project,
      folder: target.folder,
      name: target.name,
      parents: target.parents,
      ...(settings.tags.length ? { tags: settings.tags } : {}),
      ...(Object.keys(settings.properties).length ? { properties: settings.properties } : {}),
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
    outcomes = await allOrFirstError(parts.map((part) => shared.parts.run(() => sendPart(ctx, id, handle, part, remote, progress))));
  } finally {
    await handle.close();
  }
  await ctx.client.call('file-xxxx/close', fileId, {});
  if (settings.wait) await waitUntilClosed(ctx, fileId, target.project);
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
