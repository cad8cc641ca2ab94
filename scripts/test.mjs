#!/usr/bin/env node
// `npm test`: build (tests import the built contract), run every suite with vitest, and end with one
// line "N passed, N failed" totalling all of them (CI reads it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env }).status ?? 1;

if (!fs.existsSync(path.join(root, 'node_modules', '.bin', 'vitest'))) {
  if (run('npm', ['install', '--no-audit', '--no-fund']) !== 0) process.exit(1);
}
if (run('npm', ['run', 'build', '--silent']) !== 0) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
// Lint (Biome, warnings included) and the type check of every package and test count as two more
// tests: the code base is kept Biome-clean and strict. Skipped when arguments narrow the run to some suites.
const wholeRun = process.argv.length <= 2;
const checks = wholeRun
  ? [
      { name: 'lint', failed: run(path.join(root, 'node_modules', '.bin', 'biome'), ['check', '--error-on-warnings']) !== 0, fix: 'npm run lint' },
      { name: 'typecheck', failed: run('npm', ['run', 'typecheck', '--silent']) !== 0, fix: 'npm run typecheck' },
    ]
  : [];
for (const check of checks.filter((check) => check.failed)) console.log(`${check.name} failed (${check.fix} shows why)`);
const report = path.join(os.tmpdir(), `panx-vitest-${process.pid}.json`);
const status = run(path.join(root, 'node_modules', '.bin', 'vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
]);
let passed = 0;
let failed = 0;
try {
  const result = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = result.numPassedTests;
  failed =
    result.numFailedTests +
    (result.numRuntimeErrorTestSuites ?? 0) +
    (result.testResults ?? []).filter((suite) => suite.status === 'failed' && suite.assertionResults.length === 0).length;
} catch {
  failed = Math.max(failed, 1);
}
if (status !== 0 && failed === 0) failed = 1;
for (const check of checks) {
  if (check.failed) failed += 1;
  else passed += 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
