import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JobRow } from '../modules/jobs/jobs.repository.js';
import type { LaunchSpec } from './executors/executor.js';

/** How jobs are started on this installation (from the engine configuration). */
export interface RunnerSettings {
  /** The API as the runner and the helpers reach it. */
  apiUrl: string;
  /** Directory of the dx helper commands, first on the job's PATH. */
  workerToolsBin: string;
  /** Jobs' working directories are `<workRoot>/<job id>/try-<n>`. */
  workRoot: string;
  bundledDependsRoot: 'job' | 'root';
  /** engine.execDepends (the runner's default when unset: install as root, check otherwise). */
  execDepends?: 'install' | 'check' | 'ignore' | undefined;
  /** argv that starts the job runner. */
  runnerCommand: string[];
  /**
   * Prepare each try in the server and start only its entry point (no runner process); the outcome
   * is read from the try's directory when it exits. Default: on for the local executor, whose
   * jobs' directories the server can read; the Slurm executor always starts the runner.
   */
  inline?: boolean;
}

/** packages/server, from this file in src/scheduler or dist/scheduler. */
const SERVER_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The built runner; while developing without a build, the TypeScript source through tsx. */
export function defaultRunnerCommand(): string[] {
  const built = path.join(SERVER_PACKAGE, 'dist', 'worker', 'job-runner.js');
  if (fs.existsSync(built)) return [process.execPath, built];
  const tsx = fileURLToPath(import.meta.resolve('tsx'));
  return [process.execPath, '--import', tsx, path.join(SERVER_PACKAGE, 'src', 'worker', 'job-runner.ts')];
}

export function defaultWorkerToolsBin(): string {
  return path.resolve(SERVER_PACKAGE, '..', 'worker-tools', 'bin');
}

export function workDirOf(job: Pick<JobRow, 'id' | 'try'>, workRoot: string): string {
  return path.join(workRoot, job.id, `try-${job.try}`);
}

/** Variables of the server's own environment a job may see (never its secrets). */
const PASSED_THROUGH = ['PATH', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'PYENV_ROOT', 'PYTHONPATH'];

/**
 * What the executor runs for a job's current try: the runner, with the DNAnexus worker environment
 * (reference §7.2) in its variables. `token` is the job's token (none when re-attaching).
 */
export function launchSpecFor(job: JobRow, token: string | null, settings: RunnerSettings, resourcesContainer: string | null): LaunchSpec {
  const api = new URL(settings.apiUrl);
  const protocol = api.protocol.replace(/:$/, '');
  const workDir = workDirOf(job, settings.workRoot);
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // pyenv's shims find their root through HOME, which becomes the job's.
  const pyenv = path.join(os.homedir(), '.pyenv');
  if (!env.PYENV_ROOT && fs.existsSync(pyenv)) env.PYENV_ROOT = pyenv;
  Object.assign(env, {
    HOME: path.join(workDir, 'home'),
    DX_APISERVER_HOST: api.hostname.replace(/^\[|\]$/g, ''),
    DX_APISERVER_PORT: api.port || (protocol === 'https' ? '443' : '80'),
    DX_APISERVER_PROTOCOL: protocol,
    DX_JOB_ID: job.id,
    DX_WORKSPACE_ID: job.workspace,
    DX_PROJECT_CONTEXT_ID: job.project,
    DX_CLI_WD: '/',
    PANX_JOB_TRY: String(job.try),
    PANX_JOB_DIR: workDir,
    PANX_WORKER_TOOLS_BIN: settings.workerToolsBin,
    PANX_BUNDLED_DEPENDS_ROOT: settings.bundledDependsRoot,
  });
  if (settings.execDepends) env.PANX_EXEC_DEPENDS = settings.execDepends;
  if (token) env.DX_SECURITY_CONTEXT = JSON.stringify({ auth_token_type: 'Bearer', auth_token: token });
  if (resourcesContainer) env.DX_RESOURCES_ID = resourcesContainer;
  return {
    jobId: job.id,
    try: job.try,
    resources: { cores: job.cores, memoryMB: job.memoryMB },
    command: settings.runnerCommand,
    env,
    workDir,
  };
}
