import fs from 'node:fs';
import type { JobState } from '@panx/contract';
import type { Logger } from 'pino';
import type { Stores } from '../../db/stores.js';
import { ApiError } from '../../errors.js';
import { pathWithAncestors } from '../../lib/folders.js';
import { parseJson, toJson } from '../../lib/json.js';
import type { ExitStatus } from '../../scheduler/executors/executor.js';
import type { AuthService } from '../auth/auth.service.js';
import type { AppletsService } from '../executables/applets.service.js';
import type { AppsService } from '../executables/apps.service.js';
import type { ExecutableSpec } from '../executables/executable-spec.js';
import { bundledFileOf } from '../executables/executable-spec.js';
import { assertCopyAllowed, inheritedRestrictions } from '../projects/copy-rules.js';
import type { ProjectRow } from '../projects/projects.repository.js';
import { projectSettings } from '../projects/project-describe.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { checkAgainstSpec, jborsIn, objectRefsIn, reuseKeyOf, substitute } from './job-io.js';
import type { JobLogsService } from './job-logs.service.js';
import { type JobSpec, type JobTry, jobSpec, type Outcome, outcomeOf, ownPrice, transitionsOf, treePrices, triesOf } from './job-model.js';
import { isTerminal, type JobEvent, PROCESS_STATES, transition } from './job-state.js';
import type { JobRow } from './jobs.repository.js';

/** What the engine asks of the scheduler: stopping a job's process wherever it runs. */
export interface ProcessControl {
  /** Stops the process of the job's current try, if this server runs it (others notice on their next tick). */
  stop(job: JobRow): Promise<void>;
  /** Something changed: run the scheduler soon. */
  kick(): void;
  /** The job's runner has reported how its code ended: its process ends in a moment (the outcome applies then). */
  outcomeReported(job: JobRow): void;
}

export interface EngineOptions {
  /** Default maximum of restarts when executionPolicy gives none (DNAnexus: 9). */
  maxRestarts: number;
  keepWorkDirs: boolean;
  delayedWorkspaceTtlMs: number;
}

const WAITING_STATES: readonly JobState[] = ['idle', 'waiting_on_input'];
/** How often kept workspaces are looked at. */
const WORKSPACE_SWEEP_MS = 10 * 60_000;
const DEFAULT_MAX_RESTARTS = 9;

function monthStart(now: number): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/**
 * The life of jobs after they are created: inputs resolved and copied into the workspace, results
 * of the runner applied, outputs resolved and copied to the project, failures restarted or spread to
 * the tree, terminations, limits. Every state change goes through the state machine (job-state.ts)
 * and a conditional update, so that any number of API servers may drive the same jobs.
 */
export class JobEngine {
  private processes: ProcessControl = { stop: async () => {}, kick: () => {}, outcomeReported: () => {} };
  private lastWorkspaceSweep = 0;
  private readonly terminalListeners: ((job: JobRow, now: number) => Promise<void>)[] = [];
  private readonly limitCheckers: ((now: number) => Promise<void>)[] = [];

  constructor(
    private readonly stores: Stores,
    private readonly auth: AuthService,
    private readonly applets: AppletsService,
    private readonly apps: AppsService,
    private readonly projects: ProjectsService,
    private readonly logs: JobLogsService,
    private readonly log: Logger,
    private readonly options: EngineOptions,
  ) {}

  useProcessControl(control: ProcessControl): void {
    this.processes = control;
  }

  kick(): void {
    this.processes.kick();
  }

  /**
   * Calls `listener` each time a job reaches a terminal state, after the engine's own follow-up (the
   * workflows module derives analysis states from their stage jobs with it). A failing listener is
   * logged and never stops the engine.
   */
  onTerminal(listener: (job: JobRow, now: number) => Promise<void>): void {
    this.terminalListeners.push(listener);
  }

  /**
   * Calls `checker` on every scheduler tick that checks timeouts and cost limits (the workflows
   * module checks analyses' cost limits with it). A failing checker is logged.
   */
  onLimitCheck(checker: (now: number) => Promise<void>): void {
    this.limitCheckers.push(checker);
  }

  executableSpec(job: JobRow): Promise<ExecutableSpec> {
    return job.executable.startsWith('app-') ? this.apps.load(job.executable) : this.applets.load(job.executable);
  }

