import path from 'node:path';
import { minLevel, type PermissionLevel } from '@panx/contract';
import type { Logger } from 'pino';
import type { Stores } from '../db/stores.js';
import type { AuthService } from '../modules/auth/auth.service.js';
import type { JobEngine, ProcessControl } from '../modules/jobs/job-engine.js';
import type { JobLogsService } from '../modules/jobs/job-logs.service.js';
import { jobSpec, logOffsetsOf } from '../modules/jobs/job-model.js';
import { PROCESS_STATES } from '../modules/jobs/job-state.js';
import type { JobRow } from '../modules/jobs/jobs.repository.js';
import type { AccessService } from '../modules/projects/access.service.js';
import type { ExecutionSink, Executor } from './executors/executor.js';
import { HelperHostProcess } from './helper-host-process.js';
import { InlineRunner } from './inline-runner.js';
import { launchSpecFor, type RunnerSettings } from './launch-spec.js';

export interface SchedulerSettings {
  serverId: string;
  tickMs: number;
  serverTimeoutMs: number;
  runner: RunnerSettings;
}

const HEARTBEAT_MS = 5_000;
const ADOPT_EVERY_MS = 10_000;
const PROCESS_STATE_LIST = [...PROCESS_STATES];

interface Watched {
  try: number;
  handle: string;
  stopping: boolean;
}

/**
 * Starts runnable jobs on this server's executor and keeps watch over them. Each pass (every
 * `tickMs`, and at once whenever something changed) moves waiting jobs on, claims runnable jobs
 * while the executor has room — with a conditional update, so that of several servers sharing one
 * database exactly one takes each job — and stops processes whose jobs were terminated or failed
 * elsewhere. At start-up it re-attaches to the jobs it ran before a restart; jobs of servers that
 * stopped beating their heart are declared lost.
 */
export class Scheduler implements ProcessControl {
  private readonly watched = new Map<string, Watched>();
  private readonly launching = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private kicked = false;
  private passing = false;
  private again = false;
  private stopped = false;
  private lastHeartbeat = 0;
  private lastAdopt = 0;
  private lastLimits = 0;
  private readonly started = Date.now();
  private idle: Promise<void> = Promise.resolve();
  /** Reads the outcome of tries prepared in this server (whatever the current setting, after a restart too). */
  private readonly inline: InlineRunner;
  /** Whether new tries are prepared in this server (local executor) rather than by a runner process. */
  private readonly prepareInline: boolean;
  private readonly helperHost: HelperHostProcess | undefined;

  constructor(
    private readonly stores: Stores,
    private readonly engine: JobEngine,
    private readonly logs: JobLogsService,
    private readonly auth: AuthService,
    private readonly access: AccessService,
    private readonly executor: Executor,
    private readonly settings: SchedulerSettings,
    private readonly log: Logger,
  ) {
    this.prepareInline = settings.runner.inline ?? executor.kind === 'local';
    // One key file per server: servers sharing a work root must not overwrite each other's key.
    const keyFile = path.join(settings.runner.workRoot, `helper-host.${settings.serverId.replace(/[^A-Za-z0-9._-]/g, '_')}.key`);
    this.helperHost = this.prepareInline ? new HelperHostProcess(keyFile, log) : undefined;
    this.inline = new InlineRunner(stores, engine, logs, this.helperHost);
  }

  async start(): Promise<void> {
    this.engine.useProcessControl(this);
    await this.heartbeat(Date.now());
    await this.reattach(Date.now());
    this.timer = setInterval(() => void this.tick(), this.settings.tickMs);
    this.timer.unref();
    this.kick();
  }

