// Runs the API server as PANX_BENCH_WORKERS processes (default 2) sharing one port through
// node:cluster, to show what a second core adds: `bench/api-throughput.mjs --experiments` starts it
// in place of packages/server/dist/main.js. Workers start one after another (the first one runs the
// migrations and the bootstrap). Bench-only; not how Panx is deployed.
import cluster from 'node:cluster';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../packages/server/dist/main.js');
const workers = Number(process.env.PANX_BENCH_WORKERS ?? 2);

if (cluster.isPrimary) {
  let stopping = false;
  let started = 0;
  const forkOne = () => {
    const worker = cluster.fork();
    worker.stdout?.resume();
    worker.once('listening', () => {
      started++;
      if (started < workers) forkOne();
    });
  };
  forkOne();
  cluster.on('exit', (_worker, code, signal) => {
    if (!stopping) {
      console.error(`a worker exited (${code ?? signal}); stopping`);
      process.exit(1);
    }
  });
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      const check = setInterval(() => {
        if (!Object.keys(cluster.workers ?? {}).length) process.exit(0);
      }, 50);
      setTimeout(() => process.exit(0), 10_000).unref();
      check.unref();
    });
  }
} else {
  await import(pathToFileURL(main).href);
}
