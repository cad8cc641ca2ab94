import type { Readable } from 'node:stream';
import { ABANDON_OPEN_FILES_AFTER_MS, DOWNLOAD_URL_DURATION_S, type RouteParsedInput, UPLOAD_LIMITS } from '@panx/contract';
import type { Logger } from 'pino';
import type { Stores } from '../../db/stores.js';
import { invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import type { UrlSigner } from '../../lib/signing.js';
import { BlobIntegrityError, type BlobReader, type BlobStore, type ByteRange, type StoredPart, UploadGoneError } from '../../storage/blob-store.js';
import type { Caller } from '../auth/caller.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';
import type { ObjectRow } from '../data-objects/objects.repository.js';
import { sniffMediaType } from './media-type.js';
import { projectSettings } from '../projects/project-describe.js';

/** Upload URLs stay valid this long; clients fetch a fresh one for every attempt anyway. */
const UPLOAD_URL_DURATION_S = 3600;

/** A stored media type, when it is safe to send as Content-Type; the generic type otherwise. */
export function contentTypeFor(media: string | null | undefined): string {
  return media && /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\r\n]*"|[\w.+-]+))*$/.test(media) ? media : 'application/octet-stream';
}

export function blobKeyOf(fileId: string): string {
  return `files/${fileId}`;
}

/**
 * File bytes: signed part uploads, close (assembling the parts), signed downloads with Range, and the
 * background work that keeps storage honest: finishing closes interrupted by a crash, abandoning
 * uploads left open for a day, and deleting blobs of removed files.
 */
/** How long `file-xxxx/close` waits for the close to finish before answering (the file is then `closing`). */
const CLOSE_WAIT_MS = 100;

export class FilesService {
  /** Closes being finished by this process, so that a close and the recovery sweep never run one twice at once. */
  private closing = new Map<string, Promise<void>>();
  private gcRunning: Promise<void> | undefined;
  private gcAgain = false;
  /** Closes interrupted by a crash, being finished one at a time. */
  private resuming: Promise<void> | undefined;

  constructor(
    private readonly stores: Stores,
    private readonly objects: DataObjectsService,
    private readonly blobs: BlobStore,
    private readonly signer: UrlSigner,
    private readonly publicUrl: string,
    private readonly log: Logger,
  ) {}

  async create(caller: Caller, input: RouteParsedInput<'file/new'>, now: number): Promise<{ id: string }> {
    // The upload is started before the object is written, and recorded with it: a file is never open without one.
    const started: { key?: string; uploadId?: string } = {};
    const prepare = async (id: string) => {
      started.key = blobKeyOf(id);
      started.uploadId = await this.blobs.startUpload(started.key);
      return { blobKey: started.key, uploadId: started.uploadId };
    };
    try {
      return await this.objects.create(caller, input, { cls: 'file', state: 'open', media: input.media ?? '', prepare }, now);
    } catch (error) {
      if (started.key && started.uploadId) await this.blobs.abortUpload(started.key, started.uploadId).catch(() => undefined);
      throw error;
    }
  }

  async uploadUrl(caller: Caller, id: string, input: RouteParsedInput<'file-xxxx/upload'>, now: number) {
    const resolved = await this.objects.resolve(caller, id, undefined, 'file');
    if (resolved.access.level === 'VIEW') throw permissionDenied(`Uploading to ${id} requires UPLOAD permission in ${resolved.row.projectId}`);
    if (resolved.row.state !== 'open') throw invalidState(`${id} is ${resolved.row.state}: parts can only be uploaded while it is open`);
    if (input.size !== undefined && input.size > UPLOAD_LIMITS.maximumPartSize) {
      throw invalidInput(`Part size ${input.size} exceeds the maximum of ${UPLOAD_LIMITS.maximumPartSize} bytes`);
    }
    const index = input.index ?? 1;
    const expires = now + UPLOAD_URL_DURATION_S * 1000;
    const size = input.size ?? '';
    const md5 = input.md5 ?? '';
    const sig = this.signer.sign(['upload', id, index, size, md5, expires]);
    const query = new URLSearchParams({ size: String(size), md5, expires: String(expires), sig });
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
    if (input.size !== undefined) headers['content-length'] = String(input.size);
    if (input.md5) headers['content-md5'] = Buffer.from(input.md5, 'hex').toString('base64');
    return { url: `${this.publicUrl}/upload/${id}/${index}?${query}`, expires, headers };
  }

