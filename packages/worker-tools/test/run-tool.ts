import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const toolsRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN_DIR = path.join(toolsRoot, 'bin');

if (!fs.existsSync(path.join(toolsRoot, 'dist', 'main.js'))) {
  throw new Error('packages/worker-tools/dist is missing: run "npm run build" before these tests (npm test does)');
}

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A job environment as the engine sets it (DX_*), with HOME as the job's work folder. */
export function jobEnv(options: { url?: string; token?: string; home: string; workspace?: string; project?: string; job?: string }): Record<string, string> {
  const env: Record<string, string> = { HOME: options.home, DX_RETRIES: '0' };
  if (options.url) {
    const url = new URL(options.url);
    env.DX_APISERVER_PROTOCOL = url.protocol.replace(':', '');
    env.DX_APISERVER_HOST = url.hostname;
    env.DX_APISERVER_PORT = url.port;
  }
  if (options.token) env.DX_SECURITY_CONTEXT = JSON.stringify({ auth_token_type: 'Bearer', auth_token: options.token });
  if (options.job) env.DX_JOB_ID = options.job;
  if (options.workspace) env.DX_WORKSPACE_ID = options.workspace;
  if (options.project) env.DX_PROJECT_CONTEXT_ID = options.project;
  return env;
}

/**
 * Runs a bin as a child process, with only the given environment (plus PATH). It must be
 * asynchronous: the API server under test runs in this process and has to keep answering. Its stdout
 * and stderr go to files opened for appending, as the executors give a job's script (a helper host
 * can write to those; Node's own stdio pipes are sockets, which it cannot open).
 */
export function runTool(name: string, args: string[], env: Record<string, string>, options: { cwd?: string; input?: string } = {}): Promise<ToolResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-tool-output-'));
  const files = { stdout: path.join(dir, 'stdout'), stderr: path.join(dir, 'stderr') };
  const stdout = fs.openSync(files.stdout, 'a');
  const stderr = fs.openSync(files.stderr, 'a');
  return new Promise<ToolResult>((resolve, reject) => {
    const child = spawn(path.join(BIN_DIR, name), args, {
      env: { PATH: `${BIN_DIR}:${path.dirname(process.execPath)}:/usr/bin:/bin`, ...env },
      cwd: options.cwd ?? env.HOME,
      stdio: ['pipe', stdout, stderr],
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: fs.readFileSync(files.stdout, 'utf8'), stderr: fs.readFileSync(files.stderr, 'utf8') }));
    child.stdin?.end(options.input ?? '');
  }).finally(() => {
    fs.closeSync(stdout);
    fs.closeSync(stderr);
    fs.rmSync(dir, { recursive: true, force: true });
  });
}

/** Runs a bin and fails with its output unless it exits 0. */
export async function toolOk(name: string, args: string[], env: Record<string, string>, options: { cwd?: string; input?: string } = {}): Promise<string> {
  const result = await runTool(name, args, env, options);
  if (result.code !== 0) throw new Error(`${name} ${args.join(' ')} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return result.stdout;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));
