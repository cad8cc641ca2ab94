/**
 * Workflows and analyses over HTTP: creating and editing workflows under optimistic locking
 * (editVersion), describe as `dx run` needs it (stages[].accessible, inputSpec named
 * `<stageId>.<field>`), runs whose stage jobs are wired by stage links, analysis states
 * (partially_failed, terminate), reuse of stages, bad input.
 */
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadBytes, sleep } from './data-helpers.js';
import { API_BASH, describeJob, logOf, newApplet, waitForJob } from './engine-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

type Described = Record<string, unknown> & { id: string; state: string };
const link = (stage: string, outputField: string) => ({ $dnanexus_link: { stage, outputField } });

/** Applets every suite below uses: produce → consume (a string and a file), plus a failing and a slow one. */
async function makeApplets(client: PanxClient, project: string) {
  const produce = await newApplet(client, project, {
    name: 'produce',
    inputSpec: [
      { name: 'text', class: 'string' },
      { name: 'times', class: 'int', default: 1 },
    ],
    outputSpec: [
      { name: 'word', class: 'string' },
      { name: 'file', class: 'file' },
    ],
    code: `${API_BASH}
main() {
  printf '%s\\n' "$text" > text.txt
  id=$(upload "$text.txt" text.txt)
  jq -n --arg w "$text!" --arg id "$id" '{word: $w, file: {"$dnanexus_link": $id}}' > job_output.json
}`,
  });
  const consume = await newApplet(client, project, {
    name: 'consume',
    inputSpec: [
      { name: 'word', class: 'string' },
      { name: 'file', class: 'file', optional: true },
      { name: 'suffix', class: 'string', default: '' },
    ],
    outputSpec: [{ name: 'shout', class: 'string' }],
    code: `main() {
  echo "consuming $word and $file_name"
  jq -n --arg s "\${word^^}$suffix" '{shout: $s}' > job_output.json
}`,
  });
  const fail = await newApplet(client, project, {
    name: 'fail',
    inputSpec: [{ name: 'word', class: 'string', optional: true }],
    outputSpec: [{ name: 'never', class: 'string' }],
    code: `main() { echo "failing on purpose" >&2; exit 3; }`,
  });
  const slow = await newApplet(client, project, {
    name: 'slow',
    inputSpec: [{ name: 'seconds', class: 'int' }],
    outputSpec: [{ name: 'slept', class: 'int' }],
    code: `main() { sleep "$seconds"; echo "{\\"slept\\": $seconds}" > job_output.json; }`,
  });
  return { produce, consume, fail, slow };
}

