import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A folder with a file system of its own, unmounted (and removed) by `unmount`. */
export interface Mounted {
  dir: string;
  unmount: () => void;
}

/**
 * Mounts a file system for a test. Mounting needs root (CI runs as root); elsewhere this answers
 * undefined and the tests that need it say so (`it.runIf`).
 */
function mount(type: string, options: string[]): Mounted | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `panx-${type}-`));
  if (spawnSync('mount', ['-t', type, ...options, type, dir], { stdio: 'ignore' }).status !== 0) {
    fs.rmdirSync(dir);
    return undefined;
  }
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    mounted = false;
    process.removeListener('exit', unmount);
    // A file a failed test left open keeps the mount busy: detach it anyway (lazy), so no mount outlives the test.
    if (spawnSync('umount', [dir], { stdio: 'ignore' }).status !== 0) spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // Also when the test that mounted it never ran to its unmount (filtered out, or failed before it).
  process.once('exit', unmount);
  return { dir, unmount };
}

/** Whether this process may mount file systems (root): the tests that need a mount run only then. */
export const canMount: boolean = process.getuid?.() === 0;

/**
 * A folder on ramfs, a file system that refuses O_DIRECT with EINVAL (as some network file systems
 * do; tmpfs accepts it on recent kernels), for the tests of the fall-back to the page cache.
 */
export function mountNoDirectIo(): Mounted | undefined {
  return mount('ramfs', []);
}

/** A folder on a tmpfs of `mib` MiB (it takes O_DIRECT): writes past that fail with ENOSPC. */
export function mountSmall(mib: number): Mounted | undefined {
  return mount('tmpfs', ['-o', `size=${mib}m`]);
}
