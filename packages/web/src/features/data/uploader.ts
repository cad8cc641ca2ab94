/**
 * The browser uploader: files are cut into parts (upload-planner.ts), each part hashed (md5.ts), given a
 * signed URL by file-xxxx/upload and PUT with XMLHttpRequest (for byte progress); up to four parts fly
 * at once across all files. Files are created hidden and shown only once every part is in, then closed,
 * so an interrupted upload never leaves a visible half file. Pause aborts the parts in flight (they are
 * sent again on resume); cancel also removes the open file. A record per unfinished file in local
 * storage lets the same file, dropped again after a reload, continue where it stopped: the parts the
 * server already holds are checked by md5 and skipped.
 */
import { api } from '../../lib/api';
import { createStore, type Store } from '../../lib/store';
import { md5Of } from './md5';
import {
  type DroppedFile,
  type PartPlan,
  type PlannedFile,
  parseResumeRecords,
  partsToResume,
  planUpload,
  RESUME_STORAGE_KEY,
  type RemotePart,
  type ResumeRecord,
  resumeKey,
} from './upload-planner';

export type UploadStatus = 'queued' | 'preparing' | 'uploading' | 'paused' | 'closing' | 'done' | 'failed' | 'cancelled';

export interface UploadItem {
  key: string;
  project: string;
  folder: string;
  name: string;
  size: number;
  sent: number;
  status: UploadStatus;
  fileId?: string;
  error?: string;
  resumed: boolean;
}

export interface UploadSource extends File {
  /** Set by the drop handler for files inside dropped folders. */
  panxRelativePath?: string;
}

const PARALLEL_PARTS = 4;

interface Job {
  item: UploadItem;
  file: File;
  parts: PartPlan[];
  /** Bytes confirmed per part index. */
  doneParts: Map<number, number>;
  /** Bytes in flight per part index. */
  inFlight: Map<number, number>;
  requests: Set<XMLHttpRequest>;
  resolveWhenIdle?: () => void;
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

export function readResumeRecords(now = Date.now()): Record<string, ResumeRecord> {
  return parseResumeRecords(storage()?.getItem(RESUME_STORAGE_KEY) ?? null, now);
}

function writeResumeRecords(records: Record<string, ResumeRecord>) {
  try {
    storage()?.setItem(RESUME_STORAGE_KEY, JSON.stringify(records));
  } catch {
    // storage full or disabled: uploads still work, they just cannot resume after a reload
  }
}

export class Uploader {
  readonly items: Store<UploadItem[]> = createStore<UploadItem[]>([]);
  /** Unfinished uploads of earlier page loads (drop the same file again to resume). */
  readonly interrupted: Store<ResumeRecord[]> = createStore<ResumeRecord[]>([]);
  private jobs = new Map<string, Job>();
  private queue: { job: Job; part: PartPlan }[] = [];
  private active = 0;
  private listeners = new Set<(item: UploadItem) => void>();

  constructor() {
    this.interrupted.set(Object.values(readResumeRecords()));
  }