describe.each(BACKENDS)('workflows: create, edit, describe on $name', (backend) => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient };
  let project: string;
  let applets: Awaited<ReturnType<typeof makeApplets>>;

  beforeAll(async () => {
    t = await startTestPlatform(backend, { engine: { enabled: false } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'workflows' }));
    applets = await makeApplets(user.client, project);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('creates a workflow with stage links and describes it as dx run needs it', async () => {
    const created = await user.client.call('workflow/new', {
      project,
      name: 'pair',
      title: 'Produce then consume',
      outputFolder: '/out',
      stages: [
        { id: 'stage-produce', executable: applets.produce, name: 'Produce', folder: 'made' },
        { id: 'stage-consume', executable: applets.consume, input: { word: link('stage-produce', 'word'), suffix: '?' } },
      ],
    });
    expect(created).toEqual({ id: expect.stringMatching(/^workflow-/), editVersion: 0 });
    const described = (await user.client.call('workflow-xxxx/describe', created.id, {})) as Described;
    expect(described).toMatchObject({
      class: 'workflow',
      name: 'pair',
      state: 'open',
      title: 'Produce then consume',
      outputFolder: '/out',
      editVersion: 0,
      stages: [
        { id: 'stage-produce', name: 'Produce', executable: applets.produce, folder: 'made', input: {}, accessible: true },
        { id: 'stage-consume', name: null, executable: applets.consume, folder: null, accessible: true },
      ],
    });
    const inputSpec = described.inputSpec as { name: string; class: string; optional?: boolean; default?: unknown; stage?: string }[];
    expect(inputSpec.map((item) => item.name)).toEqual([
      'stage-produce.text',
      'stage-produce.times',
      'stage-consume.word',
      'stage-consume.file',
      'stage-consume.suffix',
    ]);
    expect(inputSpec[0]).toMatchObject({ class: 'string', stage: 'stage-produce' });
    expect(inputSpec[0]?.optional).toBeUndefined();
    expect(inputSpec[2]).toMatchObject({ optional: true, default: link('stage-produce', 'word') });
    expect(inputSpec[4]).toMatchObject({ optional: true, default: '?' });
    expect((described.outputSpec as { name: string }[]).map((item) => item.name)).toEqual(['stage-produce.word', 'stage-produce.file', 'stage-consume.shout']);
    // findDataObjects finds workflows by class.
    const found = await user.client.call('system/findDataObjects', { class: 'workflow', scope: { project } });
    expect(found.results.map((result) => result.id)).toContain(created.id);
  });

  it('edits with editVersion: addStage, moveStage, update, removeStage; a stale version is InvalidState naming the current one', async () => {
    const { id } = await user.client.call('workflow/new', { project, name: 'edited' });
    const added = await user.client.call('workflow-xxxx/addStage', id, { editVersion: 0, executable: applets.produce, name: 'first' });
    expect(added).toEqual({ id, editVersion: 1, stage: expect.stringMatching(/^stage-[0-9A-Za-z]{24}$/) });
    const second = await user.client.call('workflow-xxxx/addStage', id, {
      editVersion: 1,
      id: 'stage-two',
      executable: applets.consume,
      input: { word: link(added.stage, 'word') },
    });
    expect(second).toMatchObject({ editVersion: 2, stage: 'stage-two' });
    await expectApiError(
      user.client.call('workflow-xxxx/addStage', id, { editVersion: 1, executable: applets.slow }),
      'InvalidState',
      'current editVersion is 2',
    );
    // Two edits from the same version: exactly one wins.
    const racing = await Promise.allSettled([
      user.client.call('workflow-xxxx/update', id, { editVersion: 2, title: 'A' }),
      user.client.call('workflow-xxxx/update', id, { editVersion: 2, title: 'B' }),
    ]);
    expect(racing.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((racing.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ type: 'InvalidState' });

    await user.client.call('workflow-xxxx/moveStage', id, { editVersion: 3, stage: 'stage-two', newIndex: 0 });
    await user.client.call('workflow-xxxx/update', id, {
      editVersion: 4,
      description: 'two stages',
      stages: { 'stage-two': { name: 'second', folder: '/abs', input: { suffix: '!' } } },
    });
    const described = (await user.client.call('workflow-xxxx/describe', id, {})) as Described & { stages: { id: string; name: string; input: unknown }[] };
    expect(described.editVersion).toBe(5);
    expect(described.stages.map((stage) => stage.id)).toEqual(['stage-two', added.stage]);
    expect(described.stages[0]).toMatchObject({ name: 'second', folder: '/abs', input: { word: link(added.stage, 'word'), suffix: '!' } });

    // A linked stage cannot go; unbound, it can.
    await expectApiError(user.client.call('workflow-xxxx/removeStage', id, { editVersion: 5, stage: added.stage }), 'InvalidState', 'stage-two.word');
    await user.client.call('workflow-xxxx/update', id, { editVersion: 5, stages: { 'stage-two': { input: { word: null } } } });
    expect(await user.client.call('workflow-xxxx/removeStage', id, { editVersion: 6, stage: added.stage })).toEqual({ id, editVersion: 7 });
    await expectApiError(user.client.call('workflow-xxxx/removeStage', id, { editVersion: 7, stage: 'stage-nope' }), 'InvalidInput', 'stage-nope');

    // Links to missing stages or fields, unknown inputs, values of the wrong class, and cycles are refused.
    await expectApiError(
      user.client.call('workflow-xxxx/addStage', id, { editVersion: 7, executable: applets.consume, input: { word: link('stage-ghost', 'word') } }),
      'InvalidInput',
      'stage-ghost',
    );
    await expectApiError(
      user.client.call('workflow-xxxx/addStage', id, { editVersion: 7, executable: applets.consume, input: { word: link('stage-two', 'nothing') } }),
      'InvalidInput',
      'no such output',
    );
    await expectApiError(
      user.client.call('workflow-xxxx/addStage', id, { editVersion: 7, executable: applets.consume, input: { colour: 'red' } }),
      'InvalidInput',
      'colour',
    );
    await expectApiError(
      user.client.call('workflow-xxxx/addStage', id, { editVersion: 7, executable: applets.produce, input: { times: 'two' } }),
      'InvalidInput',
      '.times',
    );
    await expectApiError(
      user.client.call('workflow/new', {
        project,
        stages: [
          { id: 'stage-a', executable: applets.consume, input: { word: link('stage-b', 'shout') } },
          { id: 'stage-b', executable: applets.consume, input: { word: link('stage-a', 'shout') } },
        ],
      }),
      'InvalidInput',
      'cycle',
    );

    // Closed: no more edits.
    await user.client.call('workflow-xxxx/close', id, {});
    await expectApiError(user.client.call('workflow-xxxx/update', id, { editVersion: 7, title: 'late' }), 'InvalidState', 'closed');
    // Another user cannot see it; a VIEW member cannot edit (it is closed anyway) but can describe it.
    const other = await t.newUser();
    await expectApiError(other.client.call('workflow-xxxx/describe', id, {}), 'ResourceNotFound');
  });

  it('updateStageExecutable and isStageCompatible check the fields bound and linked; overwrite and initializeFrom copy stages', async () => {
    const { id } = await user.client.call('workflow/new', {
      project,
      name: 'swap',
      stages: [
        { id: 'stage-p', executable: applets.produce, input: { text: 'x' } },
        { id: 'stage-c', executable: applets.consume, input: { word: link('stage-p', 'word') } },
      ],
    });
    const compatible = await user.client.call('workflow-xxxx/isStageCompatible', id, { stage: 'stage-p', executable: applets.slow });
    expect(compatible.compatible).toBe(false);
    expect(compatible.incompatibilities.join('\n')).toMatch(/binds the input "text"[\s\S]*stage-c.word links to the output "word"/);
    expect(await user.client.call('workflow-xxxx/isStageCompatible', id, { stage: 'stage-p', executable: applets.produce })).toMatchObject({
      compatible: true,
    });
    await expectApiError(
      user.client.call('workflow-xxxx/updateStageExecutable', id, { editVersion: 0, stage: 'stage-p', executable: applets.slow }),
      'InvalidInput',
      'force',
    );
    const forced = await user.client.call('workflow-xxxx/updateStageExecutable', id, {
      editVersion: 0,
      stage: 'stage-p',
      executable: applets.slow,
      force: true,
    });
    expect(forced).toEqual({ id, editVersion: 1, compatible: false });
    const after = (await user.client.call('workflow-xxxx/describe', id, {})) as Described & { stages: { input: Record<string, unknown> }[] };
    expect(after.stages.map((stage) => stage.input)).toEqual([{}, {}]);

    const copy = await user.client.call('workflow/new', { project, name: 'copy', initializeFrom: { id } });
    const copied = (await user.client.call('workflow-xxxx/describe', copy.id, {})) as Described & { stages: { id: string }[] };
    expect(copied.stages.map((stage) => stage.id)).toEqual(['stage-p', 'stage-c']);
    expect(copied.initializedFrom).toEqual({ id, editVersion: 1 });
    const blank = await user.client.call('workflow/new', { project, name: 'blank' });
    await user.client.call('workflow-xxxx/overwrite', blank.id, { editVersion: 0, from: { id } });
    expect(((await user.client.call('workflow-xxxx/describe', blank.id, {})) as Described & { stages: unknown[] }).stages).toHaveLength(2);
  });

  it('an inaccessible stage makes inputSpec null and stages[].accessible false', async () => {
    const other = await t.newUser();
    const { id: otherProject } = await other.client.call('project/new', { name: 'theirs' });
    const theirApplet = await newApplet(other.client, otherProject, { name: 'theirs', code: 'main() { :; }' });
    const { id: shared } = await other.client.call('project/new', { name: 'shared' });
    await other.client.call('project-xxxx/invite', shared, { invitee: user.id, level: 'VIEW' });
    const { id } = await other.client.call('workflow/new', { project: shared, name: 'hidden', stages: [{ id: 'stage-x', executable: theirApplet }] });
    const described = (await user.client.call('workflow-xxxx/describe', id, {})) as Described & { stages: { accessible: boolean }[] };
    expect(described.stages[0]?.accessible).toBe(false);
    expect(described.inputSpec).toBeNull();
    await expectApiError(user.client.call('workflow-xxxx/addStage', id, { editVersion: 0, executable: applets.produce }), 'PermissionDenied', 'UPLOAD');
  });
});