  /** Stops watching (the processes keep running; the next start attaches to them again). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle;
    await Promise.allSettled(this.launching.values());
    await this.executor.detachAll();
    await this.helperHost?.close();
  }

  outcomeReported(job: JobRow): void {
    this.executor.expectExit?.(job.id, job.try);
  }

  kick(): void {
    if (this.stopped || this.kicked) return;
    this.kicked = true;
    // Once the current callbacks are done: the changes of one request make one pass.
    setImmediate(() => {
      this.kicked = false;
      void this.tick();
    }).unref();
  }

  async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = true;
    let done = () => {};
    this.idle = new Promise((resolve) => {
      done = resolve;
    });
    try {
      do {
        this.again = false;
        await this.pass(Date.now());
      } while (this.again && !this.stopped);
    } catch (error) {
      this.log.error({ err: error }, 'scheduler pass failed');
    } finally {
      this.passing = false;
      done();
    }
  }

  private async pass(now: number): Promise<void> {
    if (now - this.lastHeartbeat >= HEARTBEAT_MS) await this.heartbeat(now);
    // Runnable jobs first: the periodic checks below take a while, and whatever they make runnable
    // kicks another pass.
    await this.launchRunnable();
    if (this.stopped) return;
    // Waiting jobs move on at every pass; timeouts and cost limits are looked at once per tick
    // (passes come at every change: with many jobs, many times a second).
    const limits = now - this.lastLimits >= this.settings.tickMs;
    if (limits) this.lastLimits = now;
    await this.engine.progress(Date.now(), { limits });
    if (this.stopped) return;
    await this.stopOrphans();
    if (now - this.lastAdopt >= ADOPT_EVERY_MS) {
      this.lastAdopt = now;
      await this.adoptLostJobs(now);
    }
  }

  private async heartbeat(now: number): Promise<void> {
    this.lastHeartbeat = now;
    await this.stores.jobs.heartbeat({ id: this.settings.serverId, started: this.started, heartbeat: now });
  }

  // ---- starting jobs ----

  /** The least any job asks for (instance types have whole cores and MiB). */
  private static readonly SMALLEST = { cores: 1, memoryMB: 1 };

  private async launchRunnable(): Promise<void> {
    // A full executor takes nothing: the runnable jobs are not even read.
    if (!this.executor.hasCapacityFor(Scheduler.SMALLEST)) return;
    for (const job of await this.stores.jobs.listRunnable(200)) {
      if (this.stopped) return;
      if (!this.executor.hasCapacityFor({ cores: job.cores, memoryMB: job.memoryMB })) continue;
      const now = Date.now();
      const claimed = await this.engine.move(
        job,
        'start',
        { claimedBy: this.settings.serverId, startedRunning: now, stoppedRunning: null, deadline: now + jobSpec(job).timeoutMs, executorHandle: null },
        now,
      );
      if (!claimed) continue; // another server took it
      const launching = this.launch(claimed, now).finally(() => this.launching.delete(claimed.id));
      this.launching.set(claimed.id, launching);
      await launching;
    }
  }

  /** The job token reaches the workspace and the launch project, at the executable's declared access. */
  private async tokenScope(job: JobRow): Promise<Record<string, PermissionLevel>> {
    const spec = jobSpec(job);
    const scope: Record<string, PermissionLevel> = {};
    if (spec.allProjectsAccess) {
      const launcher = { userId: job.launchedBy, tokenId: 'engine', tokenKind: 'job' as const, isAdmin: false, scope: null };
      for (const entry of await this.access.visibleProjects(launcher))
        scope[entry.project.id] = minLevel(entry.level, spec.allProjectsAccess as PermissionLevel);
    }
    scope[job.project] = (spec.projectAccess as PermissionLevel) ?? 'VIEW';
    scope[job.workspace] = 'CONTRIBUTE';
    return scope;
  }

  private async launch(job: JobRow, now: number): Promise<void> {
    let handle: string;
    let resolveLaunched = () => {};
    const launched = new Promise<void>((resolve) => {
      resolveLaunched = resolve;
    });
    try {
      const spec = jobSpec(job);
      const token = await this.auth.issue(
        job.launchedBy,
        {
          kind: 'job',
          label: `job ${job.id} try ${job.try}`,
          expires: (job.deadline ?? now + spec.timeoutMs) + 3_600_000,
          securityLevel: null,
          scope: { projects: await this.tokenScope(job) },
        },
        now,
      );
      await this.stores.jobs.update(job.id, { tokenId: token.token_id });
      let launchSpec = launchSpecFor(job, token.access_token, this.settings.runner, spec.resources);
      await this.logs.system(
        job.id,
        job.try,
        `Running ${job.function} of ${job.executableName} on the ${this.executor.kind} executor (server ${this.settings.serverId}) as ${job.instanceType} (${job.cores} cores, ${job.memoryMB} MiB)${job.try ? `, try ${job.try}` : ''}`,
        'INFO',
        now,
      );
      if (this.prepareInline) {
        try {
          launchSpec = await this.inline.prepare({ ...job, tokenId: token.token_id }, launchSpec, now);
        } catch (error) {
          // As a runner process would: the failure is the try's outcome, applied like any other.
          resolveLaunched();
          this.launching.delete(job.id);
          await this.inline.prepareFailed(job, error, Date.now());
          await this.engine.onProcessExit(job.id, job.try, { exitCode: null, signal: null }, launchSpec.workDir, Date.now());
          return;
        }
      }
      handle = await this.executor.launch(launchSpec, this.sink(job.id, job.try, launchSpec.workDir, launched));
    } catch (error) {
      resolveLaunched();
      // Nothing runs: stopping the job must not wait for this launch.
      this.launching.delete(job.id);
      this.log.error({ err: error, job: job.id }, 'launching a job failed');
      const current = await this.stores.jobs.findById(job.id);
      if (current) await this.engine.failJob(current, 'ExecutionError', `The job could not be started: ${(error as Error).message}`, Date.now());
      return;
    }
    this.watched.set(job.id, { try: job.try, handle, stopping: false });
    await this.stores.jobs.update(job.id, { executorHandle: handle });
    resolveLaunched();
  }

