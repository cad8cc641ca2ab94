import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/** Below this much free space a folder the server writes to is reported low, in the log. */
export const LOW_FREE_BYTES = 1024 ** 3;

/** Bytes an unprivileged writer may still use on the file system holding `folder` (statfs). */
export async function freeBytes(folder: string): Promise<number> {
  const stats = await fs.promises.statfs(folder);
  return stats.bavail * stats.bsize;
}

/**
 * The local folders the server writes to (SQLite's, the blob store's), watched for free space: a
 * full disk answers calls with 503 and closes wait for room (docs/OPERATIONS.md), so the log says it
 * before that, once each time a folder's space goes low and once when it is back.
 */
export class FreeSpaceWatch {
  private readonly low = new Set<string>();

  constructor(
    private readonly folders: Record<string, string>,
    private readonly log: Logger,
    private readonly lowBytes = LOW_FREE_BYTES,
  ) {}

  /** Free bytes per folder name (what `GET /ready` shows); a folder that cannot be read is left out. */
  async measure(): Promise<Record<string, number>> {
    const free: Record<string, number> = {};
    for (const [name, folder] of Object.entries(this.folders)) {
      try {
        free[name] = await freeBytes(folder);
      } catch {
        // not there (yet): nothing to say about it
      }
    }
    return free;
  }

  /** Measures, and logs the folders whose space went low or came back since the last check. */
  async check(): Promise<void> {
    const free = await this.measure();
    for (const [name, bytes] of Object.entries(free)) {
      const folder = path.resolve(this.folders[name] as string);
      if (bytes < this.lowBytes && !this.low.has(name)) {
        this.low.add(name);
        this.log.warn({ storage: name, folder, freeBytes: bytes }, `little free space left for the ${name}: uploads and writes will fail once it is gone`);
      } else if (bytes >= this.lowBytes && this.low.delete(name)) {
        this.log.info({ storage: name, folder, freeBytes: bytes }, `free space for the ${name} is back`);
      }
    }
  }
}
