import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PxOptions, pxOk, runPx, tempDir } from '../../cli/test/run-px.js';
import { bootstrap } from '../src/bootstrap.js';
import { syntheticGenome } from '../src/demo/synthetic-genome.js';
import { APPS_DIR, requireBioTools, truthCalls, vcfCalls } from './apps-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/**
 * The germline workflow end to end, as the README's tour runs it: the first start builds it in the
 * demo project from apps/workflows/germline_variants.json and the catalogue's apps, with the demo
 * data bound; `px run "Demo project:/germline_variants" -y --watch` runs the four stages through the
 * engine, and the VCF holds exactly the planted SNPs. On the local executor, and on Slurm with one
 * setting changed (the single-node cluster of scripts/ensure-slurm.sh; PANX_SKIP_SLURM=1 skips it).
 */
const EXECUTORS = process.env.PANX_SKIP_SLURM === '1' ? (['local'] as const) : (['local', 'slurm'] as const);

describe.each(EXECUTORS)('the germline workflow on the demo data, %s executor', (executor) => {
  let t: TestPlatform;
  let home: string;
  let demo: string;
  const opts = (): PxOptions => ({ configDir: home });
  const ok = (...args: string[]) => pxOk(args, opts());
  const start = () => bootstrap({ ...t.platform, config: { ...t.platform.config, createDemoProject: true } });

  beforeAll(async () => {
    requireBioTools();
    t = await startTestPlatform(undefined, {
      engine: executor === 'slurm' ? { executor, slurm: { pollMs: 100, statePollMs: 300 }, tickMs: 100 } : { tickMs: 100 },
    });
    await start();
    home = tempDir('px-germline-home-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    await ok('select', 'Demo project');
    demo = (await t.admin.call('system/findProjects', { name: 'Demo project' })).results[0]?.id as string;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('is built at start-up from the JSON and the catalogue, once, closed, with the demo data bound', async () => {
    const found = await t.admin.call('system/findDataObjects', { class: 'workflow', scope: { project: demo }, describe: true });
    expect(found.results).toHaveLength(1);
    const id = found.results[0]?.id as string;
    const described = (await t.admin.call('workflow-xxxx/describe', id, { project: demo })) as { id: string } & Record<string, unknown> & {
        stages: { id: string; executable: string; folder: string; accessible: boolean; input: Record<string, unknown> }[];
        inputSpec: { name: string; optional?: boolean }[];
      };
    const source = JSON.parse(fs.readFileSync(path.join(APPS_DIR, 'workflows', 'germline_variants.json'), 'utf8')) as {
      stages: { id: string; folder: string; input: Record<string, unknown> }[];
    };
    expect(described).toMatchObject({ name: 'germline_variants', folder: '/', state: 'closed', outputFolder: '/results/germline_variants' });
    expect(described.stages.map((stage) => [stage.id, stage.folder, stage.accessible])).toEqual(source.stages.map((stage) => [stage.id, stage.folder, true]));
    for (const [index, stage] of described.stages.entries()) {
      expect(stage.executable).toMatch(/^app-[0-9A-Za-z]{24}$/);
      expect(stage.input).toMatchObject(source.stages[index]?.input ?? {});
    }
    // Every required input is bound: nothing left to give.
    expect(described.inputSpec.filter((item) => !item.optional && !('default' in item))).toEqual([]);
    expect(described.stages[0]?.input.reads).toEqual({ $dnanexus_link: { project: demo, id: expect.stringMatching(/^file-/) } });
    // As a document again, with the apps by name and version.
    const exported = await t.admin.call('workflow-xxxx/export', id, {});
    expect((exported.document as { stages: { executable: string }[] }).stages.map((stage) => stage.executable)).toEqual([
      'app-fastp/1.0.0',
      'app-bwa_mem/1.0.0',
      'app-samtools_sort_index/1.0.0',
      'app-bcftools_call/1.0.0',
    ]);
    await start();
    expect((await t.admin.call('system/findDataObjects', { class: 'workflow', scope: { project: demo } })).results).toHaveLength(1);
  });

  it('px run "Demo project:/germline_variants" -y --watch: four stage jobs, and a VCF of exactly the planted SNPs', async () => {
    const run = await runPx(['run', 'Demo project:/germline_variants', '-y', '--watch'], opts());
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const analysis = run.stdout.split('\n')[0]?.trim() as string;
    expect(analysis).toMatch(/^analysis-/);
    expect(run.stdout).toContain('variant records: 10');
    const described = JSON.parse(await ok('describe', analysis, '--json')) as {
      state: string;
      output: Record<string, unknown>;
      stages: { id: string; execution: { state: string; folder: string } }[];
    };
    expect(described.state).toBe('done');
    expect(described.stages.map((stage) => [stage.id, stage.execution.state, stage.execution.folder])).toEqual([
      ['stage-fastp', 'done', '/results/germline_variants/qc'],
      ['stage-bwa_mem', 'done', '/results/germline_variants/alignment'],
      ['stage-sort', 'done', '/results/germline_variants/alignment'],
      ['stage-call', 'done', '/results/germline_variants/variants'],
    ]);
    expect(described.output['stage-call.variant_count']).toBe(10);
    expect((await ok('ls', '/results/germline_variants/variants')).split('\n').filter(Boolean).sort()).toEqual(['sample1.vcf.gz', 'sample1.vcf.gz.tbi']);
    const vcf = path.join(home, 'sample1.vcf.gz');
    await ok('download', '/results/germline_variants/variants/sample1.vcf.gz', '-o', vcf);
    expect(vcfCalls(fs.readFileSync(vcf))).toEqual(truthCalls(syntheticGenome().truth));
  }, 240_000);
});
