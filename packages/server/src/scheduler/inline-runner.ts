import fs from 'node:fs';
import path from 'node:path';
import type { Stores } from '../db/stores.js';
import type { JobEngine } from '../modules/jobs/job-engine.js';
import { describeJob, jobFieldSelector } from '../modules/jobs/job-describe.js';
import type { JobLogsService } from '../modules/jobs/job-logs.service.js';
import { ownPrice } from '../modules/jobs/job-model.js';
import type { JobRow } from '../modules/jobs/jobs.repository.js';
import { Api, apiSource, type ExecutableDescription, type JobDescription, outcomeOf, prepareEntryPoint, RunnerError } from '../worker/runner-core.js';
import type { ExitStatus, LaunchSpec } from './executors/executor.js';
import type { HelperHostProcess } from './helper-host-process.js';

/** Written into a try's directory when the server prepared it: the server, not a runner, records its outcome. */
const MARKER = path.join('panx', 'inline.json');

interface Marker {
  home: string;
  function: string;
}

/**
 * The job runner's work done inside the server, for the local executor: the job's directory is
 * prepared here (job_input.json, input variables, bundled resources — the same code as the runner
 * process, worker/runner-core.ts), the executor starts only the entry point (bash or python3, no
 * Node process per job), and when it exits its outcome (job_output.json, job_error.json, exit code)
 * is read from the directory and recorded before the engine applies it.
 *
 * Crash safety is the executor's: the entry point runs detached with its output in files and its
 * exit code written by the executor's wrapper, so a server that restarts re-attaches to it and
 * records its outcome from the same files. A crash before the launch leaves no process handle,
 * which the scheduler treats as a lost process (restarted or failed).
 */
export class InlineRunner {
  constructor(
    private readonly stores: Stores,
    private readonly engine: JobEngine,
    private readonly logs: JobLogsService,
    /** Runs the dx helpers of the jobs prepared here, so that their calls do not start Node each. */
    private readonly helperHost?: HelperHostProcess,
  ) {}

  /** Prepares the try's directory; answers the launch spec of its entry point (env and command replaced). */
  async prepare(job: JobRow, spec: LaunchSpec, now: number): Promise<LaunchSpec> {
    const home = spec.env.HOME ?? path.join(spec.workDir, 'home');
    const described = describeJob(jobFieldSelector(undefined), job, { totalPrice: ownPrice(job, now) }) as unknown as JobDescription;
    const executable = (await this.engine.executableSpec(job)) as unknown as ExecutableDescription;
    const say = (message: string) => this.logs.system(job.id, job.try, message, 'INFO');
    const api = Api.fromEnvironment(spec.env);
    const source = {
      ...apiSource(api, job.workspace, () => {}),
      fileNames: async (ids: readonly string[]) => {
        const names = new Map<string, string>();
        for (const row of await this.stores.objects.findManyInContainer(job.workspace, ids)) names.set(row.objectId, row.name);
        for (const id of ids) if (!names.has(id)) names.set(id, id);
        return names;
      },
      say,
    };
    const helperHost = await this.helperHost?.reach(spec.env.PANX_WORKER_TOOLS_BIN);
    const entry = await prepareEntryPoint({ job: described, executable, jobDir: spec.workDir, home, env: spec.env, source, helperHost });
    const marker: Marker = { home, function: job.function };
    fs.writeFileSync(path.join(spec.workDir, MARKER), JSON.stringify(marker));
    await say(`Running ${job.function} (${executable.runSpec.interpreter})`);
    return {
      ...spec,
      // The executor starts commands in the try's directory; the entry point runs in HOME (bash's
      // script changes there itself, python3 goes through a shell that does).
      command: entry.entersCwd ? [entry.command, ...entry.args] : ['/bin/sh', '-c', 'cd "$0" && exec "$@"', entry.cwd, entry.command, ...entry.args],
      env: entry.env,
    };
  }

  /**
   * A preparation that failed: recorded as the runner process would report it, so that the engine
   * fails (or restarts) the job with the same reason.
   */
  async prepareFailed(job: JobRow, error: unknown, now: number): Promise<void> {
    const runnerError = error instanceof RunnerError ? error : new RunnerError('ExecutionError', (error as Error).message);
    await this.logs.system(job.id, job.try, `The job could not run: ${runnerError.message}`, 'INFO', now);
    await this.engine.recordOutcome(
      job,
      { try: job.try, exitCode: null, signal: null, output: null, error: { type: runnerError.type, message: runnerError.message } },
      now,
    );
  }

  /** The entry point of a try prepared here has exited: its outcome, read from its directory, is recorded. */
  async finish(jobId: string, tryNumber: number, status: ExitStatus, workDir: string, now: number): Promise<void> {
    let marker: Marker;
    try {
      marker = JSON.parse(fs.readFileSync(path.join(workDir, MARKER), 'utf8')) as Marker;
    } catch {
      return; // a runner process's try (or nothing prepared): the runner reports
    }
    if (status.lost) return; // nothing says how it ended: the engine treats it as lost
    const job = await this.stores.jobs.findById(jobId);
    if (!job || job.try !== tryNumber || !['running', 'unresponsive', 'terminating'].includes(job.state)) return;
    const outcome = outcomeOf(marker.home, status);
    await this.logs.system(job.id, job.try, outcome.error ? `${marker.function} failed: ${outcome.error.message}` : `${marker.function} finished`, 'INFO', now);
    await this.engine.recordOutcome(
      job,
      { try: tryNumber, exitCode: status.exitCode, signal: status.signal, output: outcome.output ?? null, error: outcome.error ?? null },
      now,
    );
  }
}
