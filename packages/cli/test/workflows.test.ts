import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newApplet } from '../../server/test/engine-helpers.js';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type PxOptions, pxOk, runPx, tempDir } from './run-px.js';

/** px new workflow, add/remove/list stages, import/export, run with -i<stage>.<field>, describe and watch an analysis. */
describe('px workflows against a real server', () => {
  let t: TestPlatform;
  let home: string;
  let project: string;
  let shout: string;
  let count: string;
  const opts = (extra: Partial<PxOptions> = {}): PxOptions => ({ configDir: home, ...extra });
  const px = (...args: string[]) => runPx(args, opts());
  const ok = (...args: string[]) => pxOk(args, opts());

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 8, memoryMB: 64_000 }, tickMs: 100 } });
    home = tempDir('px-workflows-home-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    project = (await ok('new', 'project', 'workflows', '--select')).trim();
    shout = await newApplet(t.admin, project, {
      name: 'shout',
      inputSpec: [{ name: 'word', class: 'string' }],
      outputSpec: [{ name: 'loud', class: 'string' }],
      code: `main() { echo "shouting $word"; jq -n --arg l "\${word^^}" '{loud: $l}' > job_output.json; }`,
    });
    count = await newApplet(t.admin, project, {
      name: 'count',
      inputSpec: [
        { name: 'text', class: 'string' },
        { name: 'times', class: 'int', default: 1 },
      ],
      outputSpec: [{ name: 'length', class: 'int' }],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash, not a template
      code: 'main() { echo "counting $text x$times"; echo "{\\"length\\": $(( ${#text} * times ))}" > job_output.json; }',
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('creates a workflow, adds, lists and removes stages, runs it with -i<index>.<field> and -i<name>.<field>, watches and describes the analysis', async () => {
    const workflow = (await ok('new', 'workflow', '/pipelines/loud', '--title', 'Loud', '-p')).trim();
    expect(workflow).toMatch(/^workflow-[0-9A-Za-z]{24}$/);
    // Stages: the applet by path, by ID; a bound input linking to the first stage's output.
    const first = (await ok('add', 'stage', '/pipelines/loud', '/shout', '--name', 'Shout', '--id', 'stage-shout')).trim();
    expect(first).toBe('stage-shout');
    const second = (await ok('add', 'stage', workflow, count, '--name', 'Count', '-itext=stage-shout.loud', '--folder', 'counts')).trim();
    expect(second).toMatch(/^stage-/);
    const extra = (await ok('add', 'stage', workflow, shout, '--name', 'Spare')).trim();
    await ok('remove', 'stage', workflow, 'Spare');
    const listed = await ok('list', 'stages', workflow);
    expect(listed).toMatch(/0\s+stage-shout\s+Shout\s+applet-/);
    expect(listed).toContain(`1  ${second}  Count`);
    expect(listed).toContain('text=stage-shout.loud');
    expect(listed).not.toContain(extra);
    const stages = JSON.parse(await ok('list', 'stages', workflow, '--json')) as { id: string }[];
    expect(stages.map((stage) => stage.id)).toEqual(['stage-shout', second]);

    // A missing input is named; an unknown stage too.
    const missing = await px('run', workflow, '-y');
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('-istage-shout.word=<string>');
    expect((await px('run', workflow, '-inope.word=x', '-y')).stderr).toMatch(/no stage "nope"/);

    const run = await px('run', '/pipelines/loud', '-i0.word=hello', '-iCount.times=3', '-y', '--watch', '--folder', '/out');
    expect(run.code, run.stderr).toBe(0);
    const analysis = run.stdout.split('\n')[0]?.trim() ?? '';
    expect(analysis).toMatch(/^analysis-[0-9A-Za-z]{24}$/);
    expect(run.stdout).toContain('shouting hello');
    expect(run.stdout).toContain('counting HELLO x3');
    expect(run.stderr).toContain(`${analysis} is done`);

    const described = JSON.parse(await ok('describe', analysis, '--json')) as {
      state: string;
      output: Record<string, unknown>;
      stages: { id: string; execution: { folder: string } }[];
    };
    expect(described.state).toBe('done');
    expect(described.output).toEqual({ 'stage-shout.loud': 'HELLO', [`${second}.length`]: 15 });
    expect(described.stages.map((stage) => stage.execution.folder)).toEqual(['/out', '/out/counts']);
    const text = await ok('describe', analysis);
    expect(text).toMatch(/State\s+done/);
    expect(text).toMatch(/0\s+stage-shout\s+Shout\s+job-\S+\s+done/);

    const watched = await px('watch', analysis);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain('counting HELLO x3');
  });

  it('edits a workflow: update workflow, update stage (name, folder, inputs, executable), move stage', async () => {
    const workflow = (await ok('new', 'workflow', '/pipelines/edited', '-p')).trim();
    await ok('add', 'stage', workflow, shout, '--name', 'First', '--id', 'stage-first', '-iword=hi');
    await ok('add', 'stage', workflow, count, '--name', 'Second', '--id', 'stage-second', '-itext=stage-first.loud');
    await ok('update', 'workflow', workflow, '--title', 'Edited', '--summary', 'two stages', '--output-folder', '/edited');
    await ok('update', 'stage', workflow, 'Second', '--name', 'Counter', '--folder', 'counts', '-itimes=3', '--instance-type', 'mem2_ssd1_x1');
    await ok('update', 'stage', workflow, '0', '-iword=');
    type Described = {
      title: string;
      summary: string;
      outputFolder: string;
      stages: { id: string; name: string; folder: string; executable: string; input: Record<string, unknown>; systemRequirements?: unknown }[];
    };
    const describe = async () => (await t.admin.call('workflow-xxxx/describe', workflow, {})) as unknown as Described;
    let described = await describe();
    expect(described).toMatchObject({ title: 'Edited', summary: 'two stages', outputFolder: '/edited' });
    expect(described.stages[0]?.input).toEqual({});
    expect(described.stages[1]).toMatchObject({
      name: 'Counter',
      folder: 'counts',
      input: { text: { $dnanexus_link: { stage: 'stage-first', outputField: 'loud' } }, times: 3 },
      systemRequirements: { '*': { instanceType: 'mem2_ssd1_x1' } },
    });
    await ok('move', 'stage', workflow, 'Counter', '0');
    described = await describe();
    expect(described.stages.map((stage) => stage.id)).toEqual(['stage-second', 'stage-first']);
    // Another executable: refused while a bound field does not fit, accepted with --force.
    const incompatible = await runPx(['update', 'stage', workflow, 'stage-second', '--executable', shout], opts());
    expect(incompatible.code).not.toBe(0);
    expect(incompatible.stderr).toMatch(/text|times/);
    await ok('update', 'stage', workflow, 'stage-second', '--executable', shout, '--force');
    expect((await describe()).stages[0]?.executable).toBe(shout);
    const nothing = await runPx(['update', 'stage', workflow, 'stage-first'], opts());
    expect(nothing.code).not.toBe(0);
    expect(nothing.stderr).toContain('nothing to change');
  });

  it('imports a workflow file and exports it back; run --watch exits 3 when a stage fails', async () => {
    const file = path.join(home, 'pair.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        name: 'pair',
        title: 'A pair',
        stages: [
          { id: 'stage-a', name: 'A', executable: shout, input: { word: 'imported' } },
          { id: 'stage-b', name: 'B', executable: count, folder: 'b', input: { text: { $dnanexus_link: { stage: 'stage-a', outputField: 'loud' } } } },
        ],
      }),
    );
    await ok('mkdir', '/imported');
    const imported = (await ok('import', 'workflow', file, '-d', '/imported')).trim();
    expect(imported).toMatch(/^workflow-/);
    const exported = JSON.parse(await ok('export', 'workflow', '/imported/pair')) as Record<string, unknown>;
    expect(exported).toEqual({
      name: 'pair',
      title: 'A pair',
      stages: [
        { id: 'stage-a', name: 'A', executable: shout, input: { word: 'imported' } },
        { id: 'stage-b', name: 'B', executable: count, folder: 'b', input: { text: { $dnanexus_link: { stage: 'stage-a', outputField: 'loud' } } } },
      ],
    });
    const out = path.join(home, 'exported.json');
    await ok('export', 'workflow', imported, '-o', out);
    expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual(exported);
    expect((await px('import', 'workflow', path.join(home, 'missing.json'))).stderr).toContain('cannot read');

    // A stage bound to a value of the wrong class fails at run time... by refusal: InvalidInput names the field.
    const bad = await px('run', imported, '-iB.times=many', '-y');
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('not an integer');
    const failing = await newApplet(t.admin, project, { name: 'failing', code: 'main() { echo broken >&2; exit 1; }' });
    const broken = (await ok('new', 'workflow', 'broken')).trim();
    await ok('add', 'stage', broken, failing, '--name', 'Broken');
    const run = await px('run', broken, '-y', '--watch');
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/analysis-\S+ is failed: AppInternalError/);
  });
});
