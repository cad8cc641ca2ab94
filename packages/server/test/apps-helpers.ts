import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { IoSpecItem } from '@panx/contract';
import type { PlantedSnp, SyntheticGenome } from '../src/demo/synthetic-genome.js';

/** Shared by the tests of the bundled genomics apps (apps/ at the repository root). */

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const APPS_DIR = path.join(REPO_ROOT, 'apps');
export const WORKER_TOOLS_BIN = path.join(REPO_ROOT, 'packages', 'worker-tools', 'bin');
export const BIO_TOOLS = ['samtools', 'bcftools', 'bwa', 'minimap2', 'tabix', 'bgzip', 'seqtk', 'fastp'];
/** What the jobs see on PATH: the worker tools, node, then the system. */
export const JOB_PATH = [WORKER_TOOLS_BIN, path.dirname(process.execPath), '/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'].join(
  ':',
);

/** Fails with the fix when a tool is missing (CI installs them with scripts/ensure-bio-tools.sh). */
export function requireBioTools(): void {
  const missing = BIO_TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { env: { PATH: JOB_PATH } }).status !== 0);
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run scripts/ensure-bio-tools.sh (Debian packages)`);
}

export interface Call {
  chrom: string;
  pos: number;
  ref: string;
  alt: string;
  genotype: string;
}

/** The records of a VCF (plain or bgzipped) with the genotype of the first sample. */
export function vcfCalls(vcf: Buffer | string): Call[] {
  const text = typeof vcf === 'string' ? vcf : vcf[0] === 0x1f && vcf[1] === 0x8b ? gunzipSync(vcf).toString('utf8') : vcf.toString('utf8');
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const fields = line.split('\t');
      const format = (fields[8] ?? '').split(':');
      const sample = (fields[9] ?? '').split(':');
      return {
        chrom: fields[0] as string,
        pos: Number(fields[1]),
        ref: fields[3] as string,
        alt: fields[4] as string,
        genotype: sample[format.indexOf('GT')] ?? '',
      };
    });
}

export const truthCalls = (truth: PlantedSnp[]): Call[] => truth.map(({ chrom, pos, ref, alt, genotype }) => ({ chrom, pos, ref, alt, genotype }));

/** Writes the data set as files: ref.fa, sample1_R1.fastq.gz, sample1_R2.fastq.gz, truth.tsv. */
export function writeGenome(dir: string, genome: SyntheticGenome): { reference: string; reads1: string; reads2: string } {
  fs.mkdirSync(dir, { recursive: true });
  const files = { reference: path.join(dir, 'ref.fa'), reads1: path.join(dir, 'sample1_R1.fastq.gz'), reads2: path.join(dir, 'sample1_R2.fastq.gz') };
  fs.writeFileSync(files.reference, genome.referenceFasta);
  fs.writeFileSync(files.reads1, genome.reads1FastqGz);
  fs.writeFileSync(files.reads2, genome.reads2FastqGz);
  fs.writeFileSync(path.join(dir, 'truth.tsv'), genome.truthTsv);
  return files;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command asynchronously (the API server under test lives in this process and must keep answering). */
export function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; onStdout?: (text: string) => void } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? { PATH: JOB_PATH }, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(stdout);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The input as the platform hands it to the job: the given values plus the inputSpec's defaults. */
export function withDefaults(inputSpec: IoSpecItem[], input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const item of inputSpec) if (out[item.name] === undefined && item.default !== undefined) out[item.name] = item.default;
  return out;
}

/**
 * A stand-in for the job in front of a real API server: answers `/<job>/describe` (function `main`,
 * the applet being run, the workspace) as the platform would, and forwards every other call. With
 * it, the worker tools find the executable's specs exactly as in a real job (DX_JOB_ID set, no
 * spec files), while the data calls reach the real server.
 */
export async function startJobStandIn(
  serverUrl: string,
  job: string,
): Promise<{ url: string; setJob(describe: Record<string, unknown>): void; close(): Promise<void> }> {
  let describe: Record<string, unknown> = { id: job, class: 'job', function: 'main', state: 'running' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        if (req.url === `/${job}/describe`) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(describe));
          return;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers[name] = value;
        }
        const answer = await fetch(`${serverUrl}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      } catch (error) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'InternalError', message: String(error) } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setJob(fields) {
      describe = { id: job, class: 'job', function: 'main', state: 'running', ...fields };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