  /** The PUT of a signed upload URL: checks the signature, stores the part, records it complete at once. */
  async receivePart(params: { id: string; index: number; query: Record<string, string | undefined>; body: Readable; contentLength?: number }, now: number) {
    const { id, index, query } = params;
    const expires = Number(query.expires);
    const size = query.size ?? '';
    const md5 = query.md5 ?? '';
    if (!query.sig || !this.signer.verify(['upload', id, index, size, md5, expires], query.sig)) {
      throw permissionDenied('The upload URL signature is not valid');
    }
    if (!(expires > now)) throw permissionDenied('The upload URL has expired; ask /file-xxxx/upload for a new one');
    const declaredSize = size === '' ? undefined : Number(size);
    if (params.contentLength !== undefined && params.contentLength > UPLOAD_LIMITS.maximumPartSize) {
      throw invalidInput(`Part size ${params.contentLength} exceeds the maximum of ${UPLOAD_LIMITS.maximumPartSize} bytes`);
    }
    if (declaredSize !== undefined && params.contentLength !== undefined && params.contentLength !== declaredSize) {
      throw invalidInput(`Part ${index} is sent with ${params.contentLength} bytes but ${declaredSize} were declared`);
    }
    const object = await this.stores.objects.findObject(id);
    if (!object) throw notFound(`The file ${id} could not be found`);
    if (object.state !== 'open' || !object.uploadId || !object.blobKey) {
      throw invalidState(`${id} is ${object.state}: parts can only be uploaded while it is open`);
    }
    let stored: StoredPart;
    try {
      stored = await this.blobs.putPart(object.blobKey, object.uploadId, index, params.body, { size: declaredSize, md5: md5 || undefined });
    } catch (error) {
      if (error instanceof BlobIntegrityError) throw invalidInput(error.message);
      if (error instanceof UploadGoneError) throw await this.notOpenAnyMore(id);
      // Closed or removed while the part was on its way: that is the answer, whatever the store said.
      const current = await this.stores.objects.findObject(id);
      if (current?.state !== 'open') throw await this.notOpenAnyMore(id);
      throw error;
    }
    // Recorded only while the file is still open: a close (or removal) that won the race leaves this part out.
    await this.stores.transaction(async (tx) => {
      if (!(await tx.objects.updateObjectInState(id, 'open', { stateChanged: now }))) throw await this.notOpenAnyMore(id, tx);
      await tx.objects.upsertPart({ fileId: id, partIndex: index, size: stored.size, md5: stored.md5, partRef: stored.partRef, created: now });
    });
    return { md5: stored.md5, size: stored.size };
  }

  private async notOpenAnyMore(id: string, stores: Stores = this.stores): Promise<Error> {
    const current = await stores.objects.findObject(id);
    if (!current) return notFound(`The file ${id} was removed while the part was uploading`);
    return invalidState(`${id} is ${current.state}: parts can only be uploaded while it is open`);
  }

