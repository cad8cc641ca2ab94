import fs from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PxOptions, pxOk, runPx, tempDir } from '../../cli/test/run-px.js';
import { bootstrap } from '../src/bootstrap.js';
import { syntheticGenome } from '../src/demo/synthetic-genome.js';
import { APPS_DIR, requireBioTools, truthCalls, vcfCalls } from './apps-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/**
 * What a new user does after `npm start`, end to end through the CLI and the engine: log in, select
 * the demo project, `px build` the germline apps from apps/ into it, `px run` them chained by job
 * references (fastp → bwa_mem → samtools_sort_index → bcftools_call) on the demo data, `px watch`
 * the last one, download the VCF: exactly the planted SNPs.
 */

const CHAIN = ['fastp', 'bwa_mem', 'samtools_sort_index', 'bcftools_call'];

describe('the germline apps built and run with px on the demo data', () => {
  let t: TestPlatform;
  let home: string;
  const opts = (): PxOptions => ({ configDir: home });
  const ok = (...args: string[]) => pxOk(args, opts());

  beforeAll(async () => {
    requireBioTools();
    t = await startTestPlatform(undefined, { engine: { tickMs: 100 } });
    await bootstrap({ ...t.platform, config: { ...t.platform.config, createDemoProject: true } });
    home = tempDir('px-apps-home-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    await ok('select', 'Demo project');
  }, 60_000);
  afterAll(async () => {
    // Keep-alive connections left over after the jobs can hold up the server's close for fastify's
    // 72 s keepAliveTimeout; every test is over, so close them all first.
    await t?.platform.scheduler?.close();
    (t?.platform.http.server as Server | undefined)?.closeAllConnections();
    await t?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('px build, px run chained by job references, px watch: the VCF holds exactly the planted SNPs', async () => {
    await ok('mkdir', '-p', '/applets');
    const applets: Record<string, string> = {};
    for (const name of CHAIN) {
      const built = JSON.parse(await ok('build', path.join(APPS_DIR, name), '--destination', '/applets/')) as { id: string };
      expect(built.id).toMatch(/^applet-/);
      applets[name] = built.id;
    }
    const run = async (name: string, ...inputs: string[]) =>
      (await ok('run', applets[name] as string, ...inputs.map((input) => `-i${input}`), '--folder', '/results/germline', '-y')).trim();
    const fastp = await run('fastp', 'reads=/reads/sample1_R1.fastq.gz', 'reads2=/reads/sample1_R2.fastq.gz');
    const bwa = await run('bwa_mem', `reads=${fastp}:trimmed_reads`, `reads2=${fastp}:trimmed_reads2`, 'reference=/reference/chrT.fa');
    const sort = await run('samtools_sort_index', `bam=${bwa}:bam`);
    const call = await run('bcftools_call', `sorted_bam=${sort}:sorted_bam`, `bam_index=${sort}:bam_index`, 'reference=/reference/chrT.fa');
    for (const job of [fastp, bwa, sort, call]) expect(job).toMatch(/^job-[0-9A-Za-z]{24}$/);

    const watched = await runPx(['watch', call], { ...opts() });
    const states = await Promise.all([fastp, bwa, sort, call].map(async (job) => ((await t.admin.post(job, 'describe', {})) as { state: string }).state));
    expect(watched.code, `${watched.stderr}\n${watched.stdout.slice(-3000)}\n${states.join(' ')}`).toBe(0);
    expect(states).toEqual(['done', 'done', 'done', 'done']);
    expect(watched.stdout).toContain('variant records: 10');

    expect((await ok('ls', '/results/germline')).split('\n').filter(Boolean).sort()).toEqual(
      [
        'sample1.bam',
        'sample1.fastp.html',
        'sample1.fastp.json',
        'sample1.flagstat.txt',
        'sample1.sorted.bam',
        'sample1.sorted.bam.bai',
        'sample1.vcf.gz',
        'sample1.vcf.gz.tbi',
        'sample1_R1.trimmed.fastq.gz',
        'sample1_R2.trimmed.fastq.gz',
      ].sort(),
    );
    const vcf = path.join(home, 'sample1.vcf.gz');
    await ok('download', '/results/germline/sample1.vcf.gz', '-o', vcf);
    expect(vcfCalls(fs.readFileSync(vcf))).toEqual(truthCalls(syntheticGenome().truth));
    const described = JSON.parse(await ok('describe', call, '--json')) as { output: Record<string, unknown> };
    expect(described.output.variant_count).toBe(10);
  }, 180_000);
});
