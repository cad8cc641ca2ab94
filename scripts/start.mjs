#!/usr/bin/env node
// `npm start`: install what is missing, build, then serve. Every step is idempotent and quick when done.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

const lock = path.join(root, 'package-lock.json');
const stamp = path.join(root, 'node_modules', '.panx-installed');
const lockTime = fs.existsSync(lock) ? fs.statSync(lock).mtimeMs : 0;
if (!fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < lockTime) {
  console.log('[panx] installing dependencies (first start compiles better-sqlite3, about a minute)…');
  run('npm', ['install', '--no-audit', '--no-fund']);
  fs.writeFileSync(stamp, new Date().toISOString());
}
// The Debian tools the bundled genomics apps run (apps/); starting without them only stops those apps.
if (spawnSync(path.join(root, 'scripts', 'ensure-bio-tools.sh'), [], { cwd: root, stdio: 'inherit' }).status !== 0) {
  console.warn(
    '[panx] warning: the genomics tools (samtools, bcftools, bwa, minimap2, tabix, seqtk, fastp) are missing; the bundled apps will fail until they are installed',
  );
}
console.log('[panx] building…');
run('npm', ['run', 'build', '--silent']);
const web = path.join(root, 'packages', 'web', 'dist');
if (fs.existsSync(path.join(web, 'index.html')) && !process.env.PANX_WEB_DIR) process.env.PANX_WEB_DIR = web;
// The server's Node options (packages/server/src/node-flags.ts); V8 takes them only at start.
const { SERVER_NODE_FLAGS } = await import(pathToFileURL(path.join(root, 'packages', 'server', 'dist', 'node-flags.js')).href);
run(process.execPath, [...SERVER_NODE_FLAGS, path.join(root, 'packages', 'server', 'dist', 'main.js')]);