  private sink(jobId: string, tryNumber: number, workDir: string, launched: Promise<void>): ExecutionSink {
    return {
      onLog: (lines, offsets) => this.logs.ingest(jobId, tryNumber, lines, offsets),
      onExit: async (status) => {
        await launched;
        const watched = this.watched.get(jobId);
        if (watched?.try === tryNumber) this.watched.delete(jobId);
        try {
          await this.inline.finish(jobId, tryNumber, status, workDir, Date.now());
        } catch (error) {
          this.log.error({ err: error, job: jobId }, 'recording the outcome of a job failed');
        }
        await this.engine.onProcessExit(jobId, tryNumber, status, workDir, Date.now());
      },
    };
  }

  // ---- stopping jobs ----

  async stop(job: JobRow): Promise<void> {
    await this.launching.get(job.id);
    const watched = this.watched.get(job.id);
    if (watched && watched.try === job.try && !watched.stopping) {
      watched.stopping = true;
      await this.executor.terminate(watched.handle);
    }
  }

  /** Processes whose jobs left the running states on another server (terminated, failed, restarted) are stopped here. */
  private async stopOrphans(): Promise<void> {
    if (!this.watched.size) return;
    for (const row of await this.stores.jobs.findByIds([...this.watched.keys()])) {
      const watched = this.watched.get(row.id);
      if (!watched || watched.stopping) continue;
      if (row.try !== watched.try || !['running', 'unresponsive'].includes(row.state)) {
        watched.stopping = true;
        await this.executor.terminate(watched.handle);
      }
    }
  }

  // ---- after restarts ----

  /** Jobs this server ran before it restarted: attached again if their processes live, else ended with what is known. */
  private async reattach(now: number): Promise<void> {
    for (const job of await this.stores.jobs.listClaimedBy(this.settings.serverId, PROCESS_STATE_LIST)) {
      const spec = launchSpecFor(job, null, this.settings.runner, jobSpec(job).resources);
      if (!job.executorHandle) {
        await this.engine.onProcessExit(job.id, job.try, { exitCode: null, signal: null, lost: true }, spec.workDir, now);
        continue;
      }
      this.watched.set(job.id, { try: job.try, handle: job.executorHandle, stopping: false });
      const offsets = logOffsetsOf(job)[String(job.try)] ?? {};
      const state = await this.executor.attach(job.executorHandle, spec, this.sink(job.id, job.try, spec.workDir, Promise.resolve()), offsets);
      if (state === 'running') await this.logs.system(job.id, job.try, 'The server restarted; still running, watched again', 'INFO', now);
      this.log.info({ job: job.id, state }, 're-attached a job after a restart');
    }
  }

  /** Jobs claimed by servers that stopped beating their heart cannot be watched: their processes count as lost. */
  private async adoptLostJobs(now: number): Promise<void> {
    const stale = (await this.stores.jobs.staleServers(now - this.settings.serverTimeoutMs)).filter((id) => id !== this.settings.serverId);
    for (const job of await this.stores.jobs.listClaimedByOthers(stale, PROCESS_STATE_LIST)) {
      await this.logs.system(job.id, job.try, `The server running this job (${job.claimedBy}) stopped answering`, 'ERROR', now);
      await this.engine.onProcessExit(job.id, job.try, { exitCode: null, signal: null, lost: true }, undefined, now);
    }
  }
}
