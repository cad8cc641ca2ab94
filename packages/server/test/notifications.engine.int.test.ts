import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './data-helpers.js';
import { newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

interface StoredNotification {
  kind: string;
  message: string;
  link: string | null;
  subject: string | null;
}

describe('notifications from the execution engine (sqlite+local)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { tickMs: 200 } });
  }, 60_000);
  afterAll(() => t?.close());

  it('tells the launcher when a job tree finishes or fails, once per root job', async () => {
    const user = await t.newUser();
    const { id: project } = await user.client.call('project/new', { name: 'notified' });
    const ok = await newApplet(user.client, project, { name: 'ok', code: 'main() { echo fine; }' });
    const bad = await newApplet(user.client, project, { name: 'bad', code: 'main() { exit 3; }' });
    const run = async (applet: string) => ((await user.client.post(applet, 'run', { project, input: {}, ignoreReuse: true })) as { id: string }).id;
    const done = await waitForJob(user.client, await run(ok));
    const failed = await waitForJob(user.client, await run(bad));
    expect([done.state, failed.state]).toEqual(['done', 'failed']);
    const { notifications } = (await user.client.post('notifications', 'get', {})) as { notifications: StoredNotification[] };
    const kinds = notifications.map((n) => n.kind).sort();
    expect(kinds).toEqual(['executionDone', 'executionFailed']);
    expect(notifications.find((n) => n.kind === 'executionDone')?.link).toBe(`/panx/projects/${project}/monitor/job/${done.id}`);
  });

  it('tells the launcher when an analysis finishes or fails (once each, with a link to its page), not for its stage jobs', async () => {
    const user = await t.newUser();
    const { id: project } = await user.client.call('project/new', { name: 'analyses notified' });
    const ok = await newApplet(user.client, project, { name: 'ok', code: 'main() { echo fine; }' });
    const bad = await newApplet(user.client, project, { name: 'bad', code: 'main() { exit 3; }' });
    const workflow = async (name: string, executables: string[]) =>
      (
        await user.client.call('workflow/new', {
          project,
          name,
          stages: executables.map((executable, index) => ({ id: `stage-${index}`, executable })),
        })
      ).id;
    const good = await user.client.call('workflow-xxxx/run', await workflow('good', [ok, ok]), { project, input: {}, rerunStages: ['*'] });
    const broken = await user.client.call('workflow-xxxx/run', await workflow('broken', [ok, bad]), { project, input: {}, rerunStages: ['*'] });
    const finalState = async (id: string) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { state } = (await user.client.call('analysis-xxxx/describe', id, {})) as { id: string; state: string };
        if (['done', 'failed', 'terminated'].includes(state)) return state;
        if (Date.now() > deadline) throw new Error(`${id} stayed ${state}`);
        await sleep(100);
      }
    };
    expect([await finalState(good.id), await finalState(broken.id)]).toEqual(['done', 'failed']);
    const { notifications } = (await user.client.post('notifications', 'get', {})) as { notifications: StoredNotification[] };
    const byAnalysis = notifications.filter((n) => n.subject?.startsWith('analysis-'));
    expect(byAnalysis.map((n) => [n.subject, n.kind]).sort()).toEqual(
      [
        [good.id, 'executionDone'],
        [broken.id, 'executionFailed'],
      ].sort(),
    );
    expect(byAnalysis.find((n) => n.subject === good.id)?.link).toBe(`/panx/projects/${project}/monitor/analysis/${good.id}`);
    expect(byAnalysis.find((n) => n.subject === broken.id)?.message).toContain('Stage stage-1 (bad) failed');
    // Stage jobs are not root executions: no notification of their own.
    expect(notifications.filter((n) => n.subject?.startsWith('job-'))).toEqual([]);
  });
});
