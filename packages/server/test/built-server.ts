import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_NODE_FLAGS } from '../src/node-flags.js';

/** Tests that run the server as a process of its own (crashes, several processes) run its build. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const serverDir = path.join(ROOT, 'packages/server');
const MAIN_JS = path.join(serverDir, 'dist/main.js');
/** `node`'s arguments for the built server, with the Node options it runs with in production. */
export const SERVER_ARGS: readonly string[] = [...SERVER_NODE_FLAGS, MAIN_JS];

/** Newest modification time of the files under a directory. */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Rebuilds the server when its sources are newer than the build (npm test has built it already). */
export function ensureServerBuilt(): void {
  const sources = Math.max(newest(path.join(serverDir, 'src')), newest(path.join(ROOT, 'packages/contract/src')));
  if (fs.existsSync(MAIN_JS) && fs.statSync(MAIN_JS).mtimeMs >= sources) return;
  const result = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'packages/server'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building the server failed:\n${result.stdout}${result.stderr}`);
}
