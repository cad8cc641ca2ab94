import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cliRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const PX_BIN = path.join(cliRoot, 'bin', 'px.js');

if (!fs.existsSync(path.join(cliRoot, 'dist', 'main.js'))) {
  throw new Error('packages/cli/dist is missing: run "npm run build" before the CLI tests (npm test does)');
}

export interface PxResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface PxOptions {
  configDir: string;
  /** Written to stdin, which is then closed. */
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Runs `node bin/px.js ...` as a child process. It must be asynchronous: the API server under test
 * runs in this process and has to keep answering while the CLI waits for it.
 */
export function runPx(args: string[], options: PxOptions): Promise<PxResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PANX_CONFIG_DIR: options.configDir, PANX_RETRIES: '0', ...options.env };
    for (const key of ['PANX_SERVER', 'PANX_TOKEN', 'PANX_PROJECT']) if (!options.env?.[key]) delete env[key];
    const child = spawn(process.execPath, [PX_BIN, ...args], { env, cwd: options.cwd ?? options.configDir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs px and fails with its output unless it exits 0. */
export async function pxOk(args: string[], options: PxOptions): Promise<string> {
  const result = await runPx(args, options);
  if (result.code !== 0) throw new Error(`px ${args.join(' ')} exited ${result.code ?? result.signal}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result.stdout;
}

/** A new folder under `parent` (default: the system temp folder); suites remove their own in afterAll. */
export function tempDir(prefix: string, parent = os.tmpdir()): string {
  return fs.mkdtempSync(path.join(parent, prefix));
}
