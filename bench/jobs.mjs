// Execution engine overhead (issue 5 targets): a trivial job from submit to done against spawning the
// same command directly, and many trivial jobs submitted at once. Run by hand: `node bench/jobs.mjs
// [--runs=15] [--jobs=100] [--oversubscribe=N] [--submitters=4] [--trace[=runs]] [--only-trace] [--profile] [--no-build]`.
// SQLite + local executor. --oversubscribe sets engine.local.oversubscribe (how many jobs' instance
// type reservations may share each core; the default 1 runs one 2-core job at a time on a 2-core
// host). --profile writes a CPU profile of the server and prints its top functions.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import {
  build,
  fmt,
  parseArgs,
  printMachine,
  printProfile,
  printTable,
  saveResults,
  sleep,
  startPanx,
  summarize,
  summarizeCpuProfile,
  newNoopApplet,
} from './lib.mjs';

const args = parseArgs();
const runs = Number(args.runs ?? 15);
const batch = Number(args.jobs ?? 100);
const oversubscribe = Number(args.oversubscribe ?? 1);
const submitters = Number(args.submitters ?? 4);
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

/** Polls the job's state every `intervalMs` (the batch polls less often: its polling loads the server it measures). */
async function waitDone(server, id, intervalMs = 10) {
  for (;;) {
    const job = await server.call(`${id}/describe`, { fields: { state: true } });
    if (['done', 'failed', 'terminated'].includes(job.state)) return job.state;
    await sleep(intervalMs);
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-jobs-'));
const profileDir = args.profile ? fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-jobs-profile-')) : undefined;
const server = await startPanx({
  dataDir,
  env: { PANX_ENGINE: 'true', PANX_LOCAL_OVERSUBSCRIBE: String(oversubscribe) },
  nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
});
console.log(
  `engine.local.oversubscribe = ${oversubscribe}; load average ${os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}`,
);
try {
  const { id: project } = await server.call('project/new', { name: 'jobs bench' });
  const applet = await newNoopApplet(server, project);
  const submit = async () => (await server.call(`${applet}/run`, { project, input: {}, ignoreReuse: true })).id;

  // 0. Where the time of one job goes (`--trace`): state changes from the job's record, the time bash
  // started from the job's own output, the time the outcome was recorded, from the database.
  if (args.trace) await trace(server, project, dataDir, Number(args.trace === true ? 5 : args.trace));
  if (!args['only-trace']) {
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
    // Submitted by `--submitters` clients at a time (default 4, the benchmark client's connections).
    const ids = new Array(batch);
    let next = 0;
    await Promise.all(
      Array.from({ length: submitters }, async () => {
        for (let i = next++; i < batch; i = next++) ids[i] = await submit();
      }),
    );
    const submitted = performance.now() - started;
    for (const id of ids) {
      const state = await waitDone(server, id, 100);
      if (state !== 'done') throw new Error(`a batch job ended ${state}`);
    }
    const total = performance.now() - started;
    console.log(
      `\n${batch} trivial jobs submitted at once (${submitters} clients; oversubscribe ${oversubscribe}; load average now ${os.loadavg()[0].toFixed(1)})`,
    );
    printTable(['submitted in (s)', 'all done in (s)', 'jobs/s'], [[fmt(submitted / 1000, 2), fmt(total / 1000, 2), fmt(batch / (total / 1000), 1)]]);
    saveResults('jobs', {
      runs,
      batch,
      oversubscribe,
      submitters,
      loadAverage: os.loadavg(),
      engine: e,
      bash: b,
      node: n,
      batchSeconds: total / 1000,
      jobsPerSecond: batch / (total / 1000),
    });
  }
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
if (profileDir) {
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no CPU profile was written');
  console.log(`\nCPU profile of the server: ${path.join(profileDir, file)}`);
  printProfile(summarizeCpuProfile(path.join(profileDir, file), 30), 30);
}

async function trace(server, project, dataDir, count) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const { id: applet } = await server.call('applet/new', {
    project,
    name: 'trace',
    dxapi: '1.0.0',
    inputSpec: [],
    outputSpec: [],
    runSpec: { interpreter: 'bash', code: 'main() { echo "bash-started $(date +%s%3N)"; }', distribution: 'Ubuntu', release: '24.04' },
  });
  const phases = {
    'submit → runnable': [],
    'runnable → claimed (running)': [],
    'claimed → bash started': [],
    'bash started → outcome recorded': [],
    'outcome recorded → done': [],
    'done → client saw it': [],
    total: [],
  };
  const db = new Database(path.join(dataDir, 'panx.db'), { readonly: true, fileMustExist: true });
  for (let i = 0; i < count + 1; i++) {
    const t0 = Date.now();
    const { id } = await server.call(`${applet}/run`, { project, input: {}, ignoreReuse: true });
    await waitDone(server, id);
    const seen = Date.now();
    const { stateTransitions } = await server.call(`${id}/describe`, { fields: { stateTransitions: true } });
    const at = (state) => stateTransitions.find((t) => t.newState === state)?.setAt;
    const row = db.prepare('select outcome from jobs where id = ?').get(id);
    const reported = JSON.parse(row.outcome ?? '{}').reported;
    const line = db.prepare("select msg from jobLogs where jobId = ? and msg like 'bash-started %'").get(id);
    const bash = line ? Number(line.msg.split(' ')[1]) : Number.NaN;
    if (i === 0) continue; // warm-up
    phases['submit → runnable'].push(at('runnable') - t0);
    phases['runnable → claimed (running)'].push(at('running') - at('runnable'));
    phases['claimed → bash started'].push(bash - at('running'));
    phases['bash started → outcome recorded'].push(reported - bash);
    phases['outcome recorded → done'].push(at('done') - reported);
    phases['done → client saw it'].push(seen - at('done'));
    phases.total.push(seen - t0);
  }
  db.close();
  console.log(`\nWhere the time of one trivial job goes (${count} traced runs, medians, ms; clocks of one host)`);
  printTable(
    ['phase', 'median ms', 'max ms'],
    Object.entries(phases).map(([name, values]) => [name, fmt(summarize(values).median), fmt(Math.max(...values))]),
  );
}
