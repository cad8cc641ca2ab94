#!/usr/bin/env node
// Root `postinstall`: put `px` on the PATH by symlinking packages/cli/bin/px.js into the global npm
// bin folder (`npm prefix -g`/bin) when it is writable; otherwise say how to run it (`npx px`).
// It never fails the install: every problem is reported and the script exits 0. The bin itself
// prints "run npm run build first" until dist/ exists, so linking before the build is fine.
// PANX_NO_LINK=1 skips it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const say = (line) => process.stdout.write(`[panx] ${line}\n`);
const fallback = 'run the CLI with "npx px" from the repository, or add packages/cli/bin to your PATH';

function globalBinDir() {
  let prefix = '';
  try {
    prefix = execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['prefix', '-g'], {
      encoding: 'utf8',
      timeout: 15_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    prefix = process.env.npm_config_prefix ?? '';
  }
  if (!prefix) return undefined;
  return process.platform === 'win32' ? prefix : path.join(prefix, 'bin');
}

function link() {
  if (process.env.PANX_NO_LINK) return;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const bin = path.join(root, 'packages', 'cli', 'bin', 'px.js');
  if (!fs.existsSync(bin)) return say(`px: ${bin} is missing; ${fallback}`);
  try {
    fs.chmodSync(bin, 0o755);
  } catch {
    // read-only checkout: the link still works through node's shebang if it is executable already
  }
  if (process.platform === 'win32') return say(`px: ${fallback}`);
  const dir = globalBinDir();
  if (!dir) return say(`px: could not find the global npm folder; ${fallback}`);
  const target = path.join(dir, 'px');
  let existing;
  try {
    existing = fs.lstatSync(target);
  } catch {
    existing = undefined;
  }
  if (existing) {
    if (!existing.isSymbolicLink()) return say(`px: ${target} exists and is not a link; left alone (${fallback})`);
    if (fs.readlinkSync(target) === bin) return say(`px is on the PATH (${target})`);
  }
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch {
    return say(`px: ${dir} is not writable; ${fallback}`);
  }
  // Replace a link to another checkout (or a dangling one) through a temporary name, atomically.
  const temporary = `${target}.panx-${process.pid}`;
  fs.symlinkSync(bin, temporary);
  fs.renameSync(temporary, target);
  say(`px linked: ${target} -> ${bin}`);
}

try {
  link();
} catch (error) {
  say(`px: not linked (${error instanceof Error ? error.message : String(error)}); ${fallback}`);
}
process.exit(0);
