/**
 * The job runner: what an executor starts for one try of a job (locally, or on a cluster node).
 * Everything it needs comes from its environment (the DNAnexus worker variables of reference §7.2
 * plus PANX_JOB_TRY, PANX_JOB_DIR, PANX_WORKER_TOOLS_BIN, PANX_BUNDLED_DEPENDS_ROOT), and it talks
 * to the platform only through the API, with the job's token:
 *
 * 1. describes the job and gets its executable's code (`applet-xxxx/get` / `app-xxxx/get`);
 * 2. unpacks the bundledDepends tarballs (into the job's own root, or `/` when configured);
 * 3. prepares HOME: job_input.json, dnanexus-job.json, dnanexus-executable.json, in/, out/;
 * 4. runs the entry point: bash as `bash -e -c 'cd $HOME; . vars; . code; <function>'` with the
 *    input variables, python3 with dxpy's `run()` (a small stand-in when dxpy is not installed),
 *    with a helper host in this process serving the job's dx helper calls meanwhile;
 * 5. reads job_output.json or job_error.json and reports the outcome (`job-xxxx/reportOutcome`),
 *    retrying while the server is unreachable, so that a restart of the server loses nothing.
 *
 * Steps 2–5 are runner-core.ts, shared with the in-server runner that the local executor uses by
 * default (scheduler/inline-runner.ts); this process is what Slurm (and `engine.local.runner:
 * "process"`) starts.
 *
 * Its own lines start with the SYSTEM marker so that the log shows them as SYSTEM lines; the
 * job's code writes straight to the runner's stdout and stderr.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import {
  Api,
  apiSource,
  type ExecutableDescription,
  type JobDescription,
  outcomeOf,
  prepareEntryPoint,
  RunnerError,
  type RunOutcome,
  SYSTEM,
  startJobHelperHost,
} from './runner-core.js';

const REPORT_PATIENCE_MS = 15 * 60_000;

function say(message: string): void {
  process.stdout.write(`${SYSTEM}${message}\n`);
}

function spawnAndWait(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ exitCode: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error) => reject(new RunnerError('ExecutionError', `${command} could not be started: ${error.message}`)));
    child.once('exit', (exitCode, signal) => resolve({ exitCode, signal }));
  });
}

async function main(): Promise<number> {
  const env = process.env;
  const jobId = env.DX_JOB_ID ?? '';
  const tryNumber = Number(env.PANX_JOB_TRY ?? 0);
  const home = env.HOME ?? process.cwd();
  const jobDir = env.PANX_JOB_DIR ?? path.dirname(home);
  const api = Api.fromEnvironment(env);

  let status: { exitCode: number | null; signal: string | null } = { exitCode: null, signal: null };
  let result: RunOutcome;
  try {
    if (!jobId || !api.hasToken) throw new RunnerError('ExecutionError', 'DX_JOB_ID and DX_SECURITY_CONTEXT must be set');
    const job = await api.call<JobDescription>(jobId, 'describe', {});
    const executableId = job.applet ?? job.app;
    if (!executableId) throw new RunnerError('ExecutionError', `${jobId} names no applet or app`);
    const executable = await api.call<ExecutableDescription>(executableId, 'get', executableId.startsWith('applet-') ? { project: job.workspace } : {});
    const host = await startJobHelperHost(env, jobDir);
    try {
      const entry = await prepareEntryPoint({ job, executable, jobDir, home, env, source: apiSource(api, job.workspace, say), helperHost: host });
      say(`Running ${job.function} (${executable.runSpec.interpreter})`);
      status = await spawnAndWait(entry.command, entry.args, entry.env, entry.cwd);
    } finally {
      await host?.close();
    }
    result = outcomeOf(home, status);
    say(result.error ? `${job.function} failed: ${result.error.message}` : `${job.function} finished`);
  } catch (error) {
    const runnerError = error instanceof RunnerError ? error : new RunnerError('ExecutionError', (error as Error).message);
    say(`The job could not run: ${runnerError.message}`);
    result = { error: { type: runnerError.type, message: runnerError.message } };
  }
  try {
    await api.call(jobId, 'reportOutcome', { try: tryNumber, exitCode: status.exitCode, signal: status.signal, ...result }, REPORT_PATIENCE_MS);
    return 0;
  } catch (error) {
    say(`Reporting the outcome failed: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