  /** Called with each file that finishes (to refresh listings). */
  onFinished(listener: (item: UploadItem) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  add(planned: readonly PlannedFile<UploadSource & DroppedFile>[], project: string): void {
    for (const { file, folder, name } of planned) {
      const key = resumeKey({ project, folder, name, size: file.size, lastModified: file.lastModified });
      const existing = this.jobs.get(key);
      if (existing && !['done', 'failed', 'cancelled'].includes(existing.item.status)) continue;
      const item: UploadItem = { key, project, folder, name, size: file.size, sent: 0, status: 'queued', resumed: false };
      this.interrupted.set(this.interrupted.get().filter((record) => resumeKey(record) !== key));
      const job: Job = { item, file, parts: [], doneParts: new Map(), inFlight: new Map(), requests: new Set() };
      this.jobs.set(key, job);
      this.publish(job);
      void this.start(job);
    }
  }

  pause(key: string): void {
    const job = this.jobs.get(key);
    if (!job || !['uploading', 'queued', 'preparing'].includes(job.item.status)) return;
    this.update(job, { status: 'paused' });
    this.abortRequests(job);
  }

  resume(key: string): void {
    const job = this.jobs.get(key);
    if (!job || (job.item.status !== 'paused' && job.item.status !== 'failed')) return;
    if (!job.item.fileId) {
      this.update(job, { status: 'queued', error: undefined });
      void this.start(job);
      return;
    }
    this.update(job, { status: 'uploading', error: undefined });
    this.enqueueRemaining(job);
  }

  async cancel(key: string): Promise<void> {
    const job = this.jobs.get(key);
    if (!job || job.item.status === 'done' || job.item.status === 'cancelled') return;
    this.update(job, { status: 'cancelled' });
    this.abortRequests(job);
    this.forgetRecord(key);
    if (job.item.fileId) {
      try {
        await api().call('project-xxxx/removeObjects', job.item.project, { objects: [job.item.fileId], force: true });
      } catch {
        // the hidden open file is abandoned by the server after a day
      }
    }
  }

  /** Removes finished, failed and cancelled items from the list. */
  clearFinished(): void {
    for (const [key, job] of this.jobs) if (['done', 'cancelled'].includes(job.item.status)) this.jobs.delete(key);
    this.items.set([...this.jobs.values()].map((job) => job.item));
  }

  forgetInterrupted(key: string): void {
    this.forgetRecord(key);
  }

  private async start(job: Job): Promise<void> {
    const { item, file } = job;
    this.update(job, { status: 'preparing' });
    try {
      const plan = planUpload(file.size);
      job.parts = plan.parts;
      const record = readResumeRecords()[item.key];
      let fileId: string | undefined;
      if (record && record.partSize === plan.partSize) fileId = await this.tryResume(job, record);
      if (!fileId) {
        const created = await api().call('file/new', { project: item.project, folder: item.folder, name: item.name, parents: true, hidden: true });
        fileId = created.id;
        this.saveRecord({
          fileId,
          project: item.project,
          folder: item.folder,
          name: item.name,
          size: file.size,
          lastModified: file.lastModified,
          partSize: plan.partSize,
          started: Date.now(),
        });
      }
      if (this.statusOf(job) !== 'preparing') return; // paused or cancelled meanwhile
      this.update(job, { fileId, status: 'uploading' });
      this.enqueueRemaining(job);
    } catch (error) {
      this.fail(job, error);
    }
  }

  /** Checks the server's copy of an unfinished upload; returns its id when it can go on. */
  private async tryResume(job: Job, record: ResumeRecord): Promise<string | undefined> {
    try {
      const described = (await api().call('file-xxxx/describe', record.fileId, { project: record.project, parts: true })) as Record<string, unknown>;
      if (described.state !== 'open') return undefined;
      const remote = (typeof described.parts === 'object' && described.parts !== null ? described.parts : {}) as Record<string, RemotePart>;
      const { verify } = partsToResume({ partSize: record.partSize, parts: job.parts }, remote);
      for (const part of verify) {
        const md5 = await md5Of(job.file.slice(part.start, part.end));
        if (md5 === remote[String(part.index)]?.md5) job.doneParts.set(part.index, part.end - part.start);
      }
      this.update(job, { resumed: true, sent: this.sentOf(job) });
      return record.fileId;
    } catch {
      return undefined;
    }
  }

  private enqueueRemaining(job: Job): void {
    for (const part of job.parts) {
      if (job.doneParts.has(part.index) || job.inFlight.has(part.index)) continue;
      if (this.queue.some((entry) => entry.job === job && entry.part.index === part.index)) continue;
      this.queue.push({ job, part });
    }
    this.pump();
    void this.maybeFinish(job);
  }

  private pump(): void {
    while (this.active < PARALLEL_PARTS && this.queue.length) {
      const next = this.queue.shift();
      if (!next) break;
      if (this.statusOf(next.job) !== 'uploading') continue;
      this.active++;
      void this.sendPart(next.job, next.part).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private async sendPart(job: Job, part: PartPlan): Promise<void> {
    const { item } = job;
    const blob = job.file.slice(part.start, part.end);
    job.inFlight.set(part.index, 0);
    try {
      const md5 = await md5Of(blob);
      if (this.statusOf(job) !== 'uploading') return;
      const target = await api().call('file-xxxx/upload', item.fileId ?? '', { index: part.index, size: blob.size, md5 });
      if (this.statusOf(job) !== 'uploading') return;
      await this.put(job, part, target.url, target.headers, blob);
      job.doneParts.set(part.index, blob.size);
    } catch (error) {
      if (this.statusOf(job) === 'uploading') this.fail(job, error);
    } finally {
      job.inFlight.delete(part.index);
      this.update(job, { sent: this.sentOf(job) });
    }
    await this.maybeFinish(job);
  }

  private put(job: Job, part: PartPlan, url: string, headers: Record<string, string>, blob: Blob): Promise<void> {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      job.requests.add(request);
      request.open('PUT', url);
      for (const [name, value] of Object.entries(headers)) {
        if (!/^(content-length|host)$/i.test(name)) request.setRequestHeader(name, value);
      }
      request.upload.onprogress = (event) => {
        job.inFlight.set(part.index, event.loaded);
        this.update(job, { sent: this.sentOf(job) });
      };
      request.onload = () => {
        job.requests.delete(request);
        if (request.status >= 200 && request.status < 300) resolve();
        else reject(new Error(describePutError(request)));
      };
      request.onerror = () => {
        job.requests.delete(request);
        reject(new Error('The upload was interrupted (network error)'));
      };
      request.onabort = () => {
        job.requests.delete(request);
        reject(new Error('aborted'));
      };
      request.send(blob);
    });
  }

  private async maybeFinish(job: Job): Promise<void> {
    if (this.statusOf(job) !== 'uploading') return;
    if (job.parts.length === 0 || job.parts.some((part) => !job.doneParts.has(part.index))) return;
    const { item } = job;
    this.update(job, { status: 'closing', sent: item.size });
    try {
      // Shown while still open (UPLOAD may change open objects), then closed.
      await api().call('file-xxxx/setVisibility', item.fileId ?? '', { project: item.project, hidden: false });
      const closed = await api().call('file-xxxx/close', item.fileId ?? '', {});
      this.forgetRecord(item.key);
      if (closed.state !== 'closed') await this.waitUntilClosed(item);
      this.update(job, { status: 'done' });
      for (const listener of this.listeners) listener(job.item);
    } catch (error) {
      this.fail(job, error);
    }
  }

  /** Closing assembles the parts; the listing is refreshed once the file is closed (or after a while anyway). */
  private async waitUntilClosed(item: UploadItem): Promise<void> {
    for (let delay = 100, waited = 0; waited < 60_000; waited += delay, delay = Math.min(delay * 2, 2000)) {
      try {
        const { state } = await api().call('file-xxxx/describe', item.fileId ?? '', { project: item.project, fields: { state: true } });
        if (state !== 'closing' && state !== 'open') return;
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  private fail(job: Job, error: unknown) {
    this.abortRequests(job);
    const message = error instanceof Error ? error.message : String(error);
    this.update(job, { status: 'failed', error: message });
  }

  private abortRequests(job: Job) {
    this.queue = this.queue.filter((entry) => entry.job !== job);
    for (const request of [...job.requests]) request.abort();
    job.inFlight.clear();
    this.update(job, { sent: this.sentOf(job) });
  }

  private sentOf(job: Job): number {
    let sent = 0;
    for (const bytes of job.doneParts.values()) sent += bytes;
    for (const bytes of job.inFlight.values()) sent += bytes;
    return Math.min(sent, job.item.size);
  }

  private statusOf(job: Job): UploadStatus {
    return job.item.status;
  }

  private update(job: Job, change: Partial<UploadItem>) {
    job.item = { ...job.item, ...change };
    this.publish(job);
  }

  private publish(job: Job) {
    this.jobs.set(job.item.key, job);
    this.items.set([...this.jobs.values()].map((entry) => entry.item));
  }

  private saveRecord(record: ResumeRecord) {
    const records = readResumeRecords();
    records[resumeKey(record)] = record;
    writeResumeRecords(records);
  }

  private forgetRecord(key: string) {
    const records = readResumeRecords();
    delete records[key];
    writeResumeRecords(records);
    this.interrupted.set(this.interrupted.get().filter((record) => resumeKey(record) !== key));
  }
}

function describePutError(request: XMLHttpRequest): string {
  try {
    const body = JSON.parse(request.responseText) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {
    // not JSON
  }
  return `The part upload failed (HTTP ${request.status})`;
}

/** The app's one uploader: uploads go on while the user moves between pages. */
let shared: Uploader | undefined;
export function uploader(): Uploader {
  shared ??= new Uploader();
  return shared;
}
