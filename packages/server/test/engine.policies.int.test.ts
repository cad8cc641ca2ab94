/**
 * Execution policies and checks of the engine beyond engine.e2e: outputs that do not match the
 * output spec (InvalidOutput), maxRestarts, which entry points restart (runSpec.restartableEntryPoints),
 * and priority (a high-priority job waiting for room starts before a low-priority one that came first).
 */
import type { PanxClient } from '@panx/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from './data-helpers.js';
import { describeJob, logOf, newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

describe('engine policies', () => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient };
  let project: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-policies-'));

  beforeAll(async () => {
    // Room for one default (2-core) job at a time, so that the priority test has a queue.
    t = await startTestPlatform(undefined, { engine: { local: { cores: 2, memoryMB: 16_000 }, tickMs: 100 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'policies' }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const run = async (applet: string, body: Record<string, unknown> = {}) =>
    ((await user.client.post(applet, 'run', { project, input: {}, ...body })) as { id: string }).id;

  it('fails a job whose output does not match its output spec with InvalidOutput, naming the field', async () => {
    const applet = await newApplet(user.client, project, {
      name: 'bad-output',
      outputSpec: [
        { name: 'count', class: 'int' },
        { name: 'label', class: 'string' },
      ],
      code: `main() { dx-jobutil-add-output count "many" --class string; dx-jobutil-add-output label x --class string; }`,
    });
    const job = await waitForJob(user.client, await run(applet));
    expect(job).toMatchObject({ state: 'failed', failureReason: 'InvalidOutput' });
    expect(job.failureMessage).toContain('count');
    const missing = await newApplet(user.client, project, {
      name: 'missing-output',
      outputSpec: [{ name: 'count', class: 'int' }],
      code: 'main() { :; }',
    });
    const second = await waitForJob(user.client, await run(missing));
    expect(second).toMatchObject({ state: 'failed', failureReason: 'InvalidOutput' });
    expect(second.failureMessage).toContain('count');
  });

  it('restarts at most maxRestarts times, and only the entry points runSpec.restartableEntryPoints allows', async () => {
    const failing = await newApplet(user.client, project, {
      name: 'always-fails',
      code: `main() { echo "try $(jq -r .try dnanexus-job.json 2>/dev/null)"; dx-jobutil-report-error "boom" AppError; }`,
      ignoreReuse: true,
    });
    const capped = await waitForJob(user.client, await run(failing, { executionPolicy: { restartOn: { AppError: 5 }, maxRestarts: 2 } }), undefined, 60_000);
    expect(capped).toMatchObject({ state: 'failed', failureReason: 'AppError', try: 2 });

    // A subjob fails: with restartableEntryPoints "master" (the default) it is not restarted...
    const code = `main() { sub=$(dx-jobutil-new-job flaky); dx-jobutil-add-output out "$sub:ok" --class jobref; }
flaky() { if [ -e "${scratch}/$DX_JOB_ID" ]; then dx-jobutil-add-output ok yes --class string; else touch "${scratch}/$DX_JOB_ID"; dx-jobutil-report-error "first try fails" AppError; fi; }`;
    const master = await newApplet(user.client, project, { name: 'sub-master', outputSpec: [{ name: 'out', class: 'string' }], code, ignoreReuse: true });
    const policy = { executionPolicy: { restartOn: { AppError: 1 } } };
    const notRestarted = await waitForJob(user.client, await run(master, policy), undefined, 60_000);
    expect(notRestarted.state).toBe('failed');
    // ...with "all" the subjob's second try succeeds and so does the tree.
    const all = await newApplet(user.client, project, {
      name: 'sub-all',
      outputSpec: [{ name: 'out', class: 'string' }],
      code,
      runSpec: { restartableEntryPoints: 'all' },
      ignoreReuse: true,
    });
    const id = await run(all, policy);
    const restarted = await waitForJob(user.client, id, undefined, 60_000);
    expect(restarted.state, JSON.stringify(await logOf(user.client, id, { recurseJobs: true }))).toBe('done');
    expect(restarted.output).toEqual({ out: 'yes' });
    const tree = (await user.client.post('system', 'findJobs', { rootExecution: [id], describe: { fields: { function: true, try: true } } })) as {
      results: { describe: { function: string; try: number } }[];
    };
    expect(tree.results.find((entry) => entry.describe.function === 'flaky')?.describe.try).toBe(1);
  }, 120_000);

  it('holds a job that fails as debug.debugOn says (debug_hold, with its failure), until it is terminated', async () => {
    const failing = await newApplet(user.client, project, {
      name: 'held',
      code: 'main() { dx-jobutil-report-error "look at me" AppError; }',
      ignoreReuse: true,
    });
    const id = await run(failing, { debug: { debugOn: ['AppError'] } });
    const held = await waitForJob(user.client, id, ['debug_hold', 'failed', 'done'], 30_000);
    expect(held).toMatchObject({ state: 'debug_hold', failureReason: 'AppError', failureMessage: 'look at me' });
    expect((await logOf(user.client, id)).map((line) => line.msg)).toContain('Held for debugging after AppError: look at me');
    await user.client.post(id, 'terminate', {});
    const ended = await waitForJob(user.client, id, undefined, 30_000);
    expect(ended.state).toBe('terminated');
    expect((ended.stateTransitions as { newState: string }[]).map((step) => step.newState)).toEqual(
      expect.arrayContaining(['running', 'debug_hold', 'terminated']),
    );
    // Another failure reason is not held.
    const other = await run(failing, { debug: { debugOn: ['ExecutionError'] } });
    expect((await waitForJob(user.client, other, undefined, 30_000)).state).toBe('failed');
  });

  it('starts a waiting high-priority job before a low-priority one submitted earlier', async () => {
    const gate = path.join(scratch, 'gate');
    const blocker = await newApplet(user.client, project, {
      name: 'blocker',
      inputSpec: [{ name: 'gate', class: 'string' }],
      code: 'main() { while [ ! -e "$gate" ]; do sleep 0.05; done; }',
      ignoreReuse: true,
    });
    const quick = await newApplet(user.client, project, { name: 'quick', code: 'main() { :; }', ignoreReuse: true });
    const first = await run(blocker, { input: { gate } });
    await waitForJob(user.client, first, ['running']);
    const low = await run(quick, { priority: 'low' });
    const normal = await run(quick);
    const high = await run(quick, { priority: 'high' });
    await waitUntil('the queued jobs are runnable', async () => (await describeJob(user.client, high)).state === 'runnable');
    fs.writeFileSync(gate, '');
    const started = async (id: string) => (await waitForJob(user.client, id)).startedRunning as number;
    const [lowAt, normalAt, highAt] = [await started(low), await started(normal), await started(high)];
    expect(highAt).toBeLessThan(normalAt);
    expect(normalAt).toBeLessThan(lowAt);
  }, 60_000);
});