  async close(caller: Caller, id: string, now: number): Promise<{ id: string; state?: 'open' | 'closing' | 'closed' }> {
    const resolved = await this.objects.resolve(caller, id, undefined, 'file');
    if (resolved.access.level === 'VIEW') throw permissionDenied(`Closing ${id} requires UPLOAD permission in ${resolved.row.projectId}`);
    if (resolved.row.state !== 'open') return { id, state: resolved.row.state === 'closed' ? 'closed' : 'closing' };
    // One transaction: the parts checked are exactly the parts assembled (a part upload that commits
    // first is checked; one that commits later finds the file closing and is refused).
    const started = await this.stores.transaction(async (tx) => {
      if (!(await tx.objects.updateObjectInState(id, 'open', { state: 'closing', stateChanged: now }))) return false;
      const parts = await tx.objects.listParts(id);
      const total = parts.reduce((sum, part) => sum + part.size, 0);
      parts.forEach((part, i) => {
        if (i < parts.length - 1 && part.size < UPLOAD_LIMITS.minimumPartSize) {
          throw invalidState(
            `Part ${part.partIndex} of ${id} has ${part.size} bytes: every part but the last must be at least ${UPLOAD_LIMITS.minimumPartSize} bytes`,
          );
        }
      });
      if (total > UPLOAD_LIMITS.maximumFileSize) throw invalidState(`${id} would be ${total} bytes, over the maximum of ${UPLOAD_LIMITS.maximumFileSize}`);
      return true;
    });
    if (started) {
      // Closing is quick for most files (the local store renames a folder; S3 completes a multipart
      // upload): waiting for it briefly answers with the file already closed, which spares clients
      // a poll and its delay (job helpers wait on every output). A slower close goes on in the background.
      const closing = this.finishClosing(id).then(() => true);
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([closing, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
      // The answer says whether the file is closed already (an assembly that failed leaves it closing).
      if (finished && (await this.stores.objects.findObject(id))?.state === 'closed') return { id, state: 'closed' };
    }
    return { id, state: 'closing' };
  }

  /**
   * Assembles the parts and marks the file closed. Idempotent: a crash at any point leaves the file
   * `closing`, and the start-up recovery finishes it. Resolves when this attempt is over.
   */
  finishClosing(id: string): Promise<void> {
    const running = this.closing.get(id);
    if (running) return running;
    const attempt = this.assemble(id).finally(() => this.closing.delete(id));
    this.closing.set(id, attempt);
    return attempt;
  }

  private async assemble(id: string): Promise<void> {
    try {
      const object = await this.stores.objects.findObject(id);
      if (object?.state !== 'closing') return;
      if (!object.uploadId || !object.blobKey) throw new Error(`${id} is closing without an upload`);
      const key = object.blobKey;
      const parts = await this.stores.objects.listParts(id);
      await this.blobs.completeUpload(
        key,
        object.uploadId,
        parts.map((part) => ({ index: part.partIndex, partRef: part.partRef, size: part.size })),
      );
      const size = parts.reduce((sum, part) => sum + part.size, 0);
      const media = object.media || (await this.sniffMedia(key, size));
      const closed = await this.stores.objects.updateObjectInState(id, 'closing', { state: 'closed', size, media, uploadId: null, stateChanged: Date.now() });
      if (!closed && !(await this.stores.objects.findObject(id))) {
        // Removed while its parts were being assembled: the blob just made must not outlive it.
        await this.stores.objects.queueBlobDeletion(key, null, Date.now());
        await this.collectGarbage();
      }
    } catch (error) {
      if (!(await this.stores.objects.findObject(id).catch(() => undefined))) return; // removed meanwhile: nothing left to close
      this.log.error({ err: error, fileId: id }, 'closing a file failed; it stays closing and is retried by the recovery sweep');
    }
  }

  /** Reads the first bytes of an assembled blob to name its media type; never fails a close over it. */
  private async sniffMedia(key: string, size: number): Promise<string> {
    if (size === 0) return sniffMediaType(Buffer.alloc(0));
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await this.blobs.read(key, { start: 0, end: Math.min(size, 512) - 1 })) chunks.push(chunk as Buffer);
      return sniffMediaType(Buffer.concat(chunks));
    } catch {
      return 'application/octet-stream';
    }
  }

  async downloadUrl(caller: Caller, id: string, input: RouteParsedInput<'file-xxxx/download'>, now: number) {
    const { row, access } = await this.objects.resolve(caller, id, input.project, 'file');
    if (row.state !== 'closed' || !row.blobKey) throw invalidState(`${id} is ${row.state}: only closed files can be downloaded`);
    if (access.project.class === 'project' && projectSettings(access.project).downloadRestricted) {
      throw permissionDenied(`${access.project.id} restricts downloads`);
    }
    const duration = input.duration ?? DOWNLOAD_URL_DURATION_S;
    const expires = now + duration * 1000;
    const filename = input.filename ?? row.name;
    const direct = await this.blobs.directDownloadUrl(row.blobKey, duration, filename, contentTypeFor(row.media));
    if (direct) return { url: direct, expires, headers: {} };
    const sig = this.signer.sign(['download', id, row.projectId, expires]);
    const query = new URLSearchParams({ project: row.projectId, expires: String(expires), sig });
    return { url: `${this.publicUrl}/download/${id}/${encodeURIComponent(filename)}?${query}`, expires, headers: {} };
  }

