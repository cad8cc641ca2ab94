import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform } from './harness.js';

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
});
