// Shared helpers of the benchmarks: servers as child processes, PostgreSQL databases, API calls,
// the wrk load generator, CPU accounting from /proc, statistics and CPU-profile summaries.
// Benchmarks are run by hand (`npm run bench`), never by `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_MAIN = path.join(ROOT, 'packages/server/dist/main.js');
export const PG_ADMIN_URL = process.env.PANX_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// Under node_modules/.cache: ignored by git and by Biome (which checks bench/**).
/** Debian's Chromium and the launch arguments of the web app's browser tests (packages/web/test/browser.ts). */
export const CHROMIUM = process.env.PANX_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/web/test/chromium-args.json'), 'utf8'));
export const RESULTS_DIR = process.env.PANX_BENCH_RESULTS ?? path.join(ROOT, 'node_modules/.cache/panx-bench');
const CLK_TCK = 100;

// ---------- command line ----------

/** `--name=value` and `--flag` arguments into an object (`--no-x` sets x to false). */
export function parseArgs(argv = process.argv.slice(2)) {
  const args = {};
  for (const arg of argv) {
    const match = /^--(no-)?([^=]+)(?:=(.*))?$/.exec(arg);
    if (!match) continue;
    args[match[2]] = match[1] ? false : (match[3] ?? true);
  }
  return args;
}

/** Which backends to run: `--backends=sqlite,postgres` (default both). */
export function backendsFrom(args) {
  return String(args.backends ?? 'sqlite,postgres')
    .split(',')
    .filter(Boolean);
}

// ---------- processes ----------

const children = new Set();