  /** The GET of a signed download URL. */
  async openDownload(
    params: { id: string; query: Record<string, string | undefined> },
    now: number,
  ): Promise<{
    object: ObjectRow;
    size: number;
    read: (range?: ByteRange) => Promise<Readable>;
    /** Where the store can read into the caller's buffers (see BlobStore.openReader). */
    openReader?: (range?: ByteRange) => Promise<BlobReader>;
  }> {
    const { id, query } = params;
    const expires = Number(query.expires);
    if (!query.sig || !query.project || !this.signer.verify(['download', id, query.project, expires], query.sig)) {
      throw permissionDenied('The download URL signature is not valid');
    }
    if (!(expires > now)) throw permissionDenied('The download URL has expired; ask /file-xxxx/download for a new one');
    const copy = await this.stores.objects.findInContainer(query.project, id);
    const object = await this.stores.objects.findObject(id);
    if (!copy || !object) throw notFound(`The file ${id} no longer exists`);
    if (object.state !== 'closed' || !object.blobKey) throw invalidState(`${id} is ${object.state}`);
    const key = object.blobKey;
    const blobs = this.blobs;
    return {
      object,
      size: object.size ?? 0,
      read: (range) => blobs.read(key, range),
      ...(blobs.openReader ? { openReader: (range?: ByteRange) => (blobs.openReader as NonNullable<BlobStore['openReader']>).call(blobs, key, range) } : {}),
    };
  }

  /**
   * The recovery sweep (at start-up, then periodically): removes uploads left open too long, and
   * finishes closes interrupted by a crash and pending blob deletions in the background (one close at a
   * time), so that a large interrupted close does not hold up the start. `drain()` waits for that work.
   */
  /**
   * Finishes files left closing and abandons day-old open uploads. At start-up every closing file is
   * an orphan (`closingOlderThanMs` 0); the periodic sweep leaves alone closes that started in the
   * last minute, which another process of a multi-process server may be finishing right now.
   */
  async recover(now: number, options: { closingOlderThanMs?: number } = {}): Promise<void> {
    const closings = await this.stores.objects.listInState('file', 'closing', now + 1 - (options.closingOlderThanMs ?? 0));
    if (closings.length && !this.resuming) {
      this.resuming = (async () => {
        for (const object of closings) await this.finishClosing(object.id);
      })().finally(() => {
        this.resuming = undefined;
      });
    }
    const threshold = now - ABANDON_OPEN_FILES_AFTER_MS;
    const stale = await this.stores.objects.listInState('file', 'open', threshold);
    let abandoned = 0;
    for (const object of stale) {
      await this.stores.transaction(async (tx) => {
        // Still open and idle? (A part may have arrived since the listing; the row lock orders the two.)
        if (!(await tx.objects.updateObjectInState(object.id, 'open', { state: 'abandoned', stateChanged: now }, { changedBefore: threshold }))) return;
        for (const projectId of await tx.objects.containersOf(object.id)) await tx.objects.removeCopies(projectId, [object.id]);
        await tx.objects.deleteObjects([object.id], now);
        abandoned++;
      });
    }
    if (abandoned) this.log.info({ count: abandoned }, 'abandoned uploads left open for over 24 h');
    void this.collectGarbage();
  }

  /** Resolves once the background work started so far (closes, garbage collection) is done. */
  async drain(): Promise<void> {
    for (;;) {
      const pending = [this.resuming, this.gcRunning, ...this.closing.values()].filter((work) => work !== undefined);
      if (!pending.length) return;
      await Promise.allSettled(pending);
    }
  }

  /** Deletes blobs (and aborts uploads) of objects that no container holds any more. */
  collectGarbage(): Promise<void> {
    if (this.gcRunning) {
      // Deletions queued after the running pass looked: make it look again before it ends.
      this.gcAgain = true;
      return this.gcRunning;
    }
    this.gcRunning = (async () => {
      try {
        do {
          this.gcAgain = false;
          let after = 0;
          for (;;) {
            const batch = await this.stores.objects.listBlobDeletions(100, after);
            if (!batch.length) break;
            for (const entry of batch) {
              after = entry.id;
              try {
                if (entry.uploadOf) await this.blobs.abortUpload(entry.blobKey, entry.uploadOf);
                await this.blobs.delete(entry.blobKey);
                await this.stores.objects.removeBlobDeletion(entry.id);
              } catch (error) {
                this.log.warn({ err: error, blobKey: entry.blobKey }, 'deleting a blob failed; retried by the next sweep');
              }
            }
          }
        } while (this.gcAgain);
      } catch (error) {
        this.log.error({ err: error }, 'blob garbage collection failed; retried later');
      } finally {
        this.gcRunning = undefined;
      }
    })();
    return this.gcRunning;
  }
}