  /**
   * Moves the job along `event` if it is still in the state it was read in; answers the updated row
   * (or undefined when another server got there first).
   */
  async move(job: JobRow, event: JobEvent, patch: Partial<JobRow>, now: number): Promise<JobRow | undefined> {
    const to = transition(job.state as JobState, event);
    const leavingProcess = PROCESS_STATES.has(job.state as JobState) && !PROCESS_STATES.has(to);
    const accrue: Partial<JobRow> =
      leavingProcess && job.startedRunning !== null && job.stoppedRunning === null ? { accruedPrice: ownPrice(job, now), stoppedRunning: now } : {};
    const transitions = patch.stateTransitions !== undefined ? patch.stateTransitions : toJson([...transitionsOf(job), { newState: to, setAt: now }]);
    const next: Partial<JobRow> = { ...accrue, ...patch, state: to, stateChanged: now, modified: now, stateTransitions: transitions };
    if (!(await this.stores.jobs.updateIf(job.id, [job.state], next, job.try))) return undefined;
    const updated = { ...job, ...next } as JobRow;
    if (leavingProcess && job.tokenId) await this.revokeToken(job.tokenId);
    if (isTerminal(to)) {
      await this.afterTerminal(updated, now);
      for (const listener of this.terminalListeners) {
        await listener(updated, now).catch((error: unknown) => this.log.error({ err: error, job: job.id }, 'a terminal-state listener failed'));
      }
    }
    this.processes.kick();
    return updated;
  }

  private async revokeToken(tokenId: string): Promise<void> {
    try {
      await this.stores.tokens.revoke(tokenId);
      this.auth.invalidateCache();
    } catch (error) {
      this.log.warn({ err: error, tokenId }, 'could not revoke a job token');
    }
  }

  // ---- from idle to runnable ----

  /** Moves an idle or waiting job on as far as its inputs allow. */
  async advance(jobId: string, now: number): Promise<void> {
    const job = await this.stores.jobs.findById(jobId);
    if (!job) return;
    if (WAITING_STATES.includes(job.state as JobState)) await this.promote(job, now);
    else if (job.state === 'waiting_on_output') await this.checkOutputs(job, now);
  }

