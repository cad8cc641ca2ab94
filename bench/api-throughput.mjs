// Target 1: `describe` (project and file) and `listFolder` under 64 concurrent connections.
// Goal: ≥ 5,000 requests/s for describe with p99 < 20 ms on SQLite; PostgreSQL reported beside it.
// Ceiling measured in the same run: a trivial Fastify (and plain node:http) server answering the
// same describe JSON as a constant.
//
//   node bench/api-throughput.mjs [--backends=sqlite,postgres] [--duration=10] [--warmup=2]
//        [--connections=64] [--repeat=1] [--processes=1] [--experiments] [--profile] [--no-build]
//
// --processes=N: run the Panx server as N processes sharing the port (PANX_PROCESSES, node:cluster:
// a leader and N − 1 API-only processes); the CPU columns then count all of them.
//
// --repeat=N: measure each row N times and keep the best run (for a machine shared with others).
// --experiments: afterwards, time every SQL statement under describe load and rerun the calls with
// fixes preloaded into the server (bench/experiments/db-preload.mjs): a prepared-statement cache on
// SQLite, named prepared statements on PostgreSQL; and the SQLite server as two processes
// (bench/experiments/cluster.mjs), to show what the second core adds.
// --profile: afterwards, runs the SQLite server once more under `node --cpu-prof` for the project
// describe load and prints where the CPU time goes (by package and by function).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  backendsFrom,
  build,
  createPgDatabase,
  ensureWrk,
  fmt,
  freePort,
  parseArgs,
  printMachine,
  printProfile,
  printTable,
  RESULTS_DIR,
  rawCall,
  ROOT,
  runWrk,
  saveResults,
  spawnTracked,
  startPanx,
  stopChild,
  summarizeCpuProfile,
  uploadSmallFile,
  waitForHttp,
} from './lib.mjs';

const args = parseArgs();
const PROCESSES = Number(args.processes ?? 1);
const durationS = Number(args.duration ?? 10);
const warmupS = Number(args.warmup ?? 2);
const connections = Number(args.connections ?? 64);
const repeat = Math.max(1, Number(args.repeat ?? 1));
const FOLDER_FILES = 100;
const TARGET_RPS = 5000;
const TARGET_P99_MS = 20;

build(args);
ensureWrk();
const machine = printMachine();
console.log(
  `load: wrk, 1 thread, ${connections} keep-alive connections, ${warmupS} s warm-up + ${durationS} s measured per row; Panx server: ${PROCESSES} process${PROCESSES > 1 ? 'es (PANX_PROCESSES)' : ''}\n`,
);

const PRELOAD = pathToFileURL(path.join(ROOT, 'bench/experiments/db-preload.mjs')).href;
const CLUSTER = path.join(ROOT, 'bench/experiments/cluster.mjs');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-api-'));
const rows = [];
let describeResponseFile;

/** Creates a project with one file at the root and FOLDER_FILES files in /reads, through the API. */
async function seed(server) {
  const { id: project } = await server.call('project/new', { name: 'throughput bench' });
  const file = await uploadSmallFile(server, { project, folder: '/', name: 'sample.bam', bytes: Buffer.from('ACGT'.repeat(256)) });
  const names = Array.from({ length: FOLDER_FILES }, (_, i) => `read_${String(i).padStart(3, '0')}.fastq.gz`);
  for (let i = 0; i < names.length; i += 10) {
    await Promise.all(names.slice(i, i + 10).map((name) => uploadSmallFile(server, { project, folder: '/reads', name, bytes: Buffer.from(name) })));
  }
  return { project, file };
}

function scenarios({ project, file }) {
  return [
    { name: 'project describe', route: `${project}/describe`, body: {}, target: true },
    { name: 'file describe', route: `${file}/describe`, body: {}, target: true },
    { name: 'file describe (project hint)', route: `${file}/describe`, body: { project }, target: true },
    { name: `listFolder (${FOLDER_FILES} files)`, route: `${project}/listFolder`, body: { folder: '/reads' }, target: false },
  ];
}

