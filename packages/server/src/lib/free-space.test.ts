import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { canMount, mountSmall } from '../../../../test-support/mounts.js';
import { FreeSpaceWatch, freeBytes } from './free-space.js';

/** A logger whose lines are kept, parsed. */
function keptLog() {
  const lines: { level: number; msg: string; storage?: string; freeBytes?: number }[] = [];
  return { lines, log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }) };
}

describe('free space', () => {
  it('measures the folders it can, and leaves out one that is not there', async () => {
    const { log } = keptLog();
    const watch = new FreeSpaceWatch({ temp: os.tmpdir(), gone: path.join(os.tmpdir(), 'panx-no-such-folder-') }, log);
    const free = await watch.measure();
    expect(Object.keys(free)).toEqual(['temp']);
    expect(free.temp).toBe(await freeBytes(os.tmpdir()));
    expect(free.temp).toBeGreaterThan(0);
  });

  it.runIf(canMount)('says once when a folder runs low, and once when its space is back', async () => {
    const disk = mountSmall(8);
    if (!disk) throw new Error('mounting a tmpfs failed');
    try {
      const { lines, log } = keptLog();
      // "Low" is under 4 MiB here, on a disk of 8.
      const watch = new FreeSpaceWatch({ blobs: disk.dir }, log, 4 * 1024 * 1024);
      await watch.check();
      expect(lines).toEqual([]);
      const filler = path.join(disk.dir, 'filler');
      fs.writeFileSync(filler, Buffer.alloc(6 * 1024 * 1024));
      await watch.check();
      await watch.check();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, storage: 'blobs', msg: expect.stringContaining('little free space') });
      expect(lines[0]?.freeBytes).toBeLessThan(4 * 1024 * 1024);
      fs.rmSync(filler);
      await watch.check();
      await watch.check();
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatchObject({ level: 30, storage: 'blobs', msg: expect.stringContaining('is back') });
    } finally {
      disk.unmount();
    }
  });
});
