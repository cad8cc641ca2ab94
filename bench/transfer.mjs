// Target 3: upload and download of a 2 GiB file with the CLI (`px upload` / `px download`) at
// ≥ 80 % of the throughput of `curl` copying the same bytes to and from a plain local HTTP server
// (bench/baseline-file-server.mjs), measured side by side in this run.
//
//   node bench/transfer.mjs [--size-mib=2048] [--runs=3] [--warmup=1] [--parts=8] [--part-size-mib=16] [--profile] [--no-build]
//
// curl and px take turns run by run (both upload, then both download, the first to download
// alternating), so that both meet the same machine load. Panx runs on SQLite with the local blob store. `px upload` is timed until the command returns
// and, separately, until the file is closed (closing completes the upload on the server); the
// end-to-end time (uploaded and closed, the file usable) is the one compared with curl, whose
// upload ends when the server has written the file. `px download` includes its md5 check of the
// parts. Every copy of the last run is checked byte for byte against the source.
// --profile: one more upload and download with the server and px under `node --cpu-prof`.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  build,
  fmt,
  freePort,
  parseArgs,
  printMachine,
  printProfile,
  printTable,
  processTicks,
  RESULTS_DIR,
  ROOT,
  runProcess,
  saveResults,
  sleep,
  spawnTracked,
  startPanx,
  stopChild,
  summarize,
  summarizeCpuProfile,
  waitForHttp,
  waitForQuiet,
} from './lib.mjs';

const args = parseArgs();
const SIZE = Number(args['size-mib'] ?? 2048) * 1024 * 1024;
const RUNS = Number(args.runs ?? 3);
const WARMUP = Number(args.warmup ?? 1);
// px's own defaults (8 parts in parallel, 16 MiB each) unless given.
const PARTS = String(args.parts ?? 8);
const PART_SIZE_MIB = String(args['part-size-mib'] ?? 16);
const TARGET_RATIO = 0.8;
const PX = path.join(ROOT, 'packages/cli/bin/px.js');
const MiB = 1024 * 1024;

build(args);
if (!fs.existsSync(path.join(ROOT, 'packages/cli/dist/commands/transfer.js'))) {
  console.log('px upload/download are not built (packages/cli/dist/commands/transfer.js is missing): nothing to measure');
  process.exit(1);
}
if (spawnSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' }).status !== 0) {
  console.log('curl is missing: installing it with apt-get');
  spawnSync('apt-get', ['install', '-y', 'curl'], { stdio: 'inherit' });
}
const machine = printMachine();
console.log(`${fmt(SIZE / MiB, 0)} MiB file, ${RUNS} runs each; px --parts ${PARTS} --part-size ${PART_SIZE_MIB} (MiB); Panx on SQLite + local blob store\n`);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-transfer-'));
const source = path.join(tmp, 'source.bin');

