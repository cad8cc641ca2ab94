// Execution engine overhead (issue 5 targets): a trivial job from submit to done against spawning the
// same command directly, and many trivial jobs submitted at once. Run by hand: `node bench/jobs.mjs
// [--runs=15] [--jobs=100] [--no-build]`. SQLite + local executor.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, fmt, parseArgs, printMachine, printTable, saveResults, sleep, startPanx, summarize } from './lib.mjs';

const args = parseArgs();
const runs = Number(args.runs ?? 15);
const batch = Number(args.jobs ?? 100);
build(args);
printMachine();

function spawnOnce(command, argv) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, argv, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - started));
  });
}

async function waitDone(server, id) {
  for (;;) {
    const job = await server.call(`${id}/describe`, { fields: { state: true } });
    if (['done', 'failed', 'terminated'].includes(job.state)) return job.state;
    await sleep(10);
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-jobs-'));
const server = await startPanx({ dataDir, env: { PANX_ENGINE: 'true' } });
try {
  const { id: project } = await server.call('project/new', { name: 'jobs bench' });
  const { id: applet } = await server.call('applet/new', {
    project,
    name: 'noop',
    dxapi: '1.0.0',
    inputSpec: [],
    outputSpec: [],
    runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' },
  });
  const submit = async () => (await server.call(`${applet}/run`, { project, input: {}, ignoreReuse: true })).id;

  // 1. One trivial job at a time, submit → done, beside spawning `bash -c :` and `node -e ''` directly.
  const engine = [];
  for (let i = 0; i < runs + 2; i++) {
    const started = performance.now();
    const state = await waitDone(server, await submit());
    if (state !== 'done') throw new Error(`a trivial job ended ${state}`);
    if (i >= 2) engine.push(performance.now() - started);
  }
  const bash = [];
  const node = [];
  for (let i = 0; i < runs; i++) {
    bash.push(await spawnOnce('bash', ['-c', ':']));
    node.push(await spawnOnce(process.execPath, ['-e', '']));
  }
  const e = summarize(engine);
  const b = summarize(bash);
  const n = summarize(node);
  console.log(`\nTrivial job, submit → done (${runs} runs, one at a time)`);
  printTable(
    ['', 'median ms', 'p95 ms', 'overhead vs bash (median)'],
    [
      ['Panx job (local executor)', fmt(e.median), fmt(e.p95), `${fmt(e.median - b.median)} ms`],
      ['spawn bash -c :', fmt(b.median), fmt(b.p95), '–'],
      ['spawn node -e "" (the runner is a Node process)', fmt(n.median), fmt(n.p95), '–'],
    ],
  );

  // 2. Many trivial jobs submitted at once.
  const started = performance.now();
  const ids = [];
  for (let i = 0; i < batch; i++) ids.push(await submit());
  const submitted = performance.now() - started;
  for (const id of ids) {
    const state = await waitDone(server, id);
    if (state !== 'done') throw new Error(`a batch job ended ${state}`);
  }
  const total = performance.now() - started;
  console.log(`\n${batch} trivial jobs submitted at once`);
  printTable(['submitted in (s)', 'all done in (s)', 'jobs/s'], [[fmt(submitted / 1000, 2), fmt(total / 1000, 2), fmt(batch / (total / 1000), 1)]]);
  saveResults('jobs', { runs, batch, engine: e, bash: b, node: n, batchSeconds: total / 1000, jobsPerSecond: batch / (total / 1000) });
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