  private async promote(job: JobRow, now: number): Promise<void> {
    const spec = jobSpec(job);
    const input = parseJson<Record<string, unknown>>(job.input, {});
    const pending: string[] = [];

    // dependsOn: jobs must be done, objects closed.
    const dependJobs = await this.stores.jobs.findByIds(spec.dependsOn.filter((id) => id.startsWith('job-')));
    for (const dependency of dependJobs) {
      if (dependency.state === 'failed' || dependency.state === 'terminated') {
        await this.failTree(
          job,
          'DependencyFailed',
          `${dependency.id}, which this job depends on, ${dependency.state === 'failed' ? 'failed' : 'was terminated'}`,
          now,
        );
        return;
      }
      if (dependency.state !== 'done') pending.push(dependency.id);
    }
    for (const id of spec.dependsOn.filter((dependency) => !dependency.startsWith('job-'))) {
      const object = await this.stores.objects.findObject(id);
      if (!object) {
        await this.failTree(job, 'DependencyFailed', `${id}, which this job depends on, no longer exists`, now);
        return;
      }
      if (object.state !== 'closed') pending.push(id);
    }

    // Job-based references: their jobs must be done; then they are replaced by the outputs.
    const refs = jborsIn(input);
    const outputs = new Map<string, Record<string, unknown>>();
    if (refs.length) {
      for (const referenced of await this.stores.jobs.findByIds([...new Set(refs.map((ref) => ref.job))])) {
        if (referenced.state === 'done') outputs.set(referenced.id, parseJson<Record<string, unknown>>(referenced.output, {}));
        else if (referenced.state === 'failed' || referenced.state === 'terminated') {
          const field = refs.find((ref) => ref.job === referenced.id)?.key;
          await this.failTree(
            job,
            'DependencyFailed',
            `input "${field}" refers to ${referenced.id}, which ${referenced.state === 'failed' ? 'failed' : 'was terminated'}`,
            now,
          );
          return;
        } else pending.push(referenced.id);
      }
      for (const ref of refs) if (!outputs.has(ref.job) && !pending.includes(ref.job)) pending.push(ref.job);
    }
    // Once nothing is pending, references are replaced and links take their plain form (objects are
    // described in the workspace, where they are copied).
    let resolved: Record<string, unknown> = input;
    if (!pending.length) {
      try {
        resolved = substitute(input, outputs);
      } catch (error) {
        await this.failTree(job, 'InvalidInput', `A job-based reference in the input cannot be resolved: ${(error as Error).message}`, now);
        return;
      }
      if (refs.length && job.function === 'main' && job.parentJob === null) {
        try {
          checkAgainstSpec((await this.executableSpec(job)).inputSpec, resolved, { what: 'input', applyDefaults: false });
        } catch (error) {
          await this.failTree(job, 'InvalidInput', (error as Error).message, now);
          return;
        }
      }
    }

    // Input objects must exist and be closed.
    if (!pending.length) {
      for (const ref of objectRefsIn(resolved)) {
        const object = await this.stores.objects.findObject(ref.id);
        if (!object) {
          await this.failTree(job, 'InvalidInput', `input "${ref.key}": ${ref.id} no longer exists`, now);
          return;
        }
        if (object.state !== 'closed') pending.push(ref.id);
      }
    }

    if (pending.length) {
      if (job.state === 'idle') {
        const moved = await this.move(job, 'inputsPending', { input: toJson(resolved) }, now);
        if (moved) await this.logs.system(job.id, job.try, `Waiting on ${pending.slice(0, 5).join(', ')}${pending.length > 5 ? ' and more' : ''}`, 'INFO', now);
      } else if (resolved !== input) await this.stores.jobs.update(job.id, { input: toJson(resolved), modified: now });
      return;
    }

    const reuseKey = reuseKeyOf({ executable: job.executable, function: job.function, input: resolved, instanceType: job.instanceType });
    if (job.parentJob === null && !spec.ignoreReuse && !(await this.executableSpec(job)).ignoreReuse) {
      const previous = await this.stores.jobs.findReusable(reuseKey, job.id);
      if (previous && (await this.reuse(job, previous, resolved, reuseKey, now))) return;
    }

    try {
      await this.stageInputs(job, resolved, spec);
    } catch (error) {
      const message = error instanceof ApiError ? error.message : (error as Error).message;
      await this.failTree(job, 'InvalidInput', `The input could not be placed in the job's workspace: ${message}`, now);
      return;
    }
    await this.move(job, 'inputsReady', { input: toJson(resolved), reuseKey }, now);
  }

  /** Finishes the job with the outputs of an identical finished one (Smart Reuse). */
  private async reuse(job: JobRow, previous: JobRow, input: Record<string, unknown>, reuseKey: string, now: number): Promise<boolean> {
    const output = parseJson<Record<string, unknown>>(previous.output, {});
    const refs = objectRefsIn(output);
    for (const ref of refs) {
      const holder = (await this.stores.objects.findManyInContainer(previous.project, [ref.id]))[0];
      if (holder?.state !== 'closed') return false;
    }
    try {
      await this.copyObjects(
        previous.project,
        refs.map((ref) => ref.id),
        job.project,
        job.folder,
      );
    } catch (error) {
      this.log.info({ err: error, job: job.id }, 'not reusing: the outputs cannot be copied');
      return false;
    }
    const spec: JobSpec = { ...jobSpec(job), outputReusedFrom: previous.id };
    const moved = await this.move(job, 'reuse', { input: toJson(input), output: toJson(output), reuseKey, spec: toJson(spec) }, now);
    if (moved) await this.logs.system(job.id, job.try, `Reused the outputs of ${previous.id}, an identical job that finished earlier`, 'INFO', now);
    return moved !== undefined;
  }

