// Issue 5 target: on Slurm, submit → done of a trivial job through Panx (engine.executor slurm)
// against a bare `sbatch --wait` of the same command, ≤ 1.2×. Run by hand on a machine with Slurm
// (scripts/ensure-slurm.sh starts a single-node cluster):
//
//   node bench/slurm.mjs [--runs=20] [--pause-ms=1000] [--runner=process|inline] [--no-build]
//
// Both take turns run by run (bare sbatch, then a Panx job), so that they meet the same cluster load.
// The bare run asks for what Panx asks for (the job's instance type's cores and memory, an output
// file) and is polled as often as the Panx job is described; Panx adds its job runner on the node (a Node process that prepares the job's
// directory and reports the outcome over the API) and its scheduler's polling of squeue.
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
 * A pause before each job, so that Slurm has finished with the previous one, drawn anew each time
 * between PAUSE_MS and twice that: Slurm starts jobs on ticks of its daemons (a trivial job takes
 * 0.4, 1.0 or 2.9 s by when it is submitted), and a fixed pause would give each side a fixed phase.
 */
const PAUSE_MS = Number(args['pause-ms'] ?? 1000);
const pause = () => sleep(PAUSE_MS * (1 + Math.random()));
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
    const started = performance.now();
    const { id } = await server.call(`${applet}/run`, { project, input: {}, ignoreReuse: true });
    for (;;) {
      const job = await server.call(`${id}/describe`, { fields: { state: true } });
      if (job.state === 'done') return performance.now() - started;
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
    return performance.now() - started;
  };

  const panx = [];
  const bare = [];
  for (let i = 0; i < RUNS + 1; i++) {
    await pause();
    const b = await bareOnce();
    await pause();
    const p = await panxOnce();
    if (i === 0) continue; // warm-up: the runner's modules in the page cache
    bare.push(b);
    panx.push(p);
  }
  const p = summarize(panx);
  const b = summarize(bare);
  console.log(`\nTrivial job on Slurm, submit → done (${RUNS} runs each, alternating; ${cores} core, ${memoryMB} MiB; ${RUNNER} runner)`);
  printTable(
    ['', 'median s', 'min s', 'max s'],
    [
      ['Panx job (engine.executor slurm)', fmt(p.median / 1000, 2), fmt(p.min / 1000, 2), fmt(p.max / 1000, 2)],
      ['bare sbatch of the same command (polled every 20 ms)', fmt(b.median / 1000, 2), fmt(b.min / 1000, 2), fmt(b.max / 1000, 2)],
      ['ratio (medians)', `${fmt(p.median / b.median, 2)}×`, '', ''],
    ],
  );
  console.log(`target ≤ 1.2×: ${p.median / b.median <= 1.2 ? 'met' : 'NOT met'}`);
  saveResults('slurm', { machine, runs: RUNS, runner: RUNNER, panxMs: panx, bareMs: bare });
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