async function measureBackend(backend, { label = backend, env, only, sink = rows, entry } = {}) {
  const dataDir = path.join(tmp, label.replace(/[^a-z0-9]+/gi, '-'));
  const database = backend === 'postgres' ? await createPgDatabase('panx_bench_api') : undefined;
  const server = await startPanx({
    dataDir,
    databaseUrl: database?.url,
    nodeArgs: env ? ['--import', PRELOAD] : [],
    env: { ...(env ?? {}), ...(PROCESSES > 1 && !entry ? { PANX_PROCESSES: String(PROCESSES) } : {}) },
    entry,
  });
  try {
    const ids = await seed(server);
    for (const scenario of scenarios(ids).filter((scenario) => !only || only.includes(scenario.name))) {
      const check = await rawCall(server.url, server.token, scenario.route, scenario.body);
      if (check.status !== 200) throw new Error(`${scenario.name} answered ${check.status}: ${JSON.stringify(check.body)}`);
      if (!describeResponseFile && scenario.name === 'project describe') {
        describeResponseFile = path.join(tmp, 'describe-response.json');
        fs.writeFileSync(describeResponseFile, JSON.stringify(check.body));
      }
      const result = await runWrk({
        url: server.url,
        route: scenario.route,
        body: scenario.body,
        token: server.token,
        connections,
        durationS,
        warmupS,
        repeat,
        serverPid: server.pid,
      });
      sink.push({ backend: label, scenario: scenario.name, target: scenario.target, ...result });
      console.log(
        `${label.padEnd(8)} ${scenario.name.padEnd(30)} ${fmt(result.rps, 0).padStart(7)} req/s  p50 ${fmt(result.p50Ms, 2)} ms  p99 ${fmt(result.p99Ms, 2)} ms  errors ${result.errors}  CPU: server ${fmt(result.cpu.serverCores, 2)} postgres ${fmt(result.cpu.postgresCores, 2)} wrk ${fmt(result.cpu.loadGeneratorCores, 2)} other ${fmt(result.cpu.otherCores, 2)}`,
      );
    }
    return ids;
  } finally {
    await server.stop();
    await database?.drop();
  }
}

async function measureBaseline(mode) {
  const port = await freePort();
  const child = spawnTracked(process.execPath, [path.join(ROOT, 'bench/baseline-server.mjs'), mode, String(port), describeResponseFile], { cwd: ROOT });
  child.stdout.resume();
  child.stderr.resume();
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, 30_000, child);
    const route = 'project-BBBBBBBBBBBBBBBBBBBBBBBB/describe';
    const result = await runWrk({ url, route, body: {}, token: 'constant', connections, durationS, warmupS, repeat, serverPid: child.pid });
    const name = `baseline: ${mode === 'node' ? 'node:http' : 'Fastify'} constant JSON`;
    rows.push({ backend: 'baseline', scenario: name, target: false, ...result });
    console.log(
      `baseline ${name.padEnd(30)} ${fmt(result.rps, 0).padStart(7)} req/s  p50 ${fmt(result.p50Ms, 2)} ms  p99 ${fmt(result.p99Ms, 2)} ms  CPU: server ${fmt(result.cpu.serverCores, 2)} wrk ${fmt(result.cpu.loadGeneratorCores, 2)} other ${fmt(result.cpu.otherCores, 2)}`,
    );
  } finally {
    await stopChild(child);
  }
}

/**
 * Explains the figures and tries fixes through bench/experiments/db-preload.mjs (no server edits):
 * time per SQL statement under project-describe load, then a prepared-statement cache on SQLite and
 * named prepared statements on PostgreSQL.
 */
async function experiments(backends) {
  const found = [];
  for (const backend of backends) {
    const timingFile = path.join(tmp, `sql-timing-${backend}.json`);
    const sink = [];
    await measureBackend(backend, {
      label: `${backend}+sql-timing`,
      env: { PANX_BENCH_SQL_TIMING: timingFile },
      only: ['project describe', 'file describe'],
      sink,
    });
    const timings = JSON.parse(fs.readFileSync(timingFile, 'utf8'));
    const total = timings.reduce((sum, row) => sum + row.totalMs, 0);
    const requests = sink.reduce((sum, row) => sum + row.requests, 0);
    console.log(
      `\n${backend}: time in the database driver per statement under project + file describe load (${fmt(total / 1000, 1)} s in all; ${requests} measured requests plus warm-up)`,
    );
    printTable(
      ['statement', 'calls', 'mean µs', 'share of DB time'],
      timings
        .slice(0, 14)
        .map((row) => [row.sql.slice(0, 150), row.calls, fmt((row.totalMs / row.calls) * 1000, 0), `${fmt((row.totalMs / total) * 100, 1)} %`]),
    );
    found.push({ backend, sqlTiming: timings.slice(0, 30), totalMs: total });
  }
  const sink = [];
  const describes = ['project describe', 'file describe', 'file describe (project hint)'];
  if (backends.includes('sqlite')) {
    await measureBackend('sqlite', { label: 'sqlite+stmt-cache', env: { PANX_BENCH_STMT_CACHE: '1' }, sink });
    await measureBackend('sqlite', { label: 'sqlite+2-processes', env: {}, entry: CLUSTER, only: describes, sink });
    await measureBackend('sqlite', { label: 'sqlite+2-processes+stmt-cache', env: { PANX_BENCH_STMT_CACHE: '1' }, entry: CLUSTER, only: describes, sink });
  }
  if (backends.includes('postgres')) await measureBackend('postgres', { label: 'postgres+prepared', env: { PANX_BENCH_PG_PREPARED: '1' }, sink });
  console.log('\n## Experiments: the same calls with a fix preloaded (bench/experiments/db-preload.mjs)\n');
  printTable(
    ['variant', 'call', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'server CPU µs/req', 'CPU server', 'CPU postgres', 'CPU other', 'vs unpatched'],
    sink.map((row) => {
      const plain = rows.find((other) => other.backend === row.backend.split('+')[0] && other.scenario === row.scenario);
      return [
        row.backend,
        row.scenario,
        fmt(row.rps, 0),
        fmt(row.p50Ms, 2),
        fmt(row.p99Ms, 2),
        row.errors,
        fmt((row.cpu.serverCores / row.rps) * 1e6, 0),
        fmt(row.cpu.serverCores, 2),
        fmt(row.cpu.postgresCores, 2),
        fmt(row.cpu.otherCores, 2),
        plain ? `${fmt(row.rps / plain.rps, 2)} ×` : '',
      ];
    }),
  );
  found.push({ variants: sink });
  return found;
}