function killAll() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/** Spawns a child that is killed when the benchmark exits, however it exits. */
export function spawnTracked(command, args, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Stops one child (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitForHttp(url, timeoutMs = 60_000, child) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Builds the server and CLI unless `--no-build`. */
export function build(args) {
  if (args.build === false) return;
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status === 0) return;
  // Others edit the tree meanwhile: a broken build of some package should not stop a benchmark
  // whose built files are there.
  if (!fs.existsSync(SERVER_MAIN)) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
  console.log(`warning: npm run build failed; measuring the files built before:\n${(result.stdout + result.stderr).split('\n').slice(0, 8).join('\n')}\n`);
}

// ---------- databases ----------

/** A fresh PostgreSQL database; `drop()` removes it. */
export async function createPgDatabase(prefix = 'panx_bench') {
  const { default: pg } = await import('pg');
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
  return {
    name,
    url,
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

// ---------- the Panx server ----------

/**
 * Starts `node packages/server/dist/main.js` on a free port. `backend` is `sqlite` (in `dataDir`) or
 * `postgres` (needs `databaseUrl`). Blobs stay local unless `env` selects S3.
 */
export async function startPanx({ dataDir, databaseUrl, token = `bench-${randomBytes(16).toString('hex')}`, nodeArgs = [], env = {}, entry = SERVER_MAIN }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  fs.mkdirSync(dataDir, { recursive: true });
  // BENCH_SERVER_NODE_ARGS: more Node options for the server (such as --trace-gc, which NODE_OPTIONS refuses).
  const extraArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  // The server runs with the Node options it is meant to run with (as `npm start` does); later
  // options (BENCH_SERVER_NODE_ARGS) override them, e.g. --initial-old-space-size=0 for V8's default.
  const { SERVER_NODE_FLAGS } = await import(pathToFileURL(path.join(ROOT, 'packages/server/dist/node-flags.js')).href);
  const child = spawnTracked(process.execPath, [...SERVER_NODE_FLAGS, ...extraArgs, ...nodeArgs, entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      PANX_DATA_DIR: dataDir,
      PANX_PORT: String(port),
      PANX_HOST: '127.0.0.1',
      PANX_PUBLIC_URL: url,
      PANX_ADMIN_TOKEN: token,
      PANX_ADMIN_PASSWORD: 'bench-admin-password',
      PANX_DEMO_PROJECT: 'false',
      PANX_LOG_LEVEL: process.env.PANX_LOG_LEVEL ?? 'warn',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
      ...env,
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  // BENCH_SERVER_LOG=<file>: the server's log (with PANX_LOG_LEVEL=info, every request and its time) goes there.
  if (process.env.BENCH_SERVER_LOG) child.stdout.pipe(fs.createWriteStream(process.env.BENCH_SERVER_LOG));
  else child.stdout.resume();
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) console.log(`  !! the Panx server (pid ${child.pid}) exited unexpectedly (${code ?? signal})${stderr ? `:\n${stderr.slice(-2000)}` : ''}`);
  });
  try {
    await waitForHttp(`${url}/health`, 120_000, child);
  } catch (error) {
    throw new Error(`${error.message}\n${stderr}`);
  }
  return {
    url,
    port,
    token,
    child,
    pid: child.pid,
    stderr: () => stderr,
    call: (route, body) => apiCall(url, token, route, body),
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One `POST /<route>` with a JSON body; answers `{ status, body, ms }` (ms: until the whole body arrived). */
export function rawCall(url, token, route, body = {}) {
  const payload = Buffer.from(JSON.stringify(body));
  const target = new URL(`/${route.replace(/^\//, '')}`, url);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const request = http.request(
      target,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': payload.length, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          const ms = Number(process.hrtime.bigint() - start) / 1e6;
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = text;
          }
          resolve({ status: response.statusCode, body: parsed, bytes: text.length, ms });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** `rawCall` that throws unless the answer is 200. */
export async function apiCall(url, token, route, body = {}) {
  const result = await rawCall(url, token, route, body);
  if (result.status !== 200) throw new Error(`${route} answered ${result.status}: ${JSON.stringify(result.body).slice(0, 500)}`);
  return result.body;
}

/** A non-admin user signed in with a password (the browser benches sign in as it): its name, password, token and a `call(route, body)`. */
export async function benchUser(server, username = 'benchuser') {
  const password = 'bench-user-password';
  await server.call('user/new', { username, email: `${username}@example.org`, first: 'Bench', last: 'User', password });
  const { access_token: token } = await apiCall(server.url, undefined, 'system/newAuthToken', { username, password });
  return { username, password, token, call: (route, body = {}) => apiCall(server.url, token, route, body) };
}

/** A trivial bash applet (`main() { :; }`) in `project`, with `runSpec` fields added; answers its id. */
export async function newNoopApplet(server, project, runSpec = {}) {
  const { id } = await server.call('applet/new', {
    project,
    name: 'noop',
    dxapi: '1.0.0',
    inputSpec: [],
    outputSpec: [],
    runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04', ...runSpec },
  });
  return id;
}

/** Uploads `bytes` as a one-part closed file and waits until it is closed; answers the file id. */
export async function uploadSmallFile(server, { project, folder = '/', name, bytes }) {
  const { id } = await server.call('file/new', { project, folder, name, parents: true });
  const { url, headers } = await server.call(`${id}/upload`, { index: 1, size: bytes.length });
  const response = await fetch(url, { method: 'PUT', headers: { ...headers, 'content-length': String(bytes.length) }, body: bytes });
  if (!response.ok) throw new Error(`upload of ${id} answered ${response.status}: ${await response.text()}`);
  await server.call(`${id}/close`, {});
  for (let i = 0; i < 200; i++) {
    const { state } = await server.call(`${id}/describe`, { project, fields: { state: true } });
    if (state === 'closed') return id;
    await sleep(10);
  }
  throw new Error(`${id} did not close`);
}

// ---------- wrk ----------

/** Installs Debian's wrk when it is missing (the benchmark's load generator). */
export function ensureWrk() {
  if (spawnSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' }).status === 0) return;
  console.log('wrk is missing: installing it with apt-get');
  let result = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  if (result.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    result = spawnSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  }
  if (result.status !== 0) throw new Error('could not install wrk (apt-get install -y wrk)');
}

function luaString(text) {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/**
 * Runs wrk (one thread, `connections` keep-alive connections) against `POST url+route` with a JSON
 * body. Answers requests/s, latency percentiles in ms, error counts, and the CPU used meanwhile by the
 * server process (`serverPid`), by PostgreSQL's processes and by the whole machine.
 */
export async function runWrk({ repeat = 1, ...options }) {
  // Others may share the machine: with repeat > 1, keep the run that got the most requests through
  // (the least disturbed one); its CPU columns show what else ran meanwhile.
  let best;
  for (let attempt = 0; attempt < repeat; attempt++) {
    const result = await runWrkOnce(options);
    if (!best || result.rps > best.rps) best = result;
  }
  return { ...best, repeat };
}

async function runWrkOnce({ url, route, body = {}, token, connections = 64, durationS = 10, warmupS = 2, threads = 1, serverPid }) {
  const script = path.join(os.tmpdir(), `panx-wrk-${process.pid}-${randomBytes(4).toString('hex')}.lua`);
  fs.writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      `wrk.body = ${luaString(JSON.stringify(body))}`,
      'wrk.headers["Content-Type"] = "application/json"',
      token ? `wrk.headers["Authorization"] = ${luaString(`Bearer ${token}`)}` : '',
      'done = function(summary, latency, requests)',
      '  local e = summary.errors',
      '  io.write(string.format("WRKJSON {\\"requests\\":%d,\\"durationUs\\":%d,\\"bytes\\":%d,\\"connectErrors\\":%d,\\"readErrors\\":%d,\\"writeErrors\\":%d,\\"statusErrors\\":%d,\\"timeouts\\":%d,\\"meanUs\\":%f,\\"p50\\":%d,\\"p90\\":%d,\\"p99\\":%d,\\"p999\\":%d,\\"maxUs\\":%d}\\n",',
      '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, latency.mean,',
      '    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))',
      'end',
    ].join('\n'),
  );
  const target = `${url}/${route.replace(/^\//, '')}`;
  const base = ['-t', String(threads), '-c', String(connections), '-s', script, '--timeout', '5s'];
  try {
    await waitForQuiet();
    if (warmupS > 0) await runProcess('wrk', [...base, '-d', `${warmupS}s`, target]);
    const before = cpuSnapshot(serverPid);
    let wrkTicks = 0;
    const output = await runProcess('wrk', [...base, '-d', `${durationS}s`, target], {
      onSpawn: (child) => {
        const timer = setInterval(() => {
          wrkTicks = Math.max(wrkTicks, processTicks(child.pid));
        }, 200);
        child.once('exit', () => clearInterval(timer));
      },
    });
    const after = cpuSnapshot(serverPid);
    const line = output.split('\n').find((l) => l.startsWith('WRKJSON '));
    if (!line) throw new Error(`wrk printed no summary:\n${output}`);
    const raw = JSON.parse(line.slice('WRKJSON '.length));
    const seconds = raw.durationUs / 1e6;
    const errors = raw.connectErrors + raw.readErrors + raw.writeErrors + raw.statusErrors + raw.timeouts;
    return {
      route,
      connections,
      requests: raw.requests,
      rps: raw.requests / seconds,
      errors,
      statusErrors: raw.statusErrors,
      meanMs: raw.meanUs / 1000,
      p50Ms: raw.p50 / 1000,
      p90Ms: raw.p90 / 1000,
      p99Ms: raw.p99 / 1000,
      p999Ms: raw.p999 / 1000,
      maxMs: raw.maxUs / 1000,
      responseBytes: raw.requests ? raw.bytes / raw.requests : 0,
      cpu: cpuDelta(before, after, wrkTicks),
    };
  } finally {
    fs.rmSync(script, { force: true });
  }
}

/** Runs a command to completion; answers stdout (throws with stderr on failure). */
export function runProcess(command, args, { onSpawn, ...options } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawnTracked(command, args, options);
    onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}): ${stderr || stdout}`));
    });
  });
}

// ---------- CPU accounting ----------

export function processTicks(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

function postgresTicks() {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm.startsWith('postgres')) total += processTicks(entry);
    } catch {
      // gone
    }
  }
  return total;
}

function machineTicks() {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3] + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { idle, total };
}

/** CPU ticks of a process and its children (a cluster's workers). */
export function treeTicks(pid) {
  let total = processTicks(pid);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) total += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return total;
}

export function cpuSnapshot(pid) {
  return { at: process.hrtime.bigint(), server: pid ? treeTicks(pid) : 0, postgres: postgresTicks(), machine: machineTicks() };
}

/**
 * CPU used between two snapshots, in cores (1.0 = one core busy the whole time). `otherCores` is
 * what neither the server, PostgreSQL nor the load generator used: other work on the machine (and
 * the kernel's share of loopback networking), i.e. noise.
 */
export function cpuDelta(before, after, loadGeneratorTicks = 0) {
  const seconds = Number(after.at - before.at) / 1e9;
  const busy = after.machine.total - before.machine.total - (after.machine.idle - before.machine.idle);
  const serverCores = (after.server - before.server) / CLK_TCK / seconds;
  const postgresCores = (after.postgres - before.postgres) / CLK_TCK / seconds;
  const loadGeneratorCores = loadGeneratorTicks / CLK_TCK / seconds;
  const machineCores = busy / CLK_TCK / seconds;
  return {
    serverCores,
    postgresCores,
    loadGeneratorCores,
    machineCores,
    otherCores: Math.max(0, machineCores - serverCores - postgresCores - loadGeneratorCores),
  };
}

/**
 * Waits until the machine is nearly idle (others share it: builds, test runs), so that a figure is
 * not someone else's compile. Gives up after `timeoutS` and says so.
 */
export async function waitForQuiet({
  maxBusyCores = Number(process.env.PANX_BENCH_MAX_BUSY ?? 0.3),
  timeoutS = Number(process.env.PANX_BENCH_QUIET_TIMEOUT ?? 300),
} = {}) {
  const deadline = Date.now() + timeoutS * 1000;
  let warned = false;
  for (;;) {
    const before = machineTicks();
    await sleep(1000);
    const after = machineTicks();
    const busy = (after.total - before.total - (after.idle - before.idle)) / CLK_TCK;
    if (busy <= maxBusyCores) return busy;
    if (Date.now() > deadline) {
      console.log(`  (machine still busy: ${fmt(busy, 2)} cores used by other processes; measuring anyway)`);
      return busy;
    }
    if (!warned) {
      console.log(`  (waiting for the machine to go quiet: ${fmt(busy, 2)} cores busy with other processes)`);
      warned = true;
    }
  }
}

// ---------- statistics and output ----------

export function percentile(sorted, p) {
  if (!sorted.length) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    min: sorted[0],
    // The middle value, or the mean of the two middle ones (the nearest-rank percentile would take
    // the lower one, so that with two runs a rate and the matching time came from different runs).
    median: sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2,
    p95: percentile(sorted, 95),
    max: sorted[sorted.length - 1],
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** Times `fn` `runs` times after `warmup` untimed calls; `fn` answers the ms it measured. */
export async function timeRuns(fn, { runs = 30, warmup = 3 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await fn());
  return summarize(samples);
}

export function fmt(value, digits = 1) {
  if (value === undefined || value === null || Number.isNaN(value)) return 'n/a';
  if (typeof value === 'string') return value;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Prints a Markdown table (so the output pastes into docs/benchmarks.md). */
export function printTable(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(cells[0]));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of cells.slice(1)) console.log(line(row));
}

export function machineDescription() {
  const cpus = os.cpus();
  let pgVersion = '';
  const psql = spawnSync('psql', [PG_ADMIN_URL, '-tAc', 'show server_version'], { encoding: 'utf8' });
  if (psql.status === 0) pgVersion = psql.stdout.trim();
  let sqliteVersion = '';
  return {
    date: new Date().toISOString(),
    cpu: `${cpus.length} × ${cpus[0]?.model ?? 'unknown'}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: pgVersion || 'unknown',
    get sqlite() {
      sqliteVersion ||= sqliteLibraryVersion();
      return sqliteVersion;
    },
  };
}

function sqliteLibraryVersion() {
  const result = spawnSync(
    process.execPath,
    ['-e', "const D=require('better-sqlite3');console.log(new D(':memory:').prepare('select sqlite_version() v').get().v)"],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return result.status === 0 ? result.stdout.trim() : 'unknown';
}

export function printMachine() {
  const machine = machineDescription();
  console.log(
    `machine: ${machine.cpu}, ${machine.memoryGiB} GiB RAM, ${machine.os}; Node ${machine.node}; PostgreSQL ${machine.postgres}; SQLite ${machine.sqlite}; ${machine.date}`,
  );
  return machine;
}

/** Saves a benchmark's figures as JSON in RESULTS_DIR (node_modules/.cache/panx-bench) for docs/benchmarks.md. */
export function saveResults(name, data) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify({ machine: machineDescription(), ...data }, null, 2)}\n`);
  console.log(`\nresults saved to ${path.relative(ROOT, file)}`);
}

// ---------- CPU profiles ----------

/**
 * Self time of a `.cpuprofile` by function and by package (`node_modules/<pkg>`, `node:` internals,
 * or the Panx package), to say where the time goes.
 */
export function summarizeCpuProfile(file, top = 25) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map();
  const byPackage = new Map();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id).callFrame;
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const fn = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const pkg = packageOf(frame);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }));
  return { totalMs: total / 1000, functions: rank(byFunction), packages: rank(byPackage) };
}

function shortUrl(url) {
  const text = url.replace(/^file:\/\//, '');
  const nm = text.lastIndexOf('node_modules/');
  if (nm >= 0) return text.slice(nm + 'node_modules/'.length);
  return text.startsWith(ROOT) ? text.slice(ROOT.length + 1) : text;
}

function packageOf(frame) {
  const { url, functionName } = frame;
  if (!url) {
    if (['(garbage collector)', '(idle)', '(program)', '(root)'].includes(functionName)) return functionName;
    return '(native)';
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const text = url.replace(/^file:\/\//, '');
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(text.slice(text.lastIndexOf('node_modules/')));
  if (text.includes('node_modules/') && match) return match[1];
  const panx = /packages\/([^/]+)\//.exec(text);
  return panx ? `@panx/${panx[1]}` : text;
}

export function printProfile(summary, top = 20) {
  console.log(`\nCPU profile: ${fmt(summary.totalMs, 0)} ms sampled`);
  console.log('\nself time by package:');
  printTable(
    ['package', 'ms', 'share'],
    summary.packages.slice(0, top).map((row) => [row.name, fmt(row.ms, 0), `${fmt(row.share * 100)} %`]),
  );
  console.log('\nself time by function:');
  printTable(
    ['function', 'ms', 'share'],
    summary.functions.slice(0, top).map((row) => [row.name, fmt(row.ms, 0), `${fmt(row.share * 100)} %`]),
  );
}
