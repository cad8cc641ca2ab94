/**
 * How a browser upload is cut into parts (SPEC §9: parts of 5 MiB to 5 GiB, at most 10,000 parts and
 * 5 TiB per file, 10 MiB by default, an empty last part allowed), where each dropped file goes, and the
 * resume records kept in local storage. Pure functions; the uploader (uploader.ts) does the I/O.
 */
import { UPLOAD_LIMITS } from '@panx/contract';
import { ancestorsOf, normalizeFolderPath, ROOT } from './folder-tree';

export interface UploadLimits {
  minimumPartSize: number;
  maximumPartSize: number;
  maximumNumParts: number;
  maximumFileSize: number;
  defaultPartSize: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  minimumPartSize: UPLOAD_LIMITS.minimumPartSize,
  maximumPartSize: UPLOAD_LIMITS.maximumPartSize,
  maximumNumParts: UPLOAD_LIMITS.maximumNumParts,
  maximumFileSize: UPLOAD_LIMITS.maximumFileSize,
  defaultPartSize: UPLOAD_LIMITS.defaultPartSize,
};

export interface PartPlan {
  /** 1-based, as file-xxxx/upload expects. */
  index: number;
  start: number;
  /** Exclusive. */
  end: number;
}

export interface UploadPlan {
  partSize: number;
  parts: PartPlan[];
}

/**
 * The part size is the default (10 MiB) unless the file would need more parts than allowed, in which
 * case it grows just enough; it never leaves the [minimum, maximum] range. Every part but the last has
 * exactly `partSize` bytes; an empty file is one empty part.
 */
const MiB = 1024 * 1024;
const PARTS_FOR_LARGE_FILES = 32;
const LARGE_PART_CAP = 64 * MiB;

export function planUpload(size: number, limits: UploadLimits = DEFAULT_UPLOAD_LIMITS): UploadPlan {
  if (!Number.isSafeInteger(size) || size < 0) throw new Error(`Invalid file size ${size}`);
  if (size > limits.maximumFileSize) {
    throw new Error(`The file is ${size} bytes; files are limited to ${limits.maximumFileSize} bytes`);
  }
  const needed = Math.ceil(size / limits.maximumNumParts);
  // Large files get larger parts (about 32 of them, up to 64 MiB each): every part costs an API call, an
  // md5 in the worker and a durable write on the server, which at 10 MiB slowed big uploads down.
  const roomy = Math.min(LARGE_PART_CAP, Math.ceil(size / PARTS_FOR_LARGE_FILES / MiB) * MiB);
  const partSize = Math.min(limits.maximumPartSize, Math.max(limits.minimumPartSize, limits.defaultPartSize, roomy, needed));
  if (size === 0) return { partSize, parts: [{ index: 1, start: 0, end: 0 }] };
  const count = Math.ceil(size / partSize);
  if (count > limits.maximumNumParts) throw new Error(`The file needs ${count} parts; at most ${limits.maximumNumParts} are allowed`);
  const parts: PartPlan[] = [];
  for (let index = 0; index < count; index++) {
    parts.push({ index: index + 1, start: index * partSize, end: Math.min(size, (index + 1) * partSize) });
  }
  return { partSize, parts };
}

/** A part the server already has (file-xxxx/describe with `parts: true`). */
export interface RemotePart {
  state: string;
  size: number;
  md5: string;
}

/**
 * Parts still to send when resuming: those the server lacks or holds with another size. Parts the
 * server has complete with the right size are returned in `verify`, to be compared by md5 with the local
 * bytes before they are skipped.
 */
export function partsToResume(plan: UploadPlan, remote: Readonly<Record<string, RemotePart>>): { send: PartPlan[]; verify: PartPlan[] } {
  const send: PartPlan[] = [];
  const verify: PartPlan[] = [];
  for (const part of plan.parts) {
    const there = remote[String(part.index)];
    if (there && there.state === 'complete' && there.size === part.end - part.start) verify.push(part);
    else send.push(part);
  }
  return { send, verify };
}

/** A file the user dropped or picked, with its path relative to the drop (`''` for a lone file). */
export interface DroppedFile {
  name: string;
  size: number;
  /** `reads/run1/a.fastq` for a file inside a dropped folder `reads`; `a.fastq` for a lone file. */
  relativePath: string;
}

export interface PlannedFile<F extends DroppedFile = DroppedFile> {
  file: F;
  /** Destination folder in the project. */
  folder: string;
  name: string;
}

/**
 * Where each file goes: into `target`, keeping the dropped folders' structure below it; and the folders
 * to create first (parents before children, each once).
 */
export function planDrop<F extends DroppedFile>(files: readonly F[], target: string): { files: PlannedFile<F>[]; folders: string[] } {
  const base = normalizeFolderPath(target);
  const folders = new Set<string>();
  const planned = files.map((file) => {
    const segments = (file.relativePath || file.name).split('/').filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
    const name = segments.pop() ?? file.name;
    const folder = segments.length ? normalizeFolderPath(`${base === ROOT ? '' : base}/${segments.join('/')}`) : base;
    if (folder !== base) for (const ancestor of ancestorsOf(folder)) if (ancestor.length > base.length) folders.add(ancestor);
    return { file, folder, name };
  });
  return { files: planned, folders: [...folders].sort((a, b) => a.length - b.length || (a < b ? -1 : 1)) };
}

/** What survives a page reload for one unfinished upload (kept in local storage). */
export interface ResumeRecord {
  fileId: string;
  project: string;
  folder: string;
  name: string;
  size: number;
  lastModified: number;
  partSize: number;
  started: number;
}

export const RESUME_STORAGE_KEY = 'panx.uploads';
/** Open files are abandoned by the server after a day (ABANDON_OPEN_FILES_AFTER_MS): no point resuming later. */
export const RESUME_MAX_AGE_MS = 20 * 3_600_000;

/** Identifies a local file across reloads: same project, folder, name, size and modification time. */
export function resumeKey(input: { project: string; folder: string; name: string; size: number; lastModified: number }): string {
  return JSON.stringify([input.project, input.folder, input.name, input.size, input.lastModified]);
}

export function parseResumeRecords(text: string | null, now: number): Record<string, ResumeRecord> {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const records: Record<string, ResumeRecord> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!isResumeRecord(value) || now - value.started > RESUME_MAX_AGE_MS) continue;
    records[key] = value;
  }
  return records;
}

function isResumeRecord(value: unknown): value is ResumeRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.fileId === 'string' &&
    /^file-/.test(record.fileId) &&
    typeof record.project === 'string' &&
    typeof record.folder === 'string' &&
    typeof record.name === 'string' &&
    typeof record.size === 'number' &&
    typeof record.lastModified === 'number' &&
    typeof record.partSize === 'number' &&
    typeof record.started === 'number'
  );
}

/** Bytes and progress of a set of files: 0..1, 1 for nothing to send. */
export function totalProgress(items: readonly { size: number; sent: number }[]): { size: number; sent: number; fraction: number } {
  const size = items.reduce((sum, item) => sum + item.size, 0);
  const sent = items.reduce((sum, item) => sum + Math.min(item.sent, item.size), 0);
  return { size, sent, fraction: size === 0 ? 1 : sent / size };
}
