// Issue 5 target: on Slurm, submit → done of a trivial job through Panx (engine.executor slurm)
// against a bare `sbatch` of the same command, ≤ 1.2×. Run by hand on a machine with Slurm
// (scripts/ensure-slurm.sh starts a single-node cluster):
//
//   node bench/slurm.mjs [--runs=20] [--pause-ms=1000] [--jitter-ms=3000] [--runner=process|inline] [--no-build]
//
// Each round runs both, in a random order, so that they meet the same cluster load. The bare run
// asks for what Panx asks for (the job's instance type's cores and memory, an output file) and is
// polled as often as the Panx job is described; Panx adds its API call and scheduler before sbatch,
// and its job runner on the node (a Node process that prepares the job's directory and reports the
// outcome over the API) after Slurm starts the batch script.
//
// Pacing matters more than anything else here. slurmctld starts batch jobs on a grid of
// batch_sched_delay (3 s by default) and right after another job ends, so a job waits 0–3 s for Slurm
// depending on when, on that grid, it was submitted. With pauses of a fixed length, or of a random
// length narrower than the grid, each submission's phase depends on how long the job before it took,
// and the side that follows a longer job waits less: with 1–2 s pauses, Panx's 0.2 s on the node
// came out of the next bare job's wait and was added to its own (a false 0.3 s). Each pause is
// therefore pause-ms plus a uniform draw over jitter-ms, one whole grid period, which makes every
// submission's phase uniform and independent of the job before.
//
// At the end, Slurm's own logs (slurmctld's submit and allocate lines, slurmd's launch lines, at
// the default log level) split each side's median into: before sbatch, waiting in Slurm's queue,
// allocation to launch, and launch to done.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, fmt, newNoopApplet, parseArgs, printMachine, printTable, saveResults, sleep, startPanx, summarize } from './lib.mjs';

const args = parseArgs();
const RUNS = Number(args.runs ?? 20);
/** engine.slurm.runner: `process` (the default) or `inline`. */
const RUNNER = String(args.runner ?? 'process');
/**
 * The shortest pause before each job, so that Slurm has finished with the previous one (see the
 * header for the random part).
 */
