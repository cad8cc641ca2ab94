import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { IoSpecItem } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAppFolder } from '../src/demo/app-catalogue.js';
import { loadDemoData } from '../src/demo/demo-data.js';
import type { SyntheticGenome } from '../src/demo/synthetic-genome.js';
import { APPS_DIR, JOB_PATH, requireBioTools, run, startJobStandIn, truthCalls, vcfCalls } from './apps-helpers.js';
import { uploadFile } from './data-helpers.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

/**
 * Each bundled app's script in a simulated job, against a real server, without the engine: a project
 * stands in for the workspace, a stand-in answers the job's describe (function main, the applet made
 * from the app folder with applet/new), HOME holds job_input.json with links, PATH has the worker
 * tools, and the script runs as the platform runs it:
 * `bash -e -c 'cd $HOME; source <(dx-print-bash-vars); source src/x.sh; main'`.
 * The apps are chained by hand (fastp → bwa_mem → samtools_sort_index → bcftools_call) on the demo
 * data, and the calls must be exactly the planted SNPs.
 */

const JOB = 'job-000000000000000000APPSJ';
type Link = { $dnanexus_link: string };
const linkTo = (id: string): Link => ({ $dnanexus_link: id });
const idOf = (value: unknown) => (value as Link).$dnanexus_link;

interface JobRun {
  code: number | null;
  stdout: string;
  stderr: string;
  output: Record<string, unknown>;
  error: { error: { type: string; message: string } } | undefined;
}

