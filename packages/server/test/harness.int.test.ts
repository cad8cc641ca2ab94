import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform } from './harness.js';
import * as ports from './moto.js';

// freePort can be made to hand out a port that something took after its trial bind (the race CI hit).
vi.mock('./moto.js', async (original) => {
  const actual = await original<typeof import('./moto.js')>();
  return { ...actual, freePort: vi.fn(actual.freePort) };
});

/** Processes whose command line names `dir` (a platform's jobs run from its data directory). */
function processesUnder(dir: string): string[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    });
}

describe('the test platform', () => {
  it('leaves no job process behind when it closes with a job still running', async () => {
    const t = await startTestPlatform(undefined, { engine: { tickMs: 100 } });
    const dataDir = t.platform.config.dataDir;
    const { id: project } = await t.admin.call('project/new', { name: 'forever' });
    const applet = await newApplet(t.admin, project, { code: 'main() { while true; do sleep 0.1; done; }' });
    const { id } = (await t.admin.post(applet, 'run', { project, input: {} })) as { id: string };
    await waitForJob(t.admin, id, ['running']);
    await expect.poll(() => processesUnder(dataDir).length, { timeout: 10_000 }).toBeGreaterThan(0);
    await t.close();
    expect(processesUnder(dataDir)).toEqual([]);
  });

  it('starts again on another port when its port is taken before it listens', async () => {
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as net.AddressInfo).port;
    vi.mocked(ports.freePort).mockResolvedValueOnce(taken);
    try {
      const t = await startTestPlatform();
      expect(new URL(t.url).port).not.toBe(String(taken));
      const { id } = await t.admin.call('project/new', { name: 'after a retry' });
      const file = (await t.admin.post('file', 'new', { project: id, name: 'x' })) as { id: string };
      // URLs the platform hands out name the port it listens on, not the one it was first given.
      const { url } = (await t.admin.post(file.id, 'upload', { index: 1 })) as { url: string };
      expect(url.startsWith(`${t.url}/upload/`)).toBe(true);
      await t.close();
    } finally {
      squatter.close();
    }
  });
});