/** Jobs run on the local executor: SQLite by default, every backend with PANX_ENGINE_ALL_BACKENDS=1. */
const ENGINE_BACKENDS = process.env.PANX_ENGINE_ALL_BACKENDS === '1' ? BACKENDS : BACKENDS.slice(0, 1);

describe.each(ENGINE_BACKENDS)('analyses: runs of workflows through the engine on $name', (backend) => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient };
  let project: string;
  let applets: Awaited<ReturnType<typeof makeApplets>>;
  let pair: string;

  const describeAnalysis = async (id: string, options: Record<string, unknown> = {}) =>
    (await user.client.call('analysis-xxxx/describe', id, options)) as Described & {
      stages: { id: string; execution: Described }[];
      output: Record<string, unknown> | null;
    };
  async function waitForAnalysis(id: string, states = ['done', 'failed', 'terminated'], timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const analysis = await describeAnalysis(id);
      if (states.includes(analysis.state)) return analysis;
      if (Date.now() > deadline) throw new Error(`${id} stayed ${analysis.state}: ${JSON.stringify(analysis).slice(0, 2000)}`);
      await sleep(100);
    }
  }

  beforeAll(async () => {
    t = await startTestPlatform(backend, { engine: { local: { cores: 16, memoryMB: 64_000 }, tickMs: 100 } });
    user = await t.newUser();
    ({ id: project } = await user.client.call('project/new', { name: 'analyses' }));
    applets = await makeApplets(user.client, project);
    ({ id: pair } = await user.client.call('workflow/new', {
      project,
      name: 'pair',
      outputFolder: '/out',
      stages: [
        { id: 'stage-produce', executable: applets.produce, name: 'Produce', folder: 'made' },
        {
          id: 'stage-consume',
          executable: applets.consume,
          name: 'Consume',
          input: {
            word: link('stage-produce', 'word'),
            file: link('stage-produce', 'file'),
            suffix: { $dnanexus_link: { stage: 'stage-produce', inputField: 'text' } },
          },
        },
      ],
    }));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('runs one job per stage wired by stage links; the analysis describes its stages and outputs and is found', async () => {
    const run = await user.client.call('workflow-xxxx/run', pair, {
      project,
      input: { 'stage-produce.text': 'hello' },
      stageFolders: { 'stage-consume': 'used' },
      stageSystemRequirements: { 'stage-consume': { '*': { instanceType: 'mem2_ssd1_x2' } } },
      tags: ['wf'],
      name: 'first run',
    });
    expect(run).toEqual({ id: expect.stringMatching(/^analysis-[0-9A-Za-z]{24}$/), stages: [expect.stringMatching(/^job-/), expect.stringMatching(/^job-/)] });
    const [producer, consumer] = run.stages as [string, string];
    const consumerJob = await waitForJob(user.client, consumer);
    expect(consumerJob.state, JSON.stringify(await logOf(user.client, consumer))).toBe('done');
    expect(consumerJob).toMatchObject({
      rootExecution: run.id,
      parentAnalysis: run.id,
      analysis: run.id,
      stage: 'stage-consume',
      folder: '/out/used',
      instanceType: 'mem2_ssd1_x2',
      output: { shout: 'HELLO!hello' },
      runInput: { word: { $dnanexus_link: { job: producer, field: 'word' } }, file: { $dnanexus_link: { job: producer, field: 'file' } }, suffix: 'hello' },
    });
    const analysis = await waitForAnalysis(run.id);
    expect(analysis).toMatchObject({
      class: 'analysis',
      name: 'first run',
      state: 'done',
      executable: pair,
      executableName: 'pair',
      project,
      folder: '/out',
      tags: ['wf'],
      workflow: { id: pair, stages: [{ id: 'stage-produce' }, { id: 'stage-consume' }] },
      originalInput: { 'stage-produce.text': 'hello', 'stage-consume.suffix': 'hello' },
    });
    expect(analysis.stages.map((stage) => [stage.id, stage.execution.id, stage.execution.state])).toEqual([
      ['stage-produce', producer, 'done'],
      ['stage-consume', consumer, 'done'],
    ]);
    expect(analysis.output).toMatchObject({ 'stage-produce.word': 'hello!', 'stage-consume.shout': 'HELLO!hello' });
    expect(analysis.stateTransitions).toEqual([
      { newState: 'in_progress', setAt: expect.any(Number) },
      { newState: 'done', setAt: expect.any(Number) },
    ]);
    // The producer's file went to its stage folder below the output folder.
    const output = analysis.output as Record<string, { $dnanexus_link: string }>;
    const file = (output['stage-produce.file'] as { $dnanexus_link: string }).$dnanexus_link;
    expect(await user.client.post(file, 'describe', { project })).toMatchObject({ folder: '/out/made', name: 'hello.txt' });
    expect((await downloadBytes(user.client, file, project)).toString()).toBe('hello\n');

    const analyses = await user.client.call('system/findAnalyses', { project, describe: { fields: { state: true } } });
    expect(analyses.results).toEqual([{ id: run.id, describe: { id: run.id, state: 'done' } }]);
    const tree = await user.client.call('system/findExecutions', { rootExecution: [run.id] });
    expect(tree.results.map((result) => result.id).sort()).toEqual([run.id, producer, consumer].sort());
    expect((await user.client.call('system/findJobs', { parentAnalysis: run.id })).results.map((result) => result.id).sort()).toEqual(
      [producer, consumer].sort(),
    );
    const many = await user.client.call('system/describeExecutions', { executions: [run.id, producer] });
    expect(many.results).toMatchObject([{ describe: { class: 'analysis', state: 'done' } }, { describe: { class: 'job', analysis: run.id } }]);

    await user.client.call('analysis-xxxx/addTags', run.id, { tags: ['more'] });
    await user.client.call('analysis-xxxx/setProperties', run.id, { properties: { sample: 'NA1' } });
    await user.client.call('analysis-xxxx/removeTags', run.id, { tags: ['wf'] });
    expect(await describeAnalysis(run.id, { fields: { tags: true, properties: true } })).toEqual({ id: run.id, tags: ['more'], properties: { sample: 'NA1' } });
    const stranger = await t.newUser();
    await expectApiError(stranger.client.call('analysis-xxxx/describe', run.id, {}), 'ResourceNotFound');
  });

  it('reuses the stages of an identical earlier run, except rerunStages', async () => {
    const first = await user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'again' } });
    expect((await waitForAnalysis(first.id)).state).toBe('done');
    const second = await user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'again' } });
    const reused = await waitForAnalysis(second.id);
    expect(reused.state).toBe('done');
    expect(reused.stages.map((stage) => stage.execution.outputReusedFrom)).toEqual(first.stages);
    const third = await user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'again' }, rerunStages: ['stage-consume'] });
    const rerun = await waitForAnalysis(third.id);
    const [producer, consumer] = rerun.stages.map((stage) => stage.execution.outputReusedFrom);
    expect([first.stages[0], second.stages[0]]).toContain(producer);
    expect(consumer).toBeNull();
    expect(rerun.output?.['stage-consume.shout']).toBe('AGAIN!again');
    // dxpy sends ignoreReuse as a list of stages.
    const fourth = await user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'again' }, ignoreReuse: ['stage-consume'] });
    expect((await waitForAnalysis(fourth.id)).stages.map((stage) => stage.execution.outputReusedFrom === null)).toEqual([false, true]);
  });

  it('refuses bad input naming <stage>.<field>: unknown stage or field, missing required input, wrong class; dryRun checks without running', async () => {
    await expectApiError(user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-nope.text': 'x' } }), 'InvalidInput', 'stage-nope');
    await expectApiError(
      user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.colour': 'x' } }),
      'InvalidInput',
      '"stage-produce.colour"',
    );
    await expectApiError(user.client.call('workflow-xxxx/run', pair, { project, input: {} }), 'InvalidInput', '"stage-produce.text"');
    await expectApiError(
      user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'x', 'stage-produce.times': 'two' } }),
      'InvalidInput',
      '"stage-produce.times"',
    );
    await expectApiError(user.client.call('workflow-xxxx/run', pair, { project, input: { text: 'x' } }), 'InvalidInput', '<stageId>.<field>');
    await expectApiError(
      user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'x' }, stageFolders: { 'stage-x': '/a' } }),
      'InvalidInput',
      'stageFolders',
    );
    await expectApiError(
      user.client.call('workflow-xxxx/run', pair, {
        project,
        input: { 'stage-produce.text': 'x' },
        stageSystemRequirements: { 'stage-consume': { '*': { instanceType: 'mem9_huge' } } },
      }),
      'InvalidInput',
      'mem9_huge',
    );
    const before = await user.client.call('system/findAnalyses', { project });
    const dry = await user.client.call('workflow-xxxx/dryRun', pair, { project, input: { 'stage-produce.text': 'dry' } });
    expect(dry.stages).toMatchObject([
      { id: 'stage-produce', folder: '/out/made', input: { text: 'dry', times: 1 } },
      { id: 'stage-consume', folder: '/out', input: { suffix: 'dry', word: { $dnanexus_link: { field: 'word' } } } },
    ]);
    expect((await user.client.call('system/findAnalyses', { project })).results).toHaveLength(before.results.length);
  });

  it('a failed stage fails the stages that depend on it while the others go on (partially_failed), then the analysis fails', async () => {
    const { id } = await user.client.call('workflow/new', {
      project,
      name: 'branches',
      stages: [
        { id: 'stage-bad', executable: applets.fail },
        { id: 'stage-after', executable: applets.consume, input: { word: link('stage-bad', 'never') } },
        { id: 'stage-slow', executable: applets.slow, input: { seconds: 6 } },
      ],
    });
    const run = await user.client.call('workflow-xxxx/run', id, { project, input: {} });
    const partial = await waitForAnalysis(run.id, ['partially_failed', 'failed', 'done']);
    expect(partial.state).toBe('partially_failed');
    expect(partial.failureReason).toBe('AppInternalError');
    const final = await waitForAnalysis(run.id);
    expect(final.state).toBe('failed');
    expect(final.stages.map((stage) => [stage.id, stage.execution.state, stage.execution.failureReason])).toEqual([
      ['stage-bad', 'failed', 'AppInternalError'],
      ['stage-after', 'failed', 'DependencyFailed'],
      ['stage-slow', 'done', null],
    ]);
    expect((final.stateTransitions as { newState: string }[]).map((transition) => transition.newState)).toEqual(['in_progress', 'partially_failed', 'failed']);
    expect((await user.client.call('system/findAnalyses', { project, state: 'failed' })).results.map((result) => result.id)).toEqual([run.id]);
  });

  it('terminate stops every stage job: terminating, then terminated', async () => {
    const { id } = await user.client.call('workflow/new', {
      project,
      name: 'long',
      stages: [
        { id: 'stage-sleep', executable: applets.slow, input: { seconds: 60 } },
        { id: 'stage-then', executable: applets.consume, input: { word: 'x' }, executionPolicy: { onNonRestartableFailure: 'failAllStages' } },
        { id: 'stage-wait', executable: applets.slow, input: { seconds: { $dnanexus_link: { stage: 'stage-sleep', outputField: 'slept' } } } },
      ],
    });
    const run = await user.client.call('workflow-xxxx/run', id, { project, input: {}, rerunStages: ['*'] });
    await waitForJob(user.client, run.stages[0] as string, ['running']);
    await waitForJob(user.client, run.stages[1] as string, ['done']);
    await user.client.call('analysis-xxxx/terminate', run.id, {});
    const final = await waitForAnalysis(run.id, ['terminated', 'failed', 'done'], 30_000);
    expect(final.state).toBe('terminated');
    expect(final.stages.map((stage) => stage.execution.state)).toEqual(['terminated', 'done', 'terminated']);
    expect(final.failureReason).toBe('Terminated');
    expect((final.stateTransitions as { newState: string }[]).map((transition) => transition.newState)).toContain('terminating');
    // Terminating a finished analysis changes nothing.
    await user.client.call('analysis-xxxx/terminate', run.id, {});
    expect((await describeAnalysis(run.id)).state).toBe('terminated');
  });

  it('stops an analysis at its cost limit: the unfinished stages fail with CostLimitExceeded, and so does the analysis; totalPrice sums its stages', async () => {
    const { id } = await user.client.call('workflow/new', {
      project,
      name: 'costly',
      stages: [
        { id: 'stage-long', executable: applets.slow, input: { seconds: 60 } },
        { id: 'stage-longer', executable: applets.slow, input: { seconds: 60 } },
      ],
    });
    // The default instance type costs $0.15 an hour: $0.00004 is about half a second of both stages running.
    const run = await user.client.call('workflow-xxxx/run', id, { project, input: {}, rerunStages: ['*'], costLimit: 0.00004 });
    const final = await waitForAnalysis(run.id, ['failed', 'terminated', 'done'], 30_000);
    expect(final).toMatchObject({ state: 'failed', failureReason: 'CostLimitExceeded', costLimit: 0.00004 });
    const [long, longer] = final.stages.map((stage) => stage.execution);
    expect([long?.state, longer?.state]).toEqual(['failed', 'failed']);
    expect([long?.failureReason, longer?.failureReason]).toEqual(['CostLimitExceeded', 'CostLimitExceeded']);
    const { totalPrice } = (await describeAnalysis(run.id, { fields: { totalPrice: true } })) as unknown as { totalPrice: number };
    const stagePrices = await Promise.all(final.stages.map(async (stage) => (await describeJob(user.client, stage.execution.id)).totalPrice as number));
    expect(totalPrice).toBeGreaterThanOrEqual(0.00004);
    // Every price is rounded to a millionth of a dollar, so the rounded total may differ from the sum of the
    // rounded stage prices by half a millionth per stage.
    const sumOfStages = stagePrices.reduce((sum, price) => sum + price, 0);
    expect(Math.abs(totalPrice - sumOfStages)).toBeLessThanOrEqual(0.5e-6 * stagePrices.length + 1e-12);
  });

  it('links to another analysis’s outputs become references to its stage jobs', async () => {
    const first = await user.client.call('workflow-xxxx/run', pair, { project, input: { 'stage-produce.text': 'chain' } });
    const { id } = await user.client.call('workflow/new', { project, name: 'single', stages: [{ id: 'stage-only', executable: applets.consume }] });
    const second = await user.client.call('workflow-xxxx/run', id, {
      project,
      input: { 'stage-only.word': { $dnanexus_link: { analysis: first.id, field: 'stage-consume.shout' } } },
    });
    const done = await waitForAnalysis(second.id);
    expect(done.output).toEqual({ 'stage-only.shout': 'CHAIN!CHAIN' });
    // A workflow initialized from an analysis: its workflow as run, with its input bound.
    const again = await user.client.call('workflow/new', { project, name: 'from analysis', initializeFrom: { id: first.id } });
    const described = (await user.client.call('workflow-xxxx/describe', again.id, {})) as Described & {
      stages: { id: string; input: Record<string, unknown> }[];
    };
    expect(described.stages.map((stage) => stage.id)).toEqual(['stage-produce', 'stage-consume']);
    expect(described.stages[0]?.input).toEqual({ text: 'chain' });
    expect(described.initializedFrom).toMatchObject({ id: first.id });
  });
});
