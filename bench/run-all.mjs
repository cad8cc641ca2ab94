// `npm run bench`: builds once, then runs every benchmark in turn (each prints its own tables and
// saves its figures as JSON in node_modules/.cache/panx-bench/). Run by hand on an otherwise idle
// machine; never part of `npm test`. Takes about 15 minutes (most of it seeding 1,000,000 objects
// into SQLite and PostgreSQL and the 2 GiB transfers).
//
//   npm run bench                  everything, at the sizes of the targets
//   npm run bench -- --quick       a smoke run at small sizes (minutes), figures not comparable
//   npm run bench -- --only=api-throughput,large-scale,transfer
//   npm run bench -- --backends=sqlite
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build, parseArgs, ROOT } from './lib.mjs';

const args = parseArgs();
const quick = Boolean(args.quick);
const only = args.only ? String(args.only).split(',') : undefined;
const common = [...(args.backends ? [`--backends=${args.backends}`] : []), '--no-build'];

const benchmarks = [
  { name: 'api-throughput', args: [...common, ...(quick ? ['--duration=3', '--warmup=1'] : ['--experiments'])] },
  { name: 'large-scale', args: [...common, ...(quick ? ['--objects=100000', '--folder-files=20000', '--runs=10'] : [])] },
  { name: 'transfer', args: ['--no-build', ...(quick ? ['--size-mib=256', '--runs=1'] : [])] },
];

build(args);
let failed = 0;
for (const benchmark of benchmarks) {
  if (only && !only.includes(benchmark.name)) continue;
  console.log(`\n${'='.repeat(100)}\n${benchmark.name}: node bench/${benchmark.name}.mjs ${benchmark.args.join(' ')}\n${'='.repeat(100)}\n`);
  const result = spawnSync(process.execPath, [path.join(ROOT, 'bench', `${benchmark.name}.mjs`), ...benchmark.args], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    failed++;
    console.log(`\n${benchmark.name} stopped with status ${result.status ?? result.signal}`);
  }
}
process.exit(failed ? 1 : 0);