async function profileSqlite() {
  const profileDir = path.join(RESULTS_DIR, 'profiles');
  fs.rmSync(profileDir, { recursive: true, force: true });
  fs.mkdirSync(profileDir, { recursive: true });
  const server = await startPanx({ dataDir: path.join(tmp, 'sqlite-profile'), nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
  let ids;
  try {
    ids = await seed(server);
    for (const scenario of scenarios(ids).slice(0, 2)) {
      await runWrk({
        url: server.url,
        route: scenario.route,
        body: scenario.body,
        token: server.token,
        connections,
        durationS,
        warmupS: 1,
        serverPid: server.pid,
      });
    }
  } finally {
    await server.stop();
  }
  const file = fs.readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no CPU profile was written');
  console.log(`\nCPU profile of the SQLite server under project + file describe load: ${path.relative(ROOT, path.join(profileDir, file))}`);
  const summary = summarizeCpuProfile(path.join(profileDir, file), 30);
  printProfile(summary, 30);
  return summary;
}

try {
  const backends = backendsFrom(args);
  for (const backend of backends) await measureBackend(backend);
  await measureBaseline('fastify');
  await measureBaseline('node');

  const fastify = rows.find((row) => row.scenario.startsWith('baseline: Fastify'));
  console.log('\n## API throughput (64 connections)\n');
  printTable(
    [
      'backend',
      'call',
      'req/s',
      'p50 ms',
      'p99 ms',
      'errors',
      'server CPU µs/req',
      'CPU server',
      'CPU postgres',
      'CPU wrk',
      'CPU other',
      'vs Fastify ceiling',
      'target',
    ],
    rows.map((row) => [
      row.backend,
      row.scenario,
      fmt(row.rps, 0),
      fmt(row.p50Ms, 2),
      fmt(row.p99Ms, 2),
      row.errors,
      fmt((row.cpu.serverCores / row.rps) * 1e6, 0),
      fmt(row.cpu.serverCores, 2),
      fmt(row.cpu.postgresCores, 2),
      fmt(row.cpu.loadGeneratorCores, 2),
      fmt(row.cpu.otherCores, 2),
      fastify ? `${fmt((row.rps / fastify.rps) * 100, 1)} %` : 'n/a',
      row.target ? (row.rps >= TARGET_RPS && row.p99Ms < TARGET_P99_MS && row.errors === 0 ? 'pass' : 'FAIL') : '',
    ]),
  );
  const sqlite = (name) => rows.find((row) => row.backend === 'sqlite' && row.scenario === name);
  const postgres = (name) => rows.find((row) => row.backend === 'postgres' && row.scenario === name);
  console.log('\nPostgreSQL / SQLite throughput:');
  for (const name of [...new Set(rows.filter((row) => row.backend === 'sqlite').map((row) => row.scenario))]) {
    const a = sqlite(name);
    const b = postgres(name);
    if (a && b) console.log(`  ${name}: ${fmt((b.rps / a.rps) * 100, 1)} %`);
  }
  console.log(`\ntarget: describe ≥ ${TARGET_RPS} req/s with p99 < ${TARGET_P99_MS} ms on SQLite (the "target" column judges every backend by it).
CPU columns are cores used during the measured seconds (2 = the whole machine); "other" is work outside the server, PostgreSQL and wrk (kernel networking, other processes).
"server CPU µs/req" is the server's CPU time per request: the figure least disturbed by other work on the machine (one Node process can do at most 1e6 / that many requests per second).`);

  const experimentRows = args.experiments ? await experiments(backends) : undefined;
  const profile = args.profile ? await profileSqlite() : undefined;
  saveResults('api-throughput', { connections, durationS, warmupS, rows, experiments: experimentRows, profile, machine });
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
