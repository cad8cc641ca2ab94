import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { PanxClient } from '@panx/client';
import type { IoSpecItem } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../src/bootstrap.js';
import { bundledAppsEnabled, listAppFolders, loadAppCatalogue, readAppFolder } from '../src/demo/app-catalogue.js';
import { syntheticGenome } from '../src/demo/synthetic-genome.js';
import { APPS_DIR, requireBioTools, truthCalls, vcfCalls } from './apps-helpers.js';
import { downloadBytes } from './data-helpers.js';
import { logOf, waitForJob } from './engine-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/**
 * First start with the demo project: the synthetic data set lands in the demo project, the bundled
 * apps in the app catalogue (published, default, open to everyone), a second start changes nothing;
 * then the apps run through the engine (app-xxxx/run, chained by job-based references, as the
 * germline workflow chains them) on the demo data and call exactly the planted SNPs.
 */

const APP_NAMES = ['bcftools_call', 'bwa_mem', 'fastp', 'minimap2', 'samtools_sort_index', 'seqtk_sample', 'url_fetcher'];
type Link = { $dnanexus_link: string };
const idOf = (value: unknown) => (value as Link).$dnanexus_link;

describe('bundled apps and demo data at start-up', () => {
  let t: TestPlatform;
  let demo: string;
  const firstStart = async () => bootstrap({ ...t.platform, config: { ...t.platform.config, createDemoProject: true } });

  beforeAll(async () => {
    requireBioTools();
    t = await startTestPlatform(undefined, { engine: { tickMs: 100 } });
  }, 60_000);
  afterAll(async () => {
    // Keep-alive connections left over after the jobs can hold up the server's close for fastify's
    // 72 s keepAliveTimeout; every test is over, so close them all first.
    await t?.platform.scheduler?.close();
    (t?.platform.http.server as Server | undefined)?.closeAllConnections();
    await t?.close();
  });

  it('the first start fills the demo project with the synthetic data set and the catalogue with the apps', async () => {
    const started = performance.now();
    await firstStart();
    expect(performance.now() - started).toBeLessThan(5000);
    const projects = await t.admin.call('system/findProjects', { name: 'Demo project', describe: true });
    expect(projects.results).toHaveLength(1);
    demo = projects.results[0]?.id as string;
    const genome = syntheticGenome();
    const listing = async (folder: string) => {
      const { objects } = (await t.admin.post(demo, 'listFolder', { folder, describe: { fields: { name: true, state: true, tags: true } } })) as {
        objects: { id: string; describe: { name: string; state: string; tags: string[] } }[];
      };
      return objects;
    };
    const reads = await listing('/reads');
    expect(reads.map((o) => o.describe.name).sort()).toEqual(['sample1_R1.fastq.gz', 'sample1_R2.fastq.gz']);
    expect(reads.every((o) => o.describe.state === 'closed' && o.describe.tags.includes('synthetic'))).toBe(true);
    const reference = await listing('/reference');
    expect(reference.map((o) => o.describe.name).sort()).toEqual(['chrT.fa', 'chrT.planted_snps.tsv']);
    const byName = (objects: typeof reads, name: string) => objects.find((o) => o.describe.name === name)?.id as string;
    expect((await downloadBytes(t.admin, byName(reference, 'chrT.fa'))).toString('utf8')).toBe(genome.referenceFasta);
    expect((await downloadBytes(t.admin, byName(reference, 'chrT.planted_snps.tsv'))).toString('utf8')).toBe(genome.truthTsv);
    expect((await downloadBytes(t.admin, byName(reads, 'sample1_R2.fastq.gz'))).equals(genome.reads2FastqGz)).toBe(true);

    const apps = await t.admin.call('system/findApps', { describe: { fields: { name: true, version: true, published: true, categories: true } } });
    const described = apps.results.map((r) => r.describe as { name: string; version: string; published: number; categories: string[] });
    expect(described.map((d) => d.name).sort()).toEqual(APP_NAMES);
    expect(described.every((d) => d.version === '1.0.0' && d.published > 0)).toBe(true);
    expect(described.find((d) => d.name === 'fastp')?.categories).toContain('Read QC');
    // The code is the script of the folder; describe leaves it out.
    const got = (await t.admin.post('app-bwa_mem', 'get', {})) as { runSpec: { code: string; file?: string } };
    expect(got.runSpec.code).toBe(fs.readFileSync(path.join(APPS_DIR, 'bwa_mem', 'src', 'bwa_mem.sh'), 'utf8'));
    expect(got.runSpec.file).toBeUndefined();
    // Open to every user, by name, name/version and the default tag.
    const user = await t.newUser();
    for (const ref of ['app-fastp', 'app-fastp/1.0.0', 'app-fastp/default']) {
      expect(((await user.client.post(ref, 'describe', {})) as { name: string }).name).toBe('fastp');
    }
    const visible = await user.client.call('system/findApps', {});
    expect(visible.results).toHaveLength(APP_NAMES.length);
  });

  it('a second start adds nothing: one demo project, one version of each app', async () => {
    await firstStart();
    expect((await t.admin.call('system/findProjects', { name: 'Demo project' })).results).toHaveLength(1);
    expect((await t.admin.call('system/findApps', { allVersions: true })).results).toHaveLength(APP_NAMES.length);
    const admin = { userId: 'user-admin', tokenId: 'test', tokenKind: 'api' as const, isAdmin: true, scope: null };
    const again = await loadAppCatalogue(t.platform.services, admin);
    expect(again).toEqual({ created: [], existing: APP_NAMES.map((name) => `${name}/1.0.0`), failed: [] });
  });

  it('a broken app folder is reported and skipped; PANX_BUNDLED_APPS overrides the demo setting', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-apps-'));
    try {
      fs.mkdirSync(path.join(dir, 'broken'));
      fs.writeFileSync(path.join(dir, 'broken', 'dxapp.json'), '{"name": "broken", "runSpec": {"interpreter": "bash", "file": "src/missing.sh"}}');
      fs.mkdirSync(path.join(dir, 'tiny', 'src'), { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'tiny', 'dxapp.json'),
        JSON.stringify({ name: 'tiny', version: '0.1.0', inputSpec: [], outputSpec: [], runSpec: { interpreter: 'bash', file: 'src/tiny.sh' } }),
      );
      fs.writeFileSync(path.join(dir, 'tiny', 'src', 'tiny.sh'), 'main() { :; }\n');
      const admin = { userId: 'user-admin', tokenId: 'test', tokenKind: 'api' as const, isAdmin: true, scope: null };
      const result = await loadAppCatalogue(t.platform.services, admin, { appsDir: dir });
      expect(result.created).toEqual(['tiny/0.1.0']);
      expect(result.failed).toEqual([{ folder: path.join(dir, 'broken'), error: expect.stringContaining('missing.sh') }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(bundledAppsEnabled(true, {})).toBe(true);
    expect(bundledAppsEnabled(false, {})).toBe(false);
    expect(bundledAppsEnabled(false, { PANX_BUNDLED_APPS: '1' })).toBe(true);
    expect(bundledAppsEnabled(true, { PANX_BUNDLED_APPS: 'false' })).toBe(false);
  });

  it('the apps run through the engine on the demo data, chained by job references, and call exactly the planted SNPs', async () => {
    const client: PanxClient = t.admin;
    const find = async (name: string) => {
      const { results } = await client.call('system/findDataObjects', { scope: { project: demo }, name, class: 'file' });
      return { $dnanexus_link: { project: demo, id: results[0]?.id as string } };
    };
    const reference = await find('chrT.fa');
    const runApp = async (app: string, input: Record<string, unknown>) =>
      ((await client.post(`app-${app}`, 'run', { project: demo, folder: '/results/engine-test', input })) as { id: string }).id;
    const fastp = await runApp('fastp', { reads: await find('sample1_R1.fastq.gz'), reads2: await find('sample1_R2.fastq.gz') });
    const ref = (job: string, field: string) => ({ $dnanexus_link: { job, field } });
    const bwa = await runApp('bwa_mem', { reads: ref(fastp, 'trimmed_reads'), reads2: ref(fastp, 'trimmed_reads2'), reference });
    const sort = await runApp('samtools_sort_index', { bam: ref(bwa, 'bam') });
    const call = await runApp('bcftools_call', { sorted_bam: ref(sort, 'sorted_bam'), bam_index: ref(sort, 'bam_index'), reference });
    for (const job of [fastp, bwa, sort, call]) {
      const done = await waitForJob(client, job, ['done', 'failed', 'terminated'], 120_000);
      expect(done.state, JSON.stringify({ done, log: (await logOf(client, job)).slice(-40) }, null, 2)).toBe('done');
    }
    const output = (await waitForJob(client, call)).output as Record<string, unknown>;
    expect(output.variant_count).toBe(10);
    const vcf = idOf(output.vcf);
    const described = (await client.post(vcf, 'describe', { project: demo })) as { folder: string; name: string };
    expect([described.folder, described.name]).toEqual(['/results/engine-test', 'sample1.vcf.gz']);
    const truth = (await downloadBytes(client, (await find('chrT.planted_snps.tsv')).$dnanexus_link.id, demo)).toString('utf8');
    const planted = truth
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t'))
      .map(([chrom, pos, refBase, alt, genotype]) => ({ chrom, pos: Number(pos), ref: refBase, alt, genotype }));
    const calls = vcfCalls(await downloadBytes(client, vcf, demo));
    expect(calls).toEqual(planted);
    expect(calls).toEqual(truthCalls(syntheticGenome().truth));
    expect(gunzipSync(await downloadBytes(client, vcf, demo)).toString('utf8')).toMatch(/\tsample1\n/);
  }, 180_000);

  it('the germline workflow file is what workflow/new takes: accepted as it is, its stages accessible, only the reads left to give', async () => {
    // Running it end to end is workflows.germline.e2e.test.ts (px run on the demo project's copy).
    const client: PanxClient = t.admin;
    const document = JSON.parse(fs.readFileSync(path.join(APPS_DIR, 'workflows', 'germline_variants.json'), 'utf8')) as Record<string, unknown>;
    const { id: workflow } = (await client.post('workflow', 'new', { ...document, project: demo, folder: '/', name: 'germline_variants (workflow/new)' })) as {
      id: string;
    };
    const described = (await client.post(workflow, 'describe', { project: demo })) as {
      stages: { id: string; accessible: boolean }[];
      inputSpec: { name: string; optional?: boolean; default?: unknown }[];
    };
    expect(described.stages.map((stage) => [stage.id, stage.accessible])).toEqual([
      ['stage-fastp', true],
      ['stage-bwa_mem', true],
      ['stage-sort', true],
      ['stage-call', true],
    ]);
    // Required: the reads; the reference (or a BWA index) is optional for bwa_mem; the rest is wired or has a default.
    const required = described.inputSpec.filter((item) => !item.optional && item.default === undefined).map((item) => item.name);
    expect(required).toEqual(['stage-fastp.reads']);
    const names = described.inputSpec.map((item) => item.name);
    expect(names).toEqual(expect.arrayContaining(['stage-fastp.reads2', 'stage-bwa_mem.reference', 'stage-bwa_mem.reference_index']));
    expect(described.inputSpec.find((item) => item.name === 'stage-bwa_mem.reads')?.optional).toBe(true); // bound to fastp's output
  });
});

describe('the germline workflow definition', () => {
  const workflow = JSON.parse(fs.readFileSync(path.join(APPS_DIR, 'workflows', 'germline_variants.json'), 'utf8')) as {
    name: string;
    stages: { id: string; executable: string; folder?: string; input?: Record<string, unknown> }[];
  };
  const apps = new Map(listAppFolders(APPS_DIR).map((folder) => [path.basename(folder), readAppFolder(folder).spec]));

  it('chains fastp → bwa_mem → samtools_sort_index → bcftools_call with links to fields that exist, of matching classes', () => {
    expect(workflow.name).toBe('germline_variants');
    const stageApps = workflow.stages.map((stage) => /^app-([a-z0-9_]+)\/([0-9.]+)$/.exec(stage.executable)?.slice(1));
    expect(stageApps.map((match) => match?.[0])).toEqual(['fastp', 'bwa_mem', 'samtools_sort_index', 'bcftools_call']);
    const specOf = (stageId: string) => {
      const index = workflow.stages.findIndex((stage) => stage.id === stageId);
      expect(index, stageId).toBeGreaterThanOrEqual(0);
      const [name, version] = stageApps[index] as [string, string];
      const spec = apps.get(name);
      expect(spec?.version).toBe(version);
      return { index, inputSpec: (spec?.inputSpec ?? []) as IoSpecItem[], outputSpec: (spec?.outputSpec ?? []) as IoSpecItem[] };
    };
    let links = 0;
    workflow.stages.forEach((stage, index) => {
      expect(stage.id).toMatch(/^stage-[A-Za-z0-9_-]+$/);
      const { inputSpec } = specOf(stage.id);
      for (const [field, value] of Object.entries(stage.input ?? {})) {
        const target = inputSpec.find((item) => item.name === field);
        expect(target, `${stage.id}.${field}`).toBeDefined();
        const link = (value as { $dnanexus_link: { stage: string; outputField?: string; inputField?: string } }).$dnanexus_link;
        const source = specOf(link.stage);
        expect(source.index, `${stage.id}.${field} links to a later stage`).toBeLessThan(index);
        const from = link.outputField
          ? source.outputSpec.find((item) => item.name === link.outputField)
          : source.inputSpec.find((item) => item.name === link.inputField);
        expect(from, JSON.stringify(link)).toBeDefined();
        expect(from?.class).toBe(target?.class);
        links++;
      }
    });
    expect(links).toBe(6);
    expect(new Set(workflow.stages.map((stage) => stage.id)).size).toBe(4);
  });
});