/** Random-looking bytes, fast: a 64 MiB random block written repeatedly, each copy stamped with its offset. */
function writeSource() {
  const block = randomBytes(64 * MiB);
  const fd = fs.openSync(source, 'w');
  try {
    for (let offset = 0; offset < SIZE; offset += block.length) {
      block.writeBigUInt64LE(BigInt(offset), 0);
      fs.writeSync(fd, block, 0, Math.min(block.length, SIZE - offset));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Runs a command, polling its CPU and that of `watchPid`; answers wall seconds and CPU cores used. */
async function timed(command, commandArgs, { env, watchPid } = {}) {
  const started = process.hrtime.bigint();
  const watchBefore = watchPid ? processTicks(watchPid) : 0;
  let childTicks = 0;
  const output = await runProcess(command, commandArgs, {
    env: { ...process.env, ...env },
    onSpawn: (child) => {
      const timer = setInterval(() => {
        childTicks = Math.max(childTicks, processTicks(child.pid));
      }, 100);
      child.once('exit', () => clearInterval(timer));
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const watched = watchPid ? (processTicks(watchPid) - watchBefore) / 100 / seconds : undefined;
  return { seconds, output, clientCores: childTicks / 100 / seconds, serverCores: watched };
}

/** Before every timed copy: flush dirty pages (earlier copies' writeback must not slow this one), then wait for a quiet machine. */
async function settle() {
  spawnSync('sync');
  await waitForQuiet();
}

function sameBytes(a, b) {
  return spawnSync('cmp', ['-s', a, b]).status === 0;
}

const results = [];
function record(row) {
  results.push(row);
  console.log(
    `${row.tool.padEnd(30)} ${row.direction.padEnd(9)} run ${row.run}: ${fmt(row.seconds, 2).padStart(6)} s  ${fmt(row.mibPerS, 0).padStart(5)} MiB/s  CPU client ${fmt(row.clientCores, 2)} server ${fmt(row.serverCores, 2)}${row.note ? `  ${row.note}` : ''}`,
  );
}

/** The curl baseline: a plain file server, and one timed round (upload, upload with fsync, download) per call of `run`. */
async function startBaseline() {
  const dir = path.join(tmp, 'baseline');
  fs.mkdirSync(dir);
  fs.linkSync(source, path.join(dir, 'source.bin'));
  const port = await freePort();
  const server = spawnTracked(process.execPath, [path.join(ROOT, 'bench/baseline-file-server.mjs'), String(port), dir]);
  server.stdout.resume();
  server.stderr.resume();
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, 30_000, server);
  return {
    async upload(run, check) {
      await settle();
      const put = await timed('curl', ['-sS', '-f', '-T', source, '-o', '/dev/null', `${url}/upload.bin`], { watchPid: server.pid });
      if (check && !sameBytes(source, path.join(dir, 'upload.bin'))) throw new Error('curl upload: the bytes differ');
      fs.rmSync(path.join(dir, 'upload.bin'), { force: true });
      record({ tool: 'curl + node:http file server', direction: 'upload', run, ...put, mibPerS: SIZE / MiB / put.seconds });

      // The same with an fsync before the answer: what durability costs (Panx fsyncs every part).
      await settle();
      const synced = await timed('curl', ['-sS', '-f', '-T', source, '-o', '/dev/null', `${url}/upload.bin?fsync=1`], { watchPid: server.pid });
      fs.rmSync(path.join(dir, 'upload.bin'), { force: true });
      record({ tool: 'curl + file server with fsync', direction: 'upload', run, ...synced, mibPerS: SIZE / MiB / synced.seconds });
    },
    async download(run, check) {
      const out = path.join(tmp, 'curl-download.bin');
      await settle();
      const get = await timed('curl', ['-sS', '-f', '-o', out, `${url}/source.bin`], { watchPid: server.pid });
      if (check && !sameBytes(source, out)) throw new Error('curl download: the bytes differ');
      fs.rmSync(out, { force: true });
      record({ tool: 'curl + node:http file server', direction: 'download', run, ...get, mibPerS: SIZE / MiB / get.seconds });
    },
    async stop() {
      await stopChild(server);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function waitClosed(server, project, id) {
  for (;;) {
    const { state } = await server.call(`${id}/describe`, { project, fields: { state: true } });
    if (state === 'closed') return;
    if (state !== 'open' && state !== 'closing') throw new Error(`${id} is ${state}`);
    await sleep(50);
  }
}

/** Panx on SQLite + local blobs, and one timed round (px upload until closed, px download) per call of `run`. */
async function startPanxRounds({ profileDir } = {}) {
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, 'server')}`] : [];
  const server = await startPanx({ dataDir: path.join(tmp, 'panx'), nodeArgs });
  const configDir = path.join(tmp, 'px-config');
  const env = { PANX_SERVER: server.url, PANX_TOKEN: server.token, PANX_CONFIG_DIR: configDir };
  const pxArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, 'px')}`, PX] : [PX];
  const tool = profileDir ? 'px (profiled)' : 'px';
  const { id: project } = await server.call('project/new', { name: 'transfer bench' });
  let keep;
  return {
    async upload(run) {
      await settle();
      const name = `upload_${run}.bin`;
      const put = await timed(
        process.execPath,
        [...pxArgs, 'upload', source, '-d', `${project}:/${name}`, '--parts', PARTS, '--part-size', PART_SIZE_MIB, '--no-progress', '--json'],
        { env, watchPid: server.pid },
      );
      const [{ id }] = JSON.parse(put.output);
      const closeStart = process.hrtime.bigint();
      await waitClosed(server, project, id);
      const closeSeconds = Number(process.hrtime.bigint() - closeStart) / 1e9;
      record({ tool, direction: 'upload (px returned)', run, ...put, mibPerS: SIZE / MiB / put.seconds });
      const endToEnd = put.seconds + closeSeconds;
      record({
        tool,
        direction: 'upload',
        run,
        seconds: endToEnd,
        clientCores: put.clientCores,
        serverCores: put.serverCores,
        mibPerS: SIZE / MiB / endToEnd,
        note: `(parts ${fmt(put.seconds, 2)} s + closing ${fmt(closeSeconds, 2)} s)`,
      });
      if (keep) await server.call(`${project}/removeObjects`, { objects: [keep] });
      keep = id;
    },
    async download(run, check) {
      const id = keep;
      const out = path.join(tmp, 'px-download.bin');
      await settle();
      const get = await timed(process.execPath, [...pxArgs, 'download', `${project}:${id}`, '-o', out, '-f', '--no-progress'], { env, watchPid: server.pid });
      if (check && !sameBytes(source, out)) throw new Error('px upload + download: the bytes differ from the source');
      fs.rmSync(out, { force: true });
      record({ tool, direction: 'download', run, ...get, mibPerS: SIZE / MiB / get.seconds });
    },
    async stop() {
      await server.stop();
      fs.rmSync(path.join(tmp, 'panx'), { recursive: true, force: true });
    },
  };
}

function median(tool, direction) {
  const rows = results.filter((row) => row.tool === tool && row.direction === direction);
  return rows.length ? { seconds: summarize(rows.map((row) => row.seconds)), mibPerS: summarize(rows.map((row) => row.mibPerS)) } : undefined;
}

try {
  const t0 = Date.now();
  writeSource();
  console.log(`source file written in ${fmt((Date.now() - t0) / 1000, 1)} s: ${source}\n`);
  // curl and px take turns, so that both see the same machine (its load varies): both upload, then
  // both download, the one going first in turn. The order matters for downloads on a VM: writing a
  // file into the page cache costs 2-3 times the system time when the kernel hands out pages that
  // were free for a while than right after another 2 GiB file was deleted (measured with curl alone,
  // 24 Nov 2026), and each download's output is deleted after it.
  const curlRounds = await startBaseline();
  const pxRounds = await startPanxRounds();
  const round = async (run, check) => {
    await curlRounds.upload(run, check);
    await pxRounds.upload(run, check);
    const downloads = run % 2 === 0 ? [pxRounds, curlRounds] : [curlRounds, pxRounds];
    for (const rounds of downloads) await rounds.download(run, check);
  };
  try {
    // A warm-up round, not counted: both servers are long-lived in practice.
    for (let run = 1 - WARMUP; run <= 0; run++) {
      console.log(`(warm-up round ${run + WARMUP} of ${WARMUP}, not counted)`);
      await round(run, false);
    }
    results.splice(0, results.length, ...results.filter((row) => row.run > 0));
    for (let run = 1; run <= RUNS; run++) await round(run, run === RUNS);
  } finally {
    await curlRounds.stop();
    await pxRounds.stop();
  }

  console.log(`\n## Transfer of ${fmt(SIZE / MiB, 0)} MiB (median of ${RUNS} runs)\n`);
  const table = [];
  const summary = {};
  for (const [direction, pxDirection] of [
    ['upload', 'upload'],
    ['download', 'download'],
  ]) {
    const curl = median('curl + node:http file server', direction);
    const px = median('px', pxDirection);
    const ratio = px.mibPerS.median / curl.mibPerS.median;
    summary[direction] = { curl, px, ratio, pass: ratio >= TARGET_RATIO };
    table.push([
      direction === 'upload' ? 'upload (until closed)' : direction,
      `${fmt(curl.mibPerS.median, 0)} MiB/s (${fmt(curl.seconds.median, 2)} s)`,
      `${fmt(px.mibPerS.median, 0)} MiB/s (${fmt(px.seconds.median, 2)} s)`,
      `${fmt(ratio * 100, 1)} %`,
      ratio >= TARGET_RATIO ? 'pass' : 'FAIL',
    ]);
  }
  const returned = median('px', 'upload (px returned)');
  const curlUp = median('curl + node:http file server', 'upload');
  const curlSynced = median('curl + file server with fsync', 'upload');
  table.push([
    'upload (until closed) vs curl to a server that fsyncs',
    `${fmt(curlSynced.mibPerS.median, 0)} MiB/s (${fmt(curlSynced.seconds.median, 2)} s)`,
    `${fmt(summary.upload.px.mibPerS.median, 0)} MiB/s`,
    `${fmt((summary.upload.px.mibPerS.median / curlSynced.mibPerS.median) * 100, 1)} %`,
    '',
  ]);
  table.push([
    'upload (until px returned, file still closing)',
    `${fmt(curlUp.mibPerS.median, 0)} MiB/s`,
    `${fmt(returned.mibPerS.median, 0)} MiB/s (${fmt(returned.seconds.median, 2)} s)`,
    `${fmt((returned.mibPerS.median / curlUp.mibPerS.median) * 100, 1)} %`,
    '',
  ]);
  printTable(['direction', 'curl (baseline)', 'px', 'px / curl', `target ≥ ${TARGET_RATIO * 100} %`], table);
  // Each run's own ratio: curl and px ran back to back, on the same machine load.
  for (const direction of ['upload', 'download']) {
    const ratios = [];
    for (let run = 1; run <= RUNS; run++) {
      const curl = results.find((row) => row.tool === 'curl + node:http file server' && row.direction === direction && row.run === run);
      const px = results.find((row) => row.tool === 'px' && row.direction === direction && row.run === run);
      if (curl && px) ratios.push(px.mibPerS / curl.mibPerS);
    }
    summary[direction].ratiosByRun = ratios;
    console.log(`px / curl ${direction}, run by run: ${ratios.map((ratio) => `${fmt(ratio * 100, 1)} %`).join(', ')}`);
  }

  let profiles;
  if (args.profile) {
    const profileDir = path.join(RESULTS_DIR, 'transfer-profiles');
    fs.rmSync(profileDir, { recursive: true, force: true });
    const profiled = await startPanxRounds({ profileDir });
    try {
      await profiled.upload(1, true);
      await profiled.download(1, true);
    } finally {
      await profiled.stop();
    }
    profiles = {};
    for (const who of ['server', 'px']) {
      const dir = path.join(profileDir, who);
      for (const file of fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile')) : []) {
        const summaryOf = summarizeCpuProfile(path.join(dir, file), 20);
        if (summaryOf.totalMs < 1000) continue; // px invocations other than the transfer itself
        console.log(`\n### ${who}: ${file}`);
        printProfile(summaryOf, 15);
        profiles[`${who}/${file}`] = summaryOf;
      }
    }
  }
  saveResults('transfer', { sizeBytes: SIZE, runs: RUNS, parts: PARTS, partSizeMiB: PART_SIZE_MIB, results, summary, profiles, machine });
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
