import { type SpawnSyncOptions, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { canMount, mountSmall } from '../../../../test-support/mounts.js';
import { ensureServerBuilt, ROOT } from '../../test/built-server.js';
import { createLogger } from './logger.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Runs `body` in a Node process of its own, with `log` the server's logger (as built) on its stdout. */
function runWithServerLog(body: string, options: SpawnSyncOptions) {
  ensureServerBuilt();
  const logger = pathToFileURL(path.join(ROOT, 'packages/server/dist/lib/logger.js')).href;
  const script = `const { createLogger } = await import(${JSON.stringify(logger)});\nconst log = createLogger('info');\n${body}`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 15_000, ...options });
}

describe('the server log', () => {
  it('keeps the process alive when every write fails (/dev/full: ENOSPC)', async () => {
    const destination = pino.destination({ dest: '/dev/full', sync: false });
    const log = createLogger('info', destination);
    for (let i = 0; i < 200; i++) {
      log.info({ i }, 'a line the disk cannot take');
      if (i % 50 === 0) await settle();
    }
    await settle();
    // An unhandled 'error' event would have thrown out of the destination's write callback and failed
    // this test file; reaching here with the logger still usable is the point.
    try {
      expect(() => log.warn('still logging')).not.toThrow();
      // pino's own listener lets go after the first failure; without one of ours, the next is thrown.
      expect(destination.listenerCount('error')).toBeGreaterThan(0);
    } finally {
      destination.destroy();
    }
  });

  it('lets the process exit while the log cannot be written (stdout on /dev/full)', () => {
    const stdout = fs.openSync('/dev/full', 'w');
    try {
      const child = runWithServerLog(
        `for (let i = 0; i < 1000; i++) log.info({ i }, 'x'.repeat(100));
         setTimeout(() => { log.info('the last line'); process.exit(0); }, 200);`,
        { stdio: ['ignore', stdout, 'pipe'] },
      );
      // Killed by the timeout (a flush retrying for ever) shows as no status and SIGTERM.
      expect({ status: child.status, signal: child.signal, stderr: child.stderr.toString() }).toEqual({ status: 0, signal: null, stderr: '' });
    } finally {
      fs.closeSync(stdout);
    }
  });

  it('writes every line it holds when the process exits at once', () => {
    const child = runWithServerLog(`for (let i = 0; i < 5000; i++) log.info({ i }, 'y'.repeat(200)); process.exit(0);`, {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(child.status).toBe(0);
    const numbers = child.stdout
      .toString()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { i: number }).i);
    expect(numbers).toEqual(Array.from({ length: 5000 }, (_, i) => i));
  });

  it.runIf(canMount)('says how many writes failed once the disk has room again, and goes on logging', async () => {
    const small = mountSmall(1);
    if (!small) throw new Error('mounting a tmpfs failed');
    try {
      const file = path.join(small.dir, 'panx.log');
      const filler = path.join(small.dir, 'filler');
      const destination = pino.destination({ dest: file, sync: false, mkdir: true });
      await new Promise((resolve) => destination.once('ready', resolve));
      const log = createLogger('info', destination);
      // Fill the file system to the last byte, so that the log's next write fails.
      const fd = fs.openSync(filler, 'w');
      const block = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) fs.writeSync(fd, block);
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      try {
        for (;;) fs.writeSync(fd, block, 0, 1);
      } catch {
        // full to the byte
      }
      fs.closeSync(fd);
      log.info('lost or held: the disk is full');
      await settle();
      log.info('this one too');
      await settle();
      fs.rmSync(filler);
      log.info('written once there is room');
      await settle();
      destination.flushSync();
      await new Promise((resolve) => {
        destination.once('close', resolve);
        destination.end();
      });
      const lines = fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; failedWrites?: number; code?: string });
      const report = lines.find((line) => line.failedWrites !== undefined);
      expect(report).toMatchObject({ code: 'ENOSPC', msg: expect.stringContaining('could not be written') });
      expect(report?.failedWrites).toBeGreaterThanOrEqual(1);
      expect(lines.map((line) => line.msg)).toContain('written once there is room');
    } finally {
      small.unmount();
    }
  });
});
