import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from './data-helpers.js';
import { API_BASH, newApplet, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/** The executions list of the web monitor asks for top-level executions: no subjobs, no stage jobs. */
describe('findExecutions of top-level executions (sqlite+local)', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { tickMs: 200 } });
  }, 60_000);
  afterAll(() => t?.close());

  it('parentAnalysis: null with includeSubjobs: false leaves out subjobs and analyses’ stage jobs', async () => {
    const user = await t.newUser();
    const { id: project } = await user.client.call('project/new', { name: 'top level' });
    const ok = await newApplet(user.client, project, { name: 'ok', code: 'main() { echo fine; }' });
    const parent = await newApplet(user.client, project, {
      name: 'parent',
      code: `${API_BASH}\nmain() { api job new '{"function":"child"}' >/dev/null; }\nchild() { echo child; }`,
    });
    const job = ((await user.client.post(parent, 'run', { project, input: {}, ignoreReuse: true })) as { id: string }).id;
    await waitForJob(user.client, job);
    const { id: workflow } = await user.client.call('workflow/new', { project, name: 'wf', stages: [{ id: 'stage-a', executable: ok }] });
    const analysis = await user.client.call('workflow-xxxx/run', workflow, { project, input: {}, rerunStages: ['*'] });
    await waitForJob(user.client, analysis.stages[0] as string);
    for (let i = 0; i < 50; i++) {
      const { state } = (await user.client.call('analysis-xxxx/describe', analysis.id, {})) as { id: string; state: string };
      if (state === 'done') break;
      await sleep(100);
    }

    const everything = await user.client.call('system/findExecutions', { project });
    expect(everything.results).toHaveLength(4);
    const top = await user.client.call('system/findExecutions', { project, includeSubjobs: false, parentAnalysis: null });
    expect(top.results.map((result) => result.id).sort()).toEqual([analysis.id, job].sort());
    // Paging still counts only what matches.
    const first = await user.client.call('system/findExecutions', { project, includeSubjobs: false, parentAnalysis: null, limit: 1 });
    expect(first.results).toHaveLength(1);
    const second = await user.client.call('system/findExecutions', {
      project,
      includeSubjobs: false,
      parentAnalysis: null,
      limit: 1,
      starting: first.next,
    });
    expect([...first.results, ...second.results].map((result) => result.id).sort()).toEqual([analysis.id, job].sort());
    // The stage jobs are still found by their analysis.
    expect((await user.client.call('system/findExecutions', { parentAnalysis: analysis.id })).results.map((result) => result.id)).toEqual(analysis.stages);
  });
});