describe('bundled apps in a simulated job environment', () => {
  let t: TestPlatform;
  let workspace: string;
  let standIn: Awaited<ReturnType<typeof startJobStandIn>>;
  let genome: SyntheticGenome;
  let files: Record<string, string>;
  const homes: string[] = [];
  const applets = new Map<string, { id: string; inputSpec: IoSpecItem[] }>();
  const outputs: Record<string, Record<string, unknown>> = {};

  beforeAll(async () => {
    requireBioTools();
    t = await startTestPlatform();
    workspace = (await t.admin.call('project/new', { name: 'workspace stand-in' })).id;
    const admin = { userId: 'user-admin', tokenId: 'test', tokenKind: 'api' as const, isAdmin: true, scope: null };
    ({ genome, files } = await loadDemoData(t.platform.services, admin, workspace));
    standIn = await startJobStandIn(t.url, JOB);
  }, 60_000);
  afterAll(async () => {
    await standIn?.close();
    await t?.close();
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  });

  /** applet/new from the app folder (once per app), as `dx build` sends it. */
  async function applet(name: string): Promise<{ id: string; inputSpec: IoSpecItem[]; script: string }> {
    const folder = readAppFolder(path.join(APPS_DIR, name));
    let known = applets.get(name);
    if (!known) {
      const { id } = (await t.admin.post('applet', 'new', { ...folder.spec, project: workspace, folder: '/', name })) as { id: string };
      known = { id, inputSpec: (folder.spec.inputSpec ?? []) as IoSpecItem[] };
      applets.set(name, known);
    }
    return { ...known, script: folder.script };
  }

  /** Runs the app's main as a job would, with `input` plus the spec's defaults in job_input.json. */
  async function runApp(
    name: string,
    input: Record<string, unknown>,
    options: { defaults?: boolean; onStdout?: (text: string) => void } = {},
  ): Promise<JobRun> {
    const { id, inputSpec, script } = await applet(name);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), `panx-app-${name}-`));
    homes.push(home);
    const full: Record<string, unknown> = { ...input };
    if (options.defaults !== false)
      for (const item of inputSpec) if (full[item.name] === undefined && item.default !== undefined) full[item.name] = item.default;
    fs.writeFileSync(path.join(home, 'job_input.json'), JSON.stringify(full, null, 4));
    standIn.setJob({ applet: id, project: workspace, workspace, input: full });
    const url = new URL(standIn.url);
    const env = {
      PATH: JOB_PATH,
      HOME: home,
      TMPDIR: os.tmpdir(),
      LANG: 'C.UTF-8',
      DX_APISERVER_PROTOCOL: 'http',
      DX_APISERVER_HOST: url.hostname,
      DX_APISERVER_PORT: url.port,
      DX_SECURITY_CONTEXT: JSON.stringify({ auth_token_type: 'Bearer', auth_token: t.adminToken }),
      DX_JOB_ID: JOB,
      DX_WORKSPACE_ID: workspace,
      DX_PROJECT_CONTEXT_ID: workspace,
      DX_RETRIES: '0',
    };
    const result = await run('bash', ['-e', '-c', `cd $HOME; source <(dx-print-bash-vars); source '${script}'; main`], {
      env,
      cwd: home,
      onStdout: options.onStdout,
    });
    const read = (file: string) => (fs.existsSync(path.join(home, file)) ? JSON.parse(fs.readFileSync(path.join(home, file), 'utf8')) : undefined);
    return { ...result, output: read('job_output.json') ?? {}, error: read('job_error.json') };
  }

  const describeFile = (id: string) =>
    t.admin.call('file-xxxx/describe', id, { project: workspace, fields: { name: true, folder: true, state: true, size: true, project: true } }) as Promise<
      Record<string, unknown>
    >;

  async function download(id: string): Promise<Buffer> {
    const { url, headers } = (await t.admin.post(id, 'download', { project: workspace })) as { url: string; headers?: Record<string, string> };
    const response = await fetch(url, { headers: headers ?? {} });
    expect(response.status).toBe(200);
    return Buffer.from(await response.arrayBuffer());
  }

  /** Every file output is a link to a closed file of the workspace with the expected name. */
  async function expectFiles(output: Record<string, unknown>, names: Record<string, string | RegExp>): Promise<void> {
    for (const [field, name] of Object.entries(names)) {
      const described = await describeFile(idOf(output[field]));
      expect(described).toMatchObject({ project: workspace, state: 'closed' });
      if (typeof name === 'string') expect(described.name, field).toBe(name);
      else expect(described.name, field).toMatch(name);
    }
  }

  const ok = (result: JobRun) => expect(result.code, `${result.stderr}\n${result.stdout}\n${JSON.stringify(result.error)}`).toBe(0);

  it('fastp trims the read pairs and reports, with the count of reads passed', async () => {
    const result = await runApp('fastp', {
      reads: linkTo(files['/reads/sample1_R1.fastq.gz'] as string),
      reads2: linkTo(files['/reads/sample1_R2.fastq.gz'] as string),
    });
    ok(result);
    await expectFiles(result.output, {
      trimmed_reads: 'sample1_R1.trimmed.fastq.gz',
      trimmed_reads2: 'sample1_R2.trimmed.fastq.gz',
      html_report: 'sample1.fastp.html',
      json_report: 'sample1.fastp.json',
    });
    expect(result.output.reads_passed).toBe(4000);
    const report = JSON.parse((await download(idOf(result.output.json_report))).toString('utf8')) as { summary: { after_filtering: { total_reads: number } } };
    expect(report.summary.after_filtering.total_reads).toBe(4000);
    outputs.fastp = result.output;
  });

  it('fastp on single-end reads waits while another fastp runs on the host (the /tmp/fastp.lock lock)', async () => {
    // Another job's fastp, standing in: holds the lock until the app says it is waiting for it.
    const release = path.join(os.tmpdir(), `panx-fastp-release-${process.pid}`);
    fs.rmSync(release, { force: true });
    let held!: () => void;
    const holding = new Promise<void>((resolve) => {
      held = resolve;
    });
    const holder = run('flock', ['/tmp/fastp.lock', 'sh', '-c', `echo held; for i in $(seq 600); do [ -e '${release}' ] && exit 0; sleep 0.1; done; exit 1`], {
      onStdout: (text) => text.includes('held') && held(),
    });
    await holding;
    const result = await runApp(
      'fastp',
      { reads: linkTo(files['/reads/sample1_R2.fastq.gz'] as string) },
      { onStdout: (text) => text.includes('waiting for another fastp run') && fs.writeFileSync(release, '') },
    );
    expect((await holder).code).toBe(0); // released by the app's message, not by the minute running out
    fs.rmSync(release, { force: true });
    ok(result);
    expect(result.stdout).toContain('waiting for another fastp run on this host to finish');
    expect(Object.keys(result.output).sort()).toEqual(['html_report', 'json_report', 'reads_passed', 'trimmed_reads']);
    expect(result.output.reads_passed).toBe(2000);
    await expectFiles(result.output, { trimmed_reads: 'sample1_R2.trimmed.fastq.gz', html_report: 'sample1_R2.fastp.html' });
  });

  it('bwa_mem indexes the reference and maps the trimmed pairs into a BAM with the read group', async () => {
    const result = await runApp('bwa_mem', {
      reads: outputs.fastp?.trimmed_reads,
      reads2: outputs.fastp?.trimmed_reads2,
      reference: linkTo(files['/reference/chrT.fa'] as string),
    });
    ok(result);
    await expectFiles(result.output, { bam: 'sample1.bam' });
    expect(Object.keys(result.output)).toEqual(['bam']);
    outputs.bwa_mem = result.output;
  });

  it('samtools_sort_index sorts and indexes the BAM and reports flagstat and the mapped reads', async () => {
    const result = await runApp('samtools_sort_index', { bam: outputs.bwa_mem?.bam });
    ok(result);
    await expectFiles(result.output, { sorted_bam: 'sample1.sorted.bam', bam_index: 'sample1.sorted.bam.bai', flagstat: 'sample1.flagstat.txt' });
    expect(result.output.mapped_reads).toBe(4000);
    expect((await download(idOf(result.output.flagstat))).toString('utf8')).toMatch(/^4000 \+ 0 in total/);
    outputs.sort = result.output;
  });

  it('bcftools_call calls exactly the planted SNPs into a bgzipped VCF with its tabix index', async () => {
    const result = await runApp('bcftools_call', {
      sorted_bam: outputs.sort?.sorted_bam,
      bam_index: outputs.sort?.bam_index,
      reference: linkTo(files['/reference/chrT.fa'] as string),
    });
    ok(result);
    await expectFiles(result.output, { vcf: 'sample1.vcf.gz', vcf_index: 'sample1.vcf.gz.tbi' });
    const vcf = await download(idOf(result.output.vcf));
    expect(vcf.subarray(0, 4).toString('hex')).toBe('1f8b0804'); // BGZF: gzip with the extra field
    expect(vcfCalls(vcf)).toEqual(truthCalls(genome.truth));
    expect(result.output.variant_count).toBe(10);
  });

  it('minimap2 maps the raw pairs and bcftools_call indexes a BAM given without its index', async () => {
    const mapped = await runApp('minimap2', {
      reads: linkTo(files['/reads/sample1_R1.fastq.gz'] as string),
      reads2: linkTo(files['/reads/sample1_R2.fastq.gz'] as string),
      reference: linkTo(files['/reference/chrT.fa'] as string),
      sample_name: 'NA00001',
    });
    ok(mapped);
    await expectFiles(mapped.output, { bam: 'NA00001.bam' });
    const sorted = await runApp('samtools_sort_index', { bam: mapped.output.bam });
    ok(sorted);
    const called = await runApp('bcftools_call', {
      sorted_bam: sorted.output.sorted_bam,
      reference: linkTo(files['/reference/chrT.fa'] as string),
      output_prefix: 'mm2',
    });
    ok(called);
    await expectFiles(called.output, { vcf: 'mm2.vcf.gz', vcf_index: 'mm2.vcf.gz.tbi' });
    const vcf = await download(idOf(called.output.vcf));
    expect(vcfCalls(vcf)).toEqual(truthCalls(genome.truth));
    expect(gunzipSync(vcf).toString('utf8')).toContain('\tNA00001\n');
  });

  it('bwa_mem maps single-end reads with a BWA index tarball, also when the job input lacks the defaults', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bwa-index-'));
    homes.push(dir);
    fs.mkdirSync(path.join(dir, 'genome'));
    fs.writeFileSync(path.join(dir, 'genome', 'chrT.fa'), genome.referenceFasta);
    const made = await run('bash', ['-c', 'bwa index genome/chrT.fa 2>/dev/null && tar -czf chrT.bwa-index.tar.gz genome'], { cwd: dir });
    expect(made.code, made.stderr).toBe(0);
    const tarball = await uploadFile(t.admin, workspace, [fs.readFileSync(path.join(dir, 'chrT.bwa-index.tar.gz'))], { name: 'chrT.bwa-index.tar.gz' });
    const result = await runApp(
      'bwa_mem',
      { reads: linkTo(files['/reads/sample1_R1.fastq.gz'] as string), reference_index: linkTo(tarball), sample_name: 'single' },
      { defaults: false },
    );
    ok(result);
    await expectFiles(result.output, { bam: 'single.bam' });
    fs.writeFileSync(path.join(dir, 'single.bam'), await download(idOf(result.output.bam)));
    const header = await run('bash', ['-c', 'samtools view -H single.bam | grep ^@RG; samtools view -c -F 0x904 single.bam'], { cwd: dir });
    expect(header.stdout).toBe('@RG\tID:single\tSM:single\tPL:ILLUMINA\tLB:single\n2000\n');
  });

  it('seqtk_sample draws the same 500 pairs from both files', async () => {
    const result = await runApp('seqtk_sample', {
      reads: linkTo(files['/reads/sample1_R1.fastq.gz'] as string),
      reads2: linkTo(files['/reads/sample1_R2.fastq.gz'] as string),
      number_of_reads: 500,
    });
    ok(result);
    await expectFiles(result.output, { sampled_reads: 'sample1_R1.sampled.fastq.gz', sampled_reads2: 'sample1_R2.sampled.fastq.gz' });
    const names = async (field: string) => {
      const text = gunzipSync(await download(idOf(result.output[field]))).toString('utf8');
      return text
        .split('\n')
        .filter((_, i) => i % 4 === 0)
        .filter(Boolean)
        .map((line) => line.replace(/\/[12]$/, ''));
    };
    const [first, second] = await Promise.all([names('sampled_reads'), names('sampled_reads2')]);
    expect(first).toHaveLength(500);
    expect(second).toEqual(first);
  });

  it('an app given wrong inputs fails with an AppError in job_error.json', async () => {
    const noReference = await runApp('bwa_mem', { reads: linkTo(files['/reads/sample1_R1.fastq.gz'] as string) });
    expect(noReference.code).not.toBe(0);
    expect(noReference.error?.error).toEqual({ type: 'AppError', message: expect.stringContaining("Give either 'reference'") });
    const both = await runApp('seqtk_sample', { reads: linkTo(files['/reads/sample1_R1.fastq.gz'] as string), fraction: 0.5, number_of_reads: 3 });
    expect(both.code).not.toBe(0);
    expect(both.error?.error.type).toBe('AppError');
  });
});
