/**
 * A full disk under the data directory (a small tmpfs of the test's own): part uploads are answered
 * 503 ServiceUnavailable (clients retry), nothing half-written is kept, and once there is room the
 * same upload goes through and the file reads back whole.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canMount, type Mounted, mountSmall } from '../../../test-support/mounts.js';
import { downloadBytes, expectPutError, expectPutOk, MiB, putPart, random, waitForState } from './data-helpers.js';
import { startTestPlatform, type TestPlatform, type TestPlatformOptions } from './harness.js';

/** Fills the file system under `dir` to the last byte with one file, and answers its path. */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  try {
    for (const size of [MiB, 4096, 1]) {
      const block = Buffer.alloc(size, 7);
      try {
        for (;;) fs.writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** Files under `dir` (recursively), but the filler. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'filler')
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
}

/** Runs `test` against a platform with a small disk of its own (as its data or its blob folder), then removes both. */
async function withSmallDisk(place: 'dataDir' | 'blobDir', test: (t: TestPlatform, disk: Mounted) => Promise<void>): Promise<void> {
  const disk = mountSmall(64);
  if (!disk) throw new Error('mounting a tmpfs failed');
  try {
    const options: TestPlatformOptions = place === 'dataDir' ? { dataDir: disk.dir } : { blobDir: disk.dir };
    const t = await startTestPlatform(undefined, options);
    try {
      await test(t, disk);
    } finally {
      await t.close();
    }
  } finally {
    disk.unmount();
  }
}

describe('a full disk', () => {
  it.runIf(canMount)('answers part uploads 503 ServiceUnavailable, keeps nothing half-written, and takes the upload once there is room', () =>
    withSmallDisk('dataDir', async (t, small) => {
      const { id: project } = await t.admin.call('project/new', { name: 'full disk' });
      const { id } = await t.admin.call('file/new', { project, name: 'big.bin' });
      const parts = [random(6 * MiB), random(3 * MiB)];
      const before = filesUnder(small.dir);
      const filler = fill(small.dir);

      // A part much larger than the room left: the server fails long before the body ends, and still answers.
      const refused = await putPart(t.admin, id, 1, random(24 * MiB));
      expectPutError(refused, 503, 'ServiceUnavailable');
      expect((refused.body as { error: { message: string } }).error.message).toMatch(/storage is full/);
      // No part file was left behind, and the part is not shown as received.
      expect(filesUnder(small.dir).filter((file) => !before.includes(file) && !/panx\.db/.test(file))).toEqual([]);
      expect((await t.admin.call('file-xxxx/describe', id, { fields: { parts: true } })).parts).toEqual({});

      fs.rmSync(filler);
      for (const [index, bytes] of parts.entries()) await expectPutOk(await putPart(t.admin, id, index + 1, bytes), bytes);
      await t.admin.call('file-xxxx/close', id, {});
      await waitForState(t.admin, id, 'closed');
      expect((await downloadBytes(t.admin, id, project)).equals(Buffer.concat(parts))).toBe(true);
    }),
  );

  // Only the blobs on the small disk: the database takes the state change, the manifest does not fit.
  it.runIf(canMount)('leaves a close that did not fit closing, and the recovery sweep finishes it once there is room', () =>
    withSmallDisk('blobDir', async (t, small2) => {
      const { id: project } = await t.admin.call('project/new', { name: 'full disk' });
      const { id } = await t.admin.call('file/new', { project, name: 'two-parts.bin' });
      const parts = [random(6 * MiB), random(2 * MiB)];
      for (const [index, bytes] of parts.entries()) await expectPutOk(await putPart(t.admin, id, index + 1, bytes), bytes);
      const filler = fill(small2.dir);
      // Closing writes a manifest of the parts next to them: it cannot, so the file stays closing.
      expect(await t.admin.call('file-xxxx/close', id, {})).toEqual({ id, state: 'closing' });
      expect((await t.admin.call('file-xxxx/describe', id, { fields: { state: true } })).state).toBe('closing');
      fs.rmSync(filler);
      // The sweep that runs every minute, run now.
      await t.platform.services.files.recover(Date.now());
      await waitForState(t.admin, id, 'closed');
      expect((await downloadBytes(t.admin, id, project)).equals(Buffer.concat(parts))).toBe(true);
    }),
  );

  it.runIf(canMount)('answers 503 ServiceUnavailable when the database cannot grow, and works again once it can', () =>
    withSmallDisk('dataDir', async (t, small3) => {
      const { id: project } = await t.admin.call('project/new', { name: 'full database' });
      const filler = fill(small3.dir);
      // Enough new records to need new pages of the database, whatever room its last page had.
      const records = async () => {
        for (let i = 0; i < 50; i++) await t.admin.call('record/new', { project, name: `r${i}`, details: { padding: 'x'.repeat(8000) } });
      };
      await expect(records()).rejects.toMatchObject({ type: 'ServiceUnavailable', status: 503 });
      fs.rmSync(filler);
      await records();
      const found = await t.admin.call('system/findDataObjects', { scope: { project }, class: 'record', limit: 1000 });
      expect(found.results.length).toBeGreaterThanOrEqual(50);
    }),
  );
});
