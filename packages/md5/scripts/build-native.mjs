#!/usr/bin/env node
// Builds the native multi-buffer MD5 (binding.gyp) at install time. A machine without a C compiler
// still installs: @panx/md5 then hashes with node:crypto, one stream at a time, and says so once.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// npm runs install scripts with its bundled node-gyp on PATH (and npm_config_node_gyp pointing at it).
const gyp = process.env.npm_config_node_gyp;
const [command, args] = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  console.warn('@panx/md5: the native multi-buffer MD5 was not built; transfers will hash with node:crypto (slower)');
}
