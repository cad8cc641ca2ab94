// The germline workflow (issue 5 target: ≤ 1.3× the same commands in one bash script). Runs
// apps/workflows/germline_variants.json on the synthetic demo data through the engine (SQLite, local
// executor: four stage jobs, each downloading its inputs and uploading its outputs) and, alternating
// with it, the same fastp / bwa / samtools / bcftools commands in one bash script on local copies of
// the same files. Run by hand: `node bench/germline.mjs [--runs=3] [--no-build] [--processes=N]`
// (`--processes`: PANX_PROCESSES for the server; 2 made no difference on 2 cores); needs the bio tools
// on PATH (fastp, bwa, samtools, bcftools, bgzip, tabix).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, fmt, parseArgs, printMachine, printTable, ROOT, saveResults, sleep, startPanx, summarize } from './lib.mjs';

const args = parseArgs();
const runs = Number(args.runs ?? 3);
build(args);
printMachine();

const missing = ['fastp', 'bwa', 'samtools', 'bcftools', 'bgzip', 'tabix'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
if (missing.length) throw new Error(`missing on PATH: ${missing.join(', ')}`);

// The same commands as the four apps (apps/*/src/*.sh), with the same options and thread counts.
const SCRIPT = String.raw`set -e -o pipefail
cd "$1"
threads=$(nproc)
if [ "$threads" -gt 16 ]; then fastp_threads=16; else fastp_threads=$threads; fi
rm -rf out work && mkdir -p out work/index
# fastp (apps/fastp), behind the same host-wide lock the app takes
exec 9>>/tmp/fastp.lock
flock 9
fastp --in1 reads/sample1_R1.fastq.gz --out1 out/sample1_R1.trimmed.fastq.gz \
  --qualified_quality_phred 15 --length_required 15 \
  --html out/sample1.fastp.html --json out/sample1.fastp.json --report_title "fastp report: sample1" \
  --thread "$fastp_threads" --in2 reads/sample1_R2.fastq.gz --out2 out/sample1_R2.trimmed.fastq.gz --detect_adapter_for_pe 2>/dev/null
exec 9>&-
passed=$(( $(gzip -dc out/sample1_R1.trimmed.fastq.gz | wc -l) / 4 + $(gzip -dc out/sample1_R2.trimmed.fastq.gz | wc -l) / 4 ))
# bwa_mem (apps/bwa_mem)
ln -s "$PWD/reference/chrT.fa" work/index/chrT.fa
bwa index work/index/chrT.fa 2>/dev/null
bwa mem -t "$threads" -R '@RG\tID:sample1\tSM:sample1\tPL:ILLUMINA\tLB:sample1' work/index/chrT.fa \
  out/sample1_R1.trimmed.fastq.gz out/sample1_R2.trimmed.fastq.gz 2>/dev/null | samtools view -b -@ "$threads" -o out/sample1.bam -
samtools quickcheck out/sample1.bam
# samtools_sort_index (apps/samtools_sort_index)
total_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
memory=$(( total_kb / 1024 / 2 / threads )); if [ "$memory" -gt 4096 ]; then memory=4096; fi; if [ "$memory" -lt 256 ]; then memory=256; fi
samtools sort -@ "$threads" -m "$memory"M -T work/sort -o out/sample1.sorted.bam out/sample1.bam 2>/dev/null
samtools index -@ "$threads" out/sample1.sorted.bam out/sample1.sorted.bam.bai
samtools flagstat -@ "$threads" out/sample1.sorted.bam > out/sample1.flagstat.txt
mapped=$(samtools view -c -F 0x904 -@ "$threads" out/sample1.sorted.bam)
# bcftools_call (apps/bcftools_call)
ln -s "$PWD/reference/chrT.fa" work/reference.fa
samtools faidx work/reference.fa
ln -s "$PWD/out/sample1.sorted.bam" work/sample1.sorted.bam
ln -s "$PWD/out/sample1.sorted.bam.bai" work/sample1.sorted.bam.bai
bcftools mpileup -f work/reference.fa -q 0 -Q 13 -a AD,DP -Ou work/sample1.sorted.bam 2>/dev/null | bcftools call -m -Ov -v 2>/dev/null | bgzip -@ "$threads" > out/sample1.vcf.gz
tabix -p vcf out/sample1.vcf.gz
count=$(bcftools view -H out/sample1.vcf.gz | wc -l)
echo "reads passed: $passed, mapped: $mapped, variant records: $count"
`;

function runScript(dir) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('bash', ['-c', SCRIPT, 'germline', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the bash script failed (${code}):\n${output}`));
      else resolve({ ms: performance.now() - started, output: output.trim() });
    });
  });
}

async function waitAnalysis(server, id) {
  for (;;) {
    const analysis = await server.call(`${id}/describe`, { fields: { state: true, output: true, stateTransitions: true } });
    if (['done', 'failed', 'terminated'].includes(analysis.state)) return analysis;
    await sleep(100);
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-germline-'));
const scriptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-germline-bash-'));
// The demo data set, written where the script reads it: the same bytes as the demo project's files.
const { syntheticGenome } = await import(pathToFileURL(path.join(ROOT, 'packages/server/dist/demo/synthetic-genome.js')).href);
const genome = syntheticGenome();
fs.mkdirSync(path.join(scriptDir, 'reference'));
fs.mkdirSync(path.join(scriptDir, 'reads'));
fs.writeFileSync(path.join(scriptDir, 'reference', 'chrT.fa'), genome.referenceFasta);
fs.writeFileSync(path.join(scriptDir, 'reads', 'sample1_R1.fastq.gz'), genome.reads1FastqGz);
fs.writeFileSync(path.join(scriptDir, 'reads', 'sample1_R2.fastq.gz'), genome.reads2FastqGz);

const server = await startPanx({
  dataDir,
  env: { PANX_ENGINE: 'true', PANX_DEMO_PROJECT: 'true', ...(args.processes ? { PANX_PROCESSES: String(args.processes) } : {}) },
});
try {
  const demo = (await server.call('system/findProjects', { name: 'Demo project' })).results[0]?.id;
  if (!demo) throw new Error('no demo project');
  const workflow = (await server.call('system/findDataObjects', { class: 'workflow', name: 'germline_variants', scope: { project: demo } })).results[0]?.id;
  if (!workflow) throw new Error('no germline_variants workflow in the demo project');

  const engine = [];
  const polled = [];
  const bash = [];
  const stageMs = [];
  // Where the engine's extra time goes: before the first stage runs, between stages (one done → the
  // next running) and after the last, from the stage jobs' state transitions.
  const gapMs = [];
  let lastBash = '';
  for (let i = 0; i < runs + 1; i++) {
    // Submit → done, where done is the moment the server recorded the analysis done (its state
    // transition, in the same machine's clock): the polling below only finds out, up to 100 ms later.
    const started = performance.timeOrigin + performance.now();
    const { id } = await server.call(`${workflow}/run`, { project: demo, input: {}, ignoreReuse: true });
    const analysis = await waitAnalysis(server, id);
    const polledMs = performance.timeOrigin + performance.now() - started;
    if (analysis.state !== 'done') throw new Error(`the analysis ${id} ended ${analysis.state}`);
    const doneAt = analysis.stateTransitions.find((step) => step.newState === 'done')?.setAt;
    if (typeof doneAt !== 'number') throw new Error(`${id} has no done transition`);
    const ms = doneAt - started;
    if (analysis.output['stage-call.variant_count'] !== genome.truth.length)
      throw new Error(`${id} found ${analysis.output['stage-call.variant_count']} variants`);
    const script = await runScript(scriptDir);
    lastBash = script.output;
    if (!script.output.endsWith(`variant records: ${genome.truth.length}`)) throw new Error(`the script found: ${script.output}`);
    if (i === 0) continue; // warm-up: page cache, bwa and fastp binaries
    engine.push(ms);
    polled.push(polledMs);
    bash.push(script.ms);
    const { stages, created } = await server.call(`${id}/describe`, { fields: { stages: true, created: true } });
    const times = stages.map(({ execution }) => {
      const transitions = execution.stateTransitions ?? [];
      const at = (state) => transitions.find((step) => step.newState === state)?.setAt ?? 0;
      return { running: at('running'), done: at('done') };
    });
    stageMs.push(times.map((t) => t.done - t.running));
    const ends = [created, ...times.map((t) => t.done)];
    gapMs.push(times.map((t, index) => t.running - (ends[index] ?? 0)));
  }
  const e = summarize(engine);
  const b = summarize(bash);
  console.log(`\nGermline workflow on the synthetic demo data (${runs} runs each, alternating; ${lastBash})`);
  printTable(
    ['', 'median s', 'min s', 'max s'],
    [
      ['through the engine (4 stage jobs, local executor)', fmt(e.median / 1000, 2), fmt(e.min / 1000, 2), fmt(e.max / 1000, 2)],
      [
        '  the same, as the 100-ms polling saw it',
        fmt(summarize(polled).median / 1000, 2),
        fmt(summarize(polled).min / 1000, 2),
        fmt(summarize(polled).max / 1000, 2),
      ],
      ['the same commands in one bash script', fmt(b.median / 1000, 2), fmt(b.min / 1000, 2), fmt(b.max / 1000, 2)],
      ['ratio (medians)', `${fmt(e.median / b.median, 2)}×`, '', ''],
    ],
  );
  console.log(`run by run, engine / bash script: ${engine.map((ms, index) => `${fmt(ms / (bash[index] ?? ms), 2)}×`).join(' ')}`);
  const perStage = [0, 1, 2, 3].map((index) => summarize(stageMs.map((row) => row[index] ?? 0)).median);
  console.log(`stage jobs, running → done, medians (ms): ${perStage.map((ms) => fmt(ms)).join(' / ')} (fastp / bwa_mem / sort / call)`);
  const gaps = [0, 1, 2, 3].map((index) => summarize(gapMs.map((row) => row[index] ?? 0)).median);
  console.log(`before each stage runs (analysis created or the previous stage done → running), medians (ms): ${gaps.map((ms) => fmt(ms)).join(' / ')}`);
  saveResults('germline', { runs, engine: e, bash: b, ratio: e.median / b.median, perStageMs: perStage, gapMs: gaps });
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(scriptDir, { recursive: true, force: true });
}