  /** Copies the input objects, the applet and its bundled resources into the workspace. */
  private async stageInputs(job: JobRow, input: Record<string, unknown>, spec: JobSpec): Promise<void> {
    const bySource = new Map<string, string[]>();
    const add = (source: string, id: string) => bySource.set(source, [...(bySource.get(source) ?? []), id]);
    const inWorkspace = new Set(
      (
        await this.stores.objects.findManyInContainer(job.workspace, [
          ...objectRefsIn(input).map((ref) => ref.id),
          ...(job.executable.startsWith('applet-') ? [job.executable] : []),
        ])
      ).map((row) => row.objectId),
    );
    for (const ref of objectRefsIn(input)) {
      if (inWorkspace.has(ref.id)) continue;
      const source = spec.inputSources[ref.id] ?? (await this.findHolder(ref.id, [job.project]));
      if (!source) throw new Error(`${ref.id} (input "${ref.key}") is not in any container`);
      add(source, ref.id);
    }
    if (job.parentJob === null) {
      const executable = await this.executableSpec(job);
      if (job.executable.startsWith('applet-') && !inWorkspace.has(job.executable) && spec.executableContainer) add(spec.executableContainer, job.executable);
      for (const depend of executable.runSpec.bundledDepends ?? []) {
        const file = bundledFileOf(depend);
        if (!file) continue;
        const candidates = [file.project, spec.executableContainer].filter((id): id is string => typeof id === 'string');
        const source = await this.findHolder(file.id, candidates);
        if (!source) throw new Error(`the bundled resource ${file.id} no longer exists`);
        add(source, file.id);
      }
    }
    for (const [source, ids] of bySource) {
      if (source !== job.workspace) await this.copyObjects(source, ids, job.workspace, '/');
    }
  }

  /** The first of `candidates` holding the object, else any container that holds it. */
  private async findHolder(objectId: string, candidates: readonly string[]): Promise<string | undefined> {
    for (const container of candidates) {
      if ((await this.stores.objects.findManyInContainer(container, [objectId])).length) return container;
    }
    return (await this.stores.objects.containersOf(objectId))[0];
  }

