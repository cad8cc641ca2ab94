// The API steps of one small upload, as the job helpers make them, timed one by one (medians of
// --runs): where a stage's upload time goes. By hand: `node bench/experiments/upload-steps.mjs`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, startPanx, summarize } from '../lib.mjs';

const args = parseArgs();
const runs = Number(args.runs ?? 30);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-upload-steps-'));
const server = await startPanx({ dataDir, nodeArgs: process.env.PROF ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.PROF}`] : [] });
const bytes = Buffer.alloc(200_000, 'acgt');
const md5 = createHash('md5').update(bytes).digest('hex');
const times = {};
const cpu = {};
// The server's CPU time (user + system, ms) from /proc: wall time of a step beyond it is waiting.
const serverCpuMs = () => {
  const fields = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const timed = async (step, fn) => {
  const cpuBefore = serverCpuMs();
  const started = performance.now();
  const result = await fn();
  times[step] ??= [];
  cpu[step] ??= [];
  times[step].push(performance.now() - started);
  cpu[step].push(serverCpuMs() - cpuBefore);
  return result;
};
try {
  const { id: project } = await server.call('project/new', { name: 'steps' });
  for (let i = 0; i < runs + 3; i++) {
    await timed('project describe (fileUploadParameters)', () => server.call(`${project}/describe`, { fields: { fileUploadParameters: true } }));
    const { id } = await timed('file/new', () => server.call('file/new', { project, name: `f${i}`, folder: '/' }));
    const { url, headers } = await timed('file upload URL', () => server.call(`${id}/upload`, { index: 1, md5, size: bytes.length }));
    await timed('PUT part', async () => {
      const response = await fetch(url, { method: 'PUT', headers, body: bytes });
      if (!response.ok) throw new Error(await response.text());
    });
    await timed('close', () => server.call(`${id}/close`, {}));
    const { state } = await timed('describe (state)', () => server.call(`${id}/describe`, { project, fields: { state: true } }));
    if (state !== 'closed') console.log(`${id} ${state} after close`);
    if (i < 3)
      for (const key of Object.keys(times)) {
        times[key] = [];
        cpu[key] = [];
      }
  }
  let total = 0;
  for (const [step, list] of Object.entries(times)) {
    const { median } = summarize(list);
    total += median;
    const cpuMean = cpu[step].reduce((a, b) => a + b, 0) / cpu[step].length;
    console.log(`${step.padEnd(42)} ${median.toFixed(2)} ms (server CPU, mean: ${cpuMean.toFixed(2)} ms)`);
  }
  console.log(`${'sum of medians'.padEnd(42)} ${total.toFixed(2)} ms`);
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
