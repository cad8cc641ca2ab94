import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

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
    const { notifications } = (await user.client.post('notifications', 'get', {})) as { notifications: { kind: string; message: string }[] };
    const kinds = notifications.map((n) => n.kind).sort();
    expect(kinds).toEqual(['executionDone', 'executionFailed']);
  });
});