const PAUSE_MS = Number(args['pause-ms'] ?? 1000);
/** The width of the uniform draw added to each pause: one period of Slurm's batch scheduling grid. */
const JITTER_MS = Number(args['jitter-ms'] ?? 3000);
const pause = () => sleep(PAUSE_MS + JITTER_MS * Math.random());
build(args);
if (spawnSync('sinfo', ['-h'], { stdio: 'ignore' }).status !== 0) {
  console.log('Slurm does not answer (sinfo failed): run scripts/ensure-slurm.sh first');
  process.exit(1);
}
const machine = printMachine();

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-slurm-'));
const server = await startPanx({ dataDir, env: { PANX_ENGINE: 'true', PANX_EXECUTOR: 'slurm', PANX_SLURM_RUNNER: RUNNER } });
try {
  const { id: project } = await server.call('project/new', { name: 'slurm bench' });
  const applet = await newNoopApplet(server, project, { systemRequirements: { '*': { instanceType: 'mem2_ssd1_x1' } } });
  const { instanceTypes } = await server.call('system/describeInstanceTypes', { project });
  const type = instanceTypes.find((entry) => entry.name === 'mem2_ssd1_x1');
  if (!type) throw new Error('no mem2_ssd1_x1 in the instance type catalogue');
  const cores = type.cores;
  const memoryMB = type.memoryMB;

  const panxOnce = async () => {
    const wallStart = Date.now();
    const started = performance.now();
    const { id } = await server.call(`${applet}/run`, { project, input: {}, ignoreReuse: true });
    for (;;) {
      const job = await server.call(`${id}/describe`, { fields: { state: true } });
      if (job.state === 'done') return { ms: performance.now() - started, wallStart, jobName: `panx-${id}-try0` };
      if (['failed', 'terminated'].includes(job.state)) throw new Error(`${id} ended ${job.state}`);
      await sleep(20);
    }
  };
  const bareDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-sbatch-'));
  // Bare: sbatch, then the same 20-ms polling Panx's client does, here for the exit-status file the
  // wrapped command writes last (\`sbatch --wait\` polls the controller with growing sleeps, seconds).
  let bareRun = 0;
  const bareOnce = async () => {
    const done = path.join(bareDir, `exit-${bareRun++}`);
    const wallStart = Date.now();
    const started = performance.now();
    const result = spawnSync(
      'sbatch',
      [
        '--parsable',
        `--chdir=${bareDir}`,
        `--output=${path.join(bareDir, 'out.log')}`,
        `--cpus-per-task=${cores}`,
        `--mem=${memoryMB}M`,
        '--wrap',
        `bash -c :; echo $? > ${done}`,
      ],
      { encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`sbatch failed: ${result.stderr}`);
    while (!fs.existsSync(done)) await sleep(20);
    return { ms: performance.now() - started, wallStart, slurmJobId: result.stdout.trim().split(';')[0] };
  };

  const panxRuns = [];
  const bareRuns = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const round = {};
    for (const side of Math.random() < 0.5 ? ['bare', 'panx'] : ['panx', 'bare']) {
      await pause();
      round[side] = side === 'bare' ? await bareOnce() : await panxOnce();
    }
    if (i === 0) continue; // warm-up: the runner's modules in the page cache
    bareRuns.push(round.bare);
    panxRuns.push(round.panx);
  }
  const panx = panxRuns.map((run) => run.ms);
  const bare = bareRuns.map((run) => run.ms);
  const p = summarize(panx);
  const b = summarize(bare);
  console.log(
    `\nTrivial job on Slurm, submit → done (${RUNS} runs each, in random order; pauses ${PAUSE_MS / 1000}–${(PAUSE_MS + JITTER_MS) / 1000} s; ${cores} core, ${memoryMB} MiB; ${RUNNER} runner)`,
  );
  printTable(
    ['', 'median s', 'min s', 'max s'],
    [
      ['Panx job (engine.executor slurm)', fmt(p.median / 1000, 2), fmt(p.min / 1000, 2), fmt(p.max / 1000, 2)],
      ['bare sbatch of the same command (polled every 20 ms)', fmt(b.median / 1000, 2), fmt(b.min / 1000, 2), fmt(b.max / 1000, 2)],
      ['ratio (medians)', `${fmt(p.median / b.median, 2)}×`, '', ''],
    ],
  );
  console.log(`target ≤ 1.2×: ${p.median / b.median <= 1.2 ? 'met' : 'NOT met'}`);
  const phases = phasesFromSlurmLogs(panxRuns, bareRuns);
  saveResults('slurm', { machine, runs: RUNS, runner: RUNNER, pauseMs: PAUSE_MS, jitterMs: JITTER_MS, panxMs: panx, bareMs: bare, phases });
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** `[2026-11-24T13:20:52.182] text` lines of a Slurm log → [epoch ms, text] (the log's local time). */
function slurmLogLines(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const lines = [];
  for (const line of text.split('\n')) {
    const match = /^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] (.*)$/.exec(line);
    if (match) lines.push([new Date(match[1]).getTime(), match[2]]);
  }
  return lines;
}

/** The first time each job id appears in a line matching `pattern` (its group 1 is the id). */
function firstTimes(lines, pattern) {
  const times = new Map();
  for (const [at, text] of lines) {
    const id = pattern.exec(text)?.[1];
    if (id && !times.has(id)) times.set(id, at);
  }
  return times;
}

/**
 * Splits each side's runs into phases by Slurm's own logs: run → sbatch (slurmctld's submit line),
 * the wait in the queue (→ its Allocate line), allocation → slurmd's launch, and launch → done.
 */
function phasesFromSlurmLogs(panxRuns, bareRuns) {
  const config = spawnSync('scontrol', ['show', 'config'], { encoding: 'utf8' }).stdout ?? '';
  const logOf = (key) => new RegExp(`^${key}\\s*=\\s*(\\S+)`, 'm').exec(config)?.[1];
  const controller = slurmLogLines(logOf('SlurmctldLogFile') ?? '/var/log/slurm/slurmctld.log');
  const daemon = slurmLogLines(logOf('SlurmdLogFile') ?? '/var/log/slurm/slurmd.log');
  const submitted = firstTimes(controller, /_slurm_rpc_submit_batch_job: JobId=(\d+)/);
  const allocated = firstTimes(controller, /(?:sched: Allocate|_start_job: Started) JobId=(\d+)/);
  const launched = firstTimes(daemon, /Launching batch job (\d+)/);
  const names = new Map();
  for (const line of (spawnSync('squeue', ['-h', '-t', 'all', '--me', '-o', '%i|%j'], { encoding: 'utf8' }).stdout ?? '').split('\n')) {
    const [id, name] = line.trim().split('|');
    if (id && name) names.set(name, id);
  }
  const split = (runs) => {
    const parts = { beforeSbatch: [], queued: [], toLaunch: [], afterLaunch: [] };
    for (const run of runs) {
      const id = run.slurmJobId ?? names.get(run.jobName);
      const [s, a, l] = [submitted.get(id), allocated.get(id), launched.get(id)];
      if (s === undefined || a === undefined || l === undefined) continue;
      parts.beforeSbatch.push(s - run.wallStart);
      parts.queued.push(a - s);
      parts.toLaunch.push(l - a);
      parts.afterLaunch.push(run.wallStart + run.ms - l);
    }
    return parts;
  };
  const phases = { panx: split(panxRuns), bare: split(bareRuns) };
  if (!phases.panx.queued.length || !phases.bare.queued.length) {
    console.log("\n(no phases: Slurm's logs do not list these jobs)");
    return phases;
  }
  const median = (values) => fmt(summarize(values).median / 1000, 2);
  const mean = (values) => fmt(summarize(values).mean / 1000, 2);
  console.log(
    `\nWhere the time went, by Slurm's logs (medians, with means in brackets; ${phases.panx.queued.length} and ${phases.bare.queued.length} runs found)`,
  );
  printTable(
    ['', 'run → sbatch s', 'queued in Slurm s', 'allocated → launched s', 'launched → done s'],
    ['panx', 'bare'].map((side) => [
      side === 'panx' ? 'Panx job' : 'bare sbatch',
      ...['beforeSbatch', 'queued', 'toLaunch', 'afterLaunch'].map((key) => `${median(phases[side][key])} (${mean(phases[side][key])})`),
    ]),
  );
  return phases;
}