  /**
   * Copies closed objects between containers as the platform (the launcher's access was checked
   * when the job was submitted), keeping their metadata; objects already there are left alone.
   * Several servers may copy the same objects at once: a copy that lost that race is tried again.
   */
  async copyObjects(from: string, ids: readonly string[], to: string, folder: string): Promise<void> {
    if (!ids.length || from === to) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.copyOnce(from, ids, to, folder);
        return;
      } catch (error) {
        if (attempt >= 3 || !isDuplicateKey(error)) throw error;
      }
    }
  }

  /**
   * An output that is not new (an input, or any object that also lives in another project) may leave
   * the workspace only as it could leave the projects it came from: no laundering through a job.
   */
  private async assertNotLaundered(objectIds: readonly string[], workspace: string, target: ProjectRow): Promise<void> {
    for (const objectId of objectIds) {
      for (const holder of await this.stores.objects.containersOf(objectId)) {
        if (holder === workspace || holder === target.id) continue;
        const origin = await this.stores.projects.findById(holder);
        if (origin && origin.class === 'project') assertCopyAllowed(origin, target);
      }
    }
  }

  private async copyOnce(from: string, ids: readonly string[], to: string, folder: string): Promise<void> {
    const [source, target] = await Promise.all([this.stores.projects.findById(from), this.stores.projects.findById(to)]);
    if (!source || !target) throw new Error(`cannot copy from ${from} to ${to}: a container is missing`);
    // Inputs into a workspace: the workspace takes on the source's restrictions (so they cannot be
    // copied out again by hand). Outputs out of it are the job's own new data: the platform copies them.
    if (source.class !== 'container') assertCopyAllowed(source, target);
    const inherited = target.class === 'container' ? inheritedRestrictions(source, target) : undefined;
    if (inherited) await this.stores.projects.update(target.id, inherited);
    const rows = await this.stores.objects.findManyInContainer(from, [...new Set(ids)]);
    if (source.class === 'container')
      await this.assertNotLaundered(
        rows.map((row) => row.objectId),
        from,
        target,
      );
    const missing = ids.filter((id) => !rows.some((row) => row.objectId === id));
    if (missing.length) throw new Error(`${missing.join(', ')} could not be found in ${from}`);
    const notClosed = rows.filter((row) => row.state !== 'closed');
    if (notClosed.length) throw new Error(`${notClosed.map((row) => row.objectId).join(', ')} is not closed`);
    const now = Date.now();
    await this.stores.transaction(async (tx) => {
      const present = new Set((await tx.objects.findManyInContainer(to, ids)).map((row) => row.objectId));
      await tx.projects.insertFolders(to, pathWithAncestors(folder));
      await tx.objects.insertCopies(
        rows
          .filter((row) => !present.has(row.objectId))
          .map((row) => ({
            projectId: to,
            objectId: row.objectId,
            class: row.class,
            name: row.name,
            folder,
            hidden: row.hidden,
            tags: row.tags,
            types: row.types,
            properties: row.properties,
            details: row.details,
            created: row.created,
            modified: now,
          })),
      );
    });
  }

  // ---- what the runner reports, and the end of a try ----

  async recordOutcome(job: JobRow, outcome: Omit<Outcome, 'reported'>, now: number): Promise<void> {
    await this.stores.jobs.update(job.id, { outcome: toJson({ ...outcome, reported: now }), modified: now });
    this.processes.outcomeReported(job);
  }

  /** The executor says the process of `tryNumber` has ended: apply what the runner reported (or the lack of it). */
  async onProcessExit(jobId: string, tryNumber: number, status: ExitStatus, workDir: string | undefined, now: number): Promise<void> {
    if (workDir && !this.options.keepWorkDirs) fs.rm(workDir, { recursive: true, force: true }, () => {});
    const job = await this.stores.jobs.findById(jobId);
    if (!job || job.try !== tryNumber) return;
    await this.stores.jobs.update(job.id, { executorHandle: null, claimedBy: null });
    const current = { ...job, executorHandle: null, claimedBy: null };
    if (job.state === 'terminating') {
      await this.move(current, 'terminated', {}, now);
      return;
    }
    if (!['running', 'unresponsive'].includes(job.state)) return;
    const outcome = outcomeOf(job);
    if (outcome && outcome.try === tryNumber) {
      if (outcome.error) {
        const reason = ['AppError', 'AppInternalError', 'ExecutionError'].includes(outcome.error.type) ? outcome.error.type : 'AppError';
        await this.failJob(current, reason, outcome.error.message, now);
      } else await this.finishCode(current, outcome.output ?? {}, now);
      return;
    }
    if (status.lost) {
      // Shown as unresponsive, then restarted or failed.
      const unresponsive = job.state === 'running' ? await this.move(current, 'lostContact', {}, now) : current;
      if (!unresponsive) return;
      await this.failJob(
        unresponsive,
        'UnresponsiveWorker',
        'The job’s process disappeared without a trace (its host or the server running it went away)',
        now,
      );
    } else {
      const how = status.signal ? `was killed by ${status.signal}` : `exited with code ${status.exitCode}`;
      await this.failJob(current, 'ExecutionError', `The job runner ${how} without reporting how the job ended`, now);
    }
  }

  private async finishCode(job: JobRow, output: Record<string, unknown>, now: number): Promise<void> {
    const moved = await this.move(job, 'codeFinishedPending', { output: toJson(output) }, now);
    if (moved) await this.checkOutputs(moved, now);
  }

  /** A job whose code finished is done once its subjobs are, its output references resolve and its output objects are closed. */
  async checkOutputs(job: JobRow, now: number): Promise<void> {
    const children = (await this.stores.jobs.listChildren(job.id)).filter((child) => child.parentTry === job.try);
    if (children.some((child) => !isTerminal(child.state))) return;
    const failedChild = children.find((child) => child.state === 'failed' || child.state === 'terminated');
    if (failedChild) {
      await this.failTree(job, failedChild.failureReason ?? 'AppError', failedChild.failureMessage ?? `${failedChild.id} failed`, now, failedChild);
      return;
    }
    const raw = parseJson<Record<string, unknown>>(job.output, {});
    const refs = jborsIn(raw);
    const outputs = new Map<string, Record<string, unknown>>();
    for (const referenced of await this.stores.jobs.findByIds([...new Set(refs.map((ref) => ref.job))])) {
      if (referenced.state === 'done') outputs.set(referenced.id, parseJson<Record<string, unknown>>(referenced.output, {}));
      else if (isTerminal(referenced.state)) {
        await this.failTree(job, 'DependencyFailed', `The output refers to ${referenced.id}, which did not finish`, now);
        return;
      } else return;
    }
    let output: Record<string, unknown>;
    try {
      output = substitute(raw, outputs);
    } catch (error) {
      await this.failTree(job, 'InvalidOutput', `The output cannot be resolved: ${(error as Error).message}`, now);
      return;
    }
    for (const ref of objectRefsIn(output)) {
      const object = await this.stores.objects.findObject(ref.id);
      if (!object) {
        await this.failTree(job, 'InvalidOutput', `output "${ref.key}": ${ref.id} does not exist`, now);
        return;
      }
      if (object.state !== 'closed') return; // a file still closing: wait
    }
    if (job.function === 'main') {
      try {
        checkAgainstSpec((await this.executableSpec(job)).outputSpec, output, { what: 'output', applyDefaults: false });
      } catch (error) {
        await this.failTree(job, 'InvalidOutput', (error as Error).message, now);
        return;
      }
    }
    try {
      const ids = objectRefsIn(output).map((ref) => ref.id);
      const inWorkspace = new Set((await this.stores.objects.findManyInContainer(job.workspace, ids)).map((row) => row.objectId));
      await this.copyObjects(
        job.workspace,
        ids.filter((id) => inWorkspace.has(id)),
        job.project,
        job.folder,
      );
      for (const id of ids.filter((objectId) => !inWorkspace.has(objectId))) {
        const holder = await this.findHolder(id, [job.project]);
        if (holder && holder !== job.project) await this.copyObjects(holder, [id], job.project, job.folder);
      }
    } catch (error) {
      await this.failTree(job, 'InvalidOutput', `The outputs could not be copied to ${job.project}:${job.folder}: ${(error as Error).message}`, now);
      return;
    }
    await this.move(job, 'outputsReady', { output: toJson(output) }, now);
  }

  // ---- failures, restarts, termination ----

  /** A failure of one job: restarted when its execution policy allows, else the whole tree fails. */
  async failJob(job: JobRow, reason: string, message: string, now: number): Promise<void> {
    if (isTerminal(job.state)) return;
    const spec = jobSpec(job);
    if (spec.debug?.debugOn?.includes(reason) && job.state === 'running') {
      const held = await this.move(job, 'hold', { failureReason: reason, failureMessage: message }, now);
      if (held) await this.logs.system(job.id, job.try, `Held for debugging after ${reason}: ${message}`, 'ERROR', now);
      return;
    }
    if (await this.maybeRestart(job, reason, message, spec, now)) return;
    await this.failTree(job, reason, message, now);
  }

  private async maybeRestart(job: JobRow, reason: string, message: string, spec: JobSpec, now: number): Promise<boolean> {
    if (job.state !== 'running' && job.state !== 'unresponsive') return false;
    const executable = await this.executableSpec(job).catch(() => undefined);
    const entryRestartable = executable?.runSpec.restartableEntryPoints === 'all' || job.function === 'main';
    const restartOn = spec.executionPolicy?.restartOn ?? {};
    const allowed = restartOn[reason] ?? restartOn['*'] ?? 0;
    const maxRestarts = spec.executionPolicy?.maxRestarts ?? this.options.maxRestarts ?? DEFAULT_MAX_RESTARTS;
    const tries = triesOf(job);
    const sameReason = tries.filter((earlier) => earlier.failureReason === reason).length;
    if (!entryRestartable || sameReason >= allowed || job.try >= maxRestarts) return false;

    const snapshot: JobTry = {
      try: job.try,
      state: 'failed',
      created: transitionsOf(job)[0]?.setAt ?? job.created,
      startedRunning: job.startedRunning,
      stoppedRunning: now,
      failureReason: reason,
      failureMessage: message,
      stateTransitions: [...transitionsOf(job), { newState: 'restartable', setAt: now }],
      instanceType: job.instanceType,
      price: ownPrice(job, now) - priceOfEarlierTries(tries),
    };
    // The state changes before the process is stopped, so that its exit is not taken for a failure of its own.
    const restarting = await this.move(job, 'restart', { failureReason: reason, failureMessage: message, tries: toJson([...tries, snapshot]) }, now);
    if (!restarting) return true;
    await this.processes.stop(job);
    await this.logs.system(
      job.id,
      job.try,
      `${reason}: ${message}. Restarting (try ${job.try + 1}; executionPolicy allows ${allowed} for ${reason})`,
      'ERROR',
      now,
    );
    await this.terminateChildren(restarting, now);
    await this.move(
      restarting,
      'requeue',
      {
        try: job.try + 1,
        startedRunning: null,
        stoppedRunning: null,
        deadline: null,
        outcome: null,
        output: null,
        failureReason: null,
        failureMessage: null,
        tokenId: null,
        claimedBy: null,
        executorHandle: null,
        stateTransitions: toJson([{ newState: 'runnable', setAt: now }]),
      },
      now,
    );
    return true;
  }

  /** Subjobs a restarted try had started are terminated: the new try starts its own. */
  private async terminateChildren(job: JobRow, now: number): Promise<void> {
    const tree = await this.stores.jobs.listByRoot(job.rootExecution);
    const below = descendantsOf(job.id, tree).filter((child) => !isTerminal(child.state));
    for (const child of below) await this.terminateOne(child, 'Terminated', `Its parent ${job.id} was restarted`, now);
  }

  /** The job fails, and with it every unfinished job of its tree (reference §7.1). */
  async failTree(job: JobRow, reason: string, message: string, now: number, origin: JobRow = job): Promise<void> {
    const failureFrom = toJson({
      id: origin.id,
      name: origin.name,
      executable: origin.executable,
      executableName: origin.executableName,
      function: origin.function,
    });
    if (!isTerminal(job.state) && job.state !== 'terminating') {
      const failed = await this.move(job, 'fail', { failureReason: reason, failureMessage: message, ...(origin.id !== job.id ? { failureFrom } : {}) }, now);
      if (failed) {
        await this.logs.system(job.id, job.try, `${reason}: ${message}`, 'ERROR', now);
        if (PROCESS_STATES.has(job.state as JobState)) await this.processes.stop(job);
      }
    }
    const tree = await this.stores.jobs.listByRoot(job.rootExecution);
    for (const other of tree) {
      if (other.id === job.id || isTerminal(other.state) || other.state === 'terminating') continue;
      const failed = await this.move(other, 'fail', { failureReason: reason, failureMessage: message, failureFrom }, now);
      if (failed && PROCESS_STATES.has(other.state as JobState)) await this.processes.stop(other);
    }
  }

  /** Terminates every unfinished job of the tree. */
  async terminateTree(root: string, by: string, now: number): Promise<void> {
    for (const job of await this.stores.jobs.listByRoot(root)) {
      if (isTerminal(job.state) || job.state === 'terminating') continue;
      await this.terminateOne(job, 'Terminated', `The job was terminated by ${by}`, now);
    }
  }

  private async terminateOne(job: JobRow, reason: string, message: string, now: number): Promise<void> {
    const hadProcess = PROCESS_STATES.has(job.state as JobState) && (job.executorHandle !== null || job.claimedBy !== null);
    const terminating = await this.move(job, 'terminate', { failureReason: reason, failureMessage: message }, now);
    if (!terminating) return;
    await this.logs.system(job.id, job.try, message, 'INFO', now);
    if (hadProcess) await this.processes.stop(terminating);
    else await this.move(terminating, 'terminated', {}, now);
  }

  // ---- after a job ends ----

  private async afterTerminal(job: JobRow, now: number): Promise<void> {
    const tree = await this.stores.jobs.listByRoot(job.rootExecution);
    // A parent waiting on its subjobs may be done now.
    const parent = job.parentJob ? tree.find((row) => row.id === job.parentJob) : undefined;
    if (parent?.state === 'waiting_on_output') await this.checkOutputs(parent, now);
    if (tree.every((row) => isTerminal(row.state) || row.id === job.id)) await this.finishTree(tree, now);
  }

  /** The whole tree has finished: tokens revoked, the workspace destroyed (unless kept on request). */
  private async finishTree(tree: readonly JobRow[], now: number): Promise<void> {
    for (const row of tree) if (row.tokenId) await this.revokeToken(row.tokenId);
    const root = tree.find((row) => row.parentJob === null);
    if (!root || jobSpec(root).delayWorkspaceDestruction) return;
    await this.destroyWorkspace(root, now);
  }

  async destroyWorkspace(root: JobRow, _now: number): Promise<void> {
    if (!(await this.stores.projects.findById(root.workspace))) return;
    try {
      await this.projects.destroy({ userId: root.launchedBy, tokenId: 'engine', tokenKind: 'job', isAdmin: false, scope: null }, root.workspace);
    } catch (error) {
      this.log.warn({ err: error, workspace: root.workspace }, 'could not destroy a job workspace');
    }
  }

  // ---- periodic checks ----

  /**
   * One pass over jobs that wait on something, and (unless `limits` is false) over the limits of
   * running ones: timeouts, cost and monthly limits, kept workspaces.
   */
  async progress(now: number, { limits = true }: { limits?: boolean } = {}): Promise<void> {
    for (const job of await this.stores.jobs.listInStates(['idle', 'waiting_on_input', 'waiting_on_output'], 500)) {
      try {
        await this.advance(job.id, now);
      } catch (error) {
        this.log.error({ err: error, job: job.id }, 'advancing a job failed');
      }
    }
    if (!limits) return;
    for (const job of await this.stores.jobs.listPastDeadline(now, ['running'])) {
      const minutes = Math.round(jobSpec(job).timeoutMs / 60_000);
      await this.failJob(job, 'JobTimeoutExceeded', `The job ran longer than its timeout of ${minutes} minute${minutes === 1 ? '' : 's'}`, now);
    }
    await this.enforceCostLimits(now);
    for (const checker of this.limitCheckers) {
      await checker(now).catch((error: unknown) => this.log.error({ err: error }, 'a limit check failed'));
    }
    if (now - this.lastWorkspaceSweep >= WORKSPACE_SWEEP_MS) {
      this.lastWorkspaceSweep = now;
      await this.destroyKeptWorkspaces(now);
    }
  }

  /** Workspaces kept with delayWorkspaceDestruction go once their tree has been finished for the configured time. */
  private async destroyKeptWorkspaces(now: number): Promise<void> {
    for (const root of await this.stores.jobs.listKeptWorkspaces(now - this.options.delayedWorkspaceTtlMs, ['done', 'failed', 'terminated'], 100)) {
      const tree = await this.stores.jobs.listByRoot(root.id);
      if (tree.every((row) => isTerminal(row.state))) await this.destroyWorkspace(root, now);
    }
  }

  private async enforceCostLimits(now: number): Promise<void> {
    for (const root of await this.stores.jobs.listLimitedRoots(['done', 'failed', 'terminated'])) {
      // Analyses' limits cover their stage jobs' trees: the workflows module checks them (onLimitCheck).
      if (root.costLimit === null || root.parentJob !== null || root.class === 'analysis') continue;
      const tree = await this.stores.jobs.listByRoot(root.id);
      const total = treePrices(tree, now).get(root.id) ?? 0;
      if (total >= root.costLimit) {
        await this.failTree(root, 'CostLimitExceeded', `The job tree cost $${total.toFixed(4)}, reaching its cost limit of $${root.costLimit}`, now);
      }
    }
    for (const projectId of await this.stores.jobs.projectsWithJobsIn([...PROCESS_STATES])) {
      const project = await this.stores.projects.findById(projectId);
      const limit = project ? projectSettings(project).monthlyComputeLimit : undefined;
      if (limit === undefined || limit === null) continue;
      const spent = await this.monthlySpend(projectId, now);
      if (spent < limit) continue;
      for (const job of await this.stores.jobs.listInStates(['running'], 1000)) {
        if (job.project !== projectId) continue;
        await this.failTree(job, 'SpendingLimitExceeded', `${projectId} reached its monthly compute limit of $${limit}`, now);
      }
    }
  }

  /** Compute spent in the project this (UTC) month. */
  async monthlySpend(projectId: string, now: number): Promise<number> {
    const rows = await this.stores.jobs.listSpending(projectId, monthStart(now));
    return rows.reduce((total, row) => total + ownPrice(row, now), 0);
  }
}

/** A unique-key violation (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_*): another server wrote the same row first. */
function isDuplicateKey(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '23505' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'));
}

function priceOfEarlierTries(tries: readonly JobTry[]): number {
  return tries.reduce((total, earlier) => total + earlier.price, 0);
}

export function descendantsOf(id: string, tree: readonly JobRow[]): JobRow[] {
  const result: JobRow[] = [];
  const frontier = [id];
  while (frontier.length) {
    const parent = frontier.pop();
    for (const row of tree) {
      if (row.parentJob === parent) {
        result.push(row);
        frontier.push(row.id);
      }
    }
  }
  return result;
}

export function ancestorsOf(job: JobRow, tree: readonly JobRow[]): string[] {
  const byId = new Map(tree.map((row) => [row.id, row]));
  const result: string[] = [];
  for (let node = job.parentJob ? byId.get(job.parentJob) : undefined; node; node = node.parentJob ? byId.get(node.parentJob) : undefined) {
    result.push(node.id);
  }
  return result;
}
