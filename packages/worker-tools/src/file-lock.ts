import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolError } from './errors.js';

/**
 * An exclusive lock between processes, held as `<file>.lock` created with O_EXCL (Node has no
 * flock). The holder writes "<pid> <token>" there; a lock whose holder is gone (killed mid-update)
 * is taken over, so a crashed helper never blocks the job's later ones.
 */

const STALE_EMPTY_LOCK_MS = 10_000;

function readLock(lock: string): { text: string; mtimeMs: number } | undefined {
  try {
    return { text: fs.readFileSync(lock, 'utf8'), mtimeMs: fs.statSync(lock).mtimeMs };
  } catch {
    return undefined; // just released
  }
}

/** The lock's text when its holder is gone, else undefined. */
function deadHolder(lock: string): string | undefined {
  const found = readLock(lock);
  if (!found) return undefined;
  const pid = Number(found.text.split(' ')[0]);
  if (!found.text || !Number.isInteger(pid) || pid <= 0) return Date.now() - found.mtimeMs > STALE_EMPTY_LOCK_MS ? found.text : undefined;
  if (pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH' ? found.text : undefined;
  }
}

/** Removes a dead holder's lock, and only that one (not a lock taken meanwhile by a live process). */
function takeOver(lock: string, dead: string): void {
  const claimed = `${lock}.${process.pid}.stale`;
  try {
    fs.renameSync(lock, claimed);
  } catch {
    return; // another waiter took it over first
  }
  if (readLock(claimed)?.text !== dead) {
    try {
      fs.linkSync(claimed, lock); // a live holder's lock: put it back
    } catch {
      // the lock was taken again meanwhile; its holder releases only its own token
    }
  }
  fs.rmSync(claimed, { force: true });
}

export async function withFileLock<T>(file: string, task: () => T | Promise<T>, timeoutMs = 120_000): Promise<T> {
  const lock = `${file}.lock`;
  const mine = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + timeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    try {
      const fd = fs.openSync(lock, 'wx', 0o644);
      try {
        fs.writeSync(fd, mine);
      } finally {
        fs.closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const dead = deadHolder(lock);
    if (dead !== undefined) {
      takeOver(lock, dead);
      continue;
    }
    if (Date.now() > deadline) throw new ToolError(`timed out after ${timeoutMs / 1000} s waiting for the lock ${lock}`);
    await sleep(wait + Math.random() * wait);
  }
  try {
    return await task();
  } finally {
    if (readLock(lock)?.text === mine) fs.rmSync(lock, { force: true });
  }
}

/** Writes a file atomically (temporary file in the same folder, then rename). */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}
