import { type AnalysisState, atLeast, DEFAULT_CURRENCY, type RouteParsedInput, type SystemRequirements } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidInput, notFound, permissionDenied } from '../../errors.js';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { newId } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import type { Caller } from '../auth/caller.js';
import { type Executable, isExecutableAllowed } from '../executables/executable-spec.js';
import type { JobEngine } from '../jobs/job-engine.js';
import { jobSpec, PRIORITY_RANK, treePrices } from '../jobs/job-model.js';
import { isTerminal } from '../jobs/job-state.js';
import type { JobRow } from '../jobs/jobs.repository.js';
import type { NewJobParams } from '../jobs/jobs.service.js';
import type { JobsService } from '../jobs/jobs.service.js';
import type { AccessService } from '../projects/access.service.js';
import { projectSettings } from '../projects/project-describe.js';
import { applyProperties, dedupe } from '../projects/projects.service.js';
import { type AnalysisSpec, type AnalysisStage, type AnalysisTransition, analysisSpecOf } from './analysis-model.js';
import { analysisState, isAnalysisFinished } from './analysis-state.js';
import { analysisLinkOf, analysisOutput, stageFolder, stageLinkOf, type WorkflowStage } from './workflow-model.js';
import { planStages, type StageSpecs } from './workflow-plan.js';
import type { WorkflowsService } from './workflows.service.js';

type RunInput = RouteParsedInput<'workflow-xxxx/run'>;
type DescribeOptions = RouteParsedInput<'analysis-xxxx/describe'> | boolean | undefined;

const ANALYSIS_DEFAULT_FIELDS = [
  'id',
  'class',
  'name',
  'executable',
  'executableName',
  'project',
  'folder',
  'billTo',
  'workspace',
  'rootExecution',
  'parentJob',
  'parentAnalysis',
  'analysis',
  'stage',
  'workflow',
  'stages',
  'state',
  'stateTransitions',
  'input',
  'runInput',
  'originalInput',
  'output',
  'launchedBy',
  'created',
  'modified',
  'tags',
  'properties',
  'details',
  'dependsOn',
  'priority',
  'totalPrice',
  'currency',
  'region',
  'delayWorkspaceDestruction',
  'ignoreReuse',
  'rerunStages',
  'stageFolders',
  'failureReason',
  'failureMessage',
  'failureFrom',
  'costLimit',
  'detachedFrom',
  'treeTurnaroundTime',
];

/**
 * Analyses (reference §4.6): a run of a workflow. An analysis is a row of `jobs` with class
 * "analysis" (so findExecutions pages jobs and analyses together); each stage runs as a job that is
 * the root of its own job tree, so the engine needs nothing new: stage links became job-based
 * references between stage jobs. The analysis's state is derived from its stage jobs' states
 * (`analysisState`) whenever one of them finishes, and on terminate.
 */
export class AnalysesService {
  private readonly finishedListeners: ((analysis: JobRow, now: number) => Promise<void>)[] = [];

  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly jobs: JobsService,
    private readonly engine: JobEngine,
    private readonly workflows: WorkflowsService,
  ) {}

  /** Plugs analyses into the job search and the engine's terminal states. */
  attach(): void {
    this.jobs.useAnalyses({
      describe: (row, options, now) => this.describeRow(row, options, now),
      stageJobs: (ids) => this.stageJobs(ids),
    });
    this.engine.onTerminal((job, now) => this.onJobFinished(job, now));
    this.engine.onLimitCheck((now) => this.enforceCostLimits(now));
  }

  /**
   * `listener(analysis, now)` runs once when an analysis reaches done, failed or terminated (the server
   * whose conditional update wrote that state calls it); its errors are the listener's to handle.
   */
  onFinished(listener: (analysis: JobRow, now: number) => Promise<void>): void {
    this.finishedListeners.push(listener);
  }

  // ---- running ----

  /** `workflow-xxxx/run`: the analysis and its stage jobs, created together. */
  async run(caller: Caller, workflowId: string, input: RunInput, now: number): Promise<{ id: string; stages: string[] }> {
    const prepared = await this.prepare(caller, workflowId, input, now);
    await this.jobs.createJobs(prepared.jobs, now, (tx) => tx.jobs.insert(prepared.row));
    await this.syncState(prepared.row.id, now);
    return { id: prepared.row.id, stages: prepared.spec.stages.map((stage) => stage.job) };
  }

  /** `workflow-xxxx/dryRun`: the checks of a run, and what each stage would run with, without starting anything. */
  async dryRun(caller: Caller, workflowId: string, input: RunInput, now: number) {
    const prepared = await this.prepare(caller, workflowId, input, now);
    return {
      id: workflowId,
      stages: prepared.jobs.map((job, index) => ({
        id: prepared.spec.stages[index]?.id as string,
        executable: job.executable.id,
        name: job.name,
        folder: job.folder,
        instanceType: job.instanceType.name,
        input: job.input,
      })),
    };
  }

  private async prepare(caller: Caller, workflowId: string, input: RunInput, now: number): Promise<{ row: JobRow; spec: AnalysisSpec; jobs: NewJobParams[] }> {
    let loaded: Awaited<ReturnType<WorkflowsService['load']>>;
    try {
      loaded = await this.workflows.load(caller, workflowId, input.project);
    } catch (error) {
      // The workflow may live outside the project it runs in.
      if (!input.project || !(error instanceof ApiError) || !['ResourceNotFound', 'PermissionDenied'].includes(error.type)) throw error;
      loaded = await this.workflows.load(caller, workflowId);
    }
    if (!input.project) throw invalidInput('"project" is required: the project the analysis runs in and its outputs go to');
    const { content } = loaded;
    if (!content.stages.length) throw invalidInput(`${workflowId} has no stages to run`);
    const { project } = await this.access.require(caller, input.project, 'CONTRIBUTE', 'Running workflows');
    if (project.class !== 'project') throw invalidInput(`"project" must be a project, not the container ${input.project}`);
    const { allowedExecutables } = projectSettings(project);
    if (!isExecutableAllowed(allowedExecutables, { id: loaded.row.objectId, kind: 'workflow', name: loaded.row.name })) {
      throw permissionDenied(`${project.id} only allows these executables: ${(allowedExecutables ?? []).join(', ') || 'none'}`);
    }
    const stageIds = new Set(content.stages.map((stage) => stage.id));
    for (const [option, keys] of [
      ['stageFolders', Object.keys(input.stageFolders ?? {})],
      ['stageSystemRequirements', Object.keys(input.stageSystemRequirements ?? {})],
      ['rerunStages', input.rerunStages ?? []],
      ['ignoreReuse', Array.isArray(input.ignoreReuse) ? input.ignoreReuse : []],
    ] as const) {
      const unknown = keys.filter((key) => key !== '*' && !stageIds.has(key));
      if (unknown.length)
        throw invalidInput(`"${option}" names ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is not a stage' : 'are not stages'} of ${workflowId}`, {
          field: option,
        });
    }
    const executables = await this.workflows.stageExecutables(caller, content, loaded.row.projectId);
    const specs = new Map<string, StageSpecs>([...executables].map(([id, executable]) => [id, executable.spec]));

    const analysisId = newId('analysis');
    const jobIds = new Map(content.stages.map((stage) => [stage.id, newId('job')]));
    const runInput = await this.translateAnalysisLinks(caller, input.input);
    const plan = planStages({ content, specs, input: runInput, jobIds });
    const base = input.folder ?? content.outputFolder ?? '/';
    const rerun = new Set([...(input.rerunStages ?? []), ...(Array.isArray(input.ignoreReuse) ? input.ignoreReuse : [])]);
    const siblings = new Set(jobIds.values());
    const prepared: NewJobParams[] = [];
    const stages: AnalysisStage[] = [];
    for (const stagePlan of plan.stages) {
      const { stage } = stagePlan;
      const executable = executables.get(stage.id) as Executable;
      const folder = stageFolder(base, input.stageFolders?.[stage.id] ?? input.stageFolders?.['*'] ?? stage.folder);
      const requirements: SystemRequirements | undefined =
        input.stageSystemRequirements?.[stage.id] ??
        input.stageSystemRequirements?.['*'] ??
        input.systemRequirements ??
        (Object.keys(stage.systemRequirements).length ? stage.systemRequirements : undefined);
      const ignoreReuse =
        input.ignoreReuse === true ||
        rerun.has('*') ||
        rerun.has(stage.id) ||
        content.ignoreReuse === true ||
        (Array.isArray(content.ignoreReuse) && content.ignoreReuse.includes(stage.id));
      const name = stage.name ?? executable.spec.title ?? executable.name;
      try {
        prepared.push(
          await this.jobs.prepareRun(
            caller,
            executable,
            {
              input: stagePlan.input,
              project: project.id,
              folder,
              name,
              ...(requirements ? { systemRequirements: requirements } : {}),
              ...(input.systemRequirementsByExecutable ? { systemRequirementsByExecutable: input.systemRequirementsByExecutable } : {}),
              executionPolicy: { ...stage.executionPolicy, ...input.executionPolicy },
              ...(input.timeoutPolicyByExecutable ? { timeoutPolicyByExecutable: input.timeoutPolicyByExecutable } : {}),
              delayWorkspaceDestruction: input.delayWorkspaceDestruction ?? false,
              ...(input.dependsOn ? { dependsOn: input.dependsOn } : {}),
              priority: input.priority ?? 'normal',
              ...(input.debug ? { debug: input.debug } : {}),
              ignoreReuse,
            },
            undefined,
            now,
            { jobId: stagePlan.jobId, analysis: { id: analysisId, stage: stage.id }, siblings, allowedByWorkflow: true },
          ),
        );
      } catch (error) {
        throw stageError(stage, error);
      }
      stages.push({ id: stage.id, job: stagePlan.jobId, name, executable: executable.id, folder });
    }
    const spec: AnalysisSpec = {
      workflow: { id: loaded.row.objectId, project: loaded.row.projectId, name: loaded.row.name, content },
      stages,
      runInput: input.input,
      originalInput: plan.originalInput,
      stageFolders: input.stageFolders ?? {},
      rerunStages: input.rerunStages ?? [],
      delayWorkspaceDestruction: input.delayWorkspaceDestruction ?? false,
      dependsOn: input.dependsOn ?? [],
      ignoreReuse: input.ignoreReuse ?? false,
    };
    const row: JobRow = {
      id: analysisId,
      class: 'analysis',
      name: input.name ?? content.title ?? loaded.row.name,
      state: 'in_progress',
      executable: loaded.row.objectId,
      executableName: loaded.row.name,
      function: 'main',
      project: project.id,
      folder: base,
      // Stage jobs have workspaces of their own; the analysis has none.
      workspace: '',
      rootExecution: analysisId,
      originJob: analysisId,
      parentJob: null,
      parentTry: null,
      launchedBy: caller.userId,
      billTo: project.billTo,
      region: project.region,
      instanceType: '',
      cores: 0,
      memoryMB: 0,
      pricePerHour: 0,
      priority: input.priority ?? 'normal',
      priorityRank: PRIORITY_RANK[input.priority ?? 'normal'] ?? 1,
      try: 0,
      created: now,
      modified: now,
      stateChanged: now,
      startedRunning: null,
      stoppedRunning: null,
      deadline: null,
      accruedPrice: 0,
      costLimit: input.costLimit ?? null,
      failureReason: null,
      failureMessage: null,
      failureFrom: null,
      tokenId: null,
      claimedBy: null,
      executorHandle: null,
      reuseKey: null,
      input: toJson(plan.originalInput),
      output: null,
      outcome: null,
      stateTransitions: toJson([{ newState: 'in_progress', setAt: now }]),
      tries: '[]',
      logOffsets: '{}',
      tags: toJson(dedupe(input.tags ?? [])),
      properties: toJson(input.properties ?? {}),
      details: toJson(input.details ?? {}),
      spec: toJson(spec),
    };
    return { row, spec, jobs: prepared };
  }

  /** Links to another analysis's outputs (`{"analysis", "field": "<stage>.<field>" | output}`) become references to its stage jobs. */
  private async translateAnalysisLinks(caller: Caller, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const translate = async (key: string, value: unknown): Promise<unknown> => {
      const link = analysisLinkOf(value);
      if (!link) return value;
      let row: JobRow;
      try {
        row = await this.visible(caller, link.analysis);
      } catch {
        throw invalidInput(`input "${key}" refers to ${link.analysis}, which could not be found`, { field: key });
      }
      const spec = analysisSpecOf(row);
      let stageId: string | undefined;
      let field = link.field;
      let index = link.index;
      const output = spec.workflow.content.outputs?.find((item) => item.name === link.field);
      const source = output ? stageLinkOf(output.outputSource) : undefined;
      if (source && 'outputField' in source) {
        stageId = source.stage;
        field = source.outputField;
        index ??= source.index;
      } else {
        const dot = link.field.indexOf('.');
        if (dot > 0) {
          stageId = link.field.slice(0, dot);
          field = link.field.slice(dot + 1);
        }
      }
      const job = spec.stages.find((stage) => stage.id === stageId)?.job;
      if (!job) throw invalidInput(`input "${key}": ${link.analysis} has no output "${link.field}"`, { field: key });
      return { $dnanexus_link: index === undefined ? { job, field } : { job, field, index } };
    };
    const result: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      result[key] = Array.isArray(value) ? await Promise.all(value.map((element) => translate(key, element))) : await translate(key, value);
    }
    return result;
  }

  // ---- state ----

  /** A stage job finished: maybe fail the other stages (failAllStages), then bring the analysis's state up to date. */
  private async onJobFinished(job: JobRow, now: number): Promise<void> {
    const membership = jobSpec(job).analysis;
    if (!membership || job.parentJob !== null) return;
    if (job.state === 'failed') {
      const analysis = await this.stores.jobs.findById(membership.id);
      const spec = analysis ? analysisSpecOf(analysis) : undefined;
      const stage = spec?.workflow.content.stages.find((candidate) => candidate.id === membership.stage);
      if (spec && stage?.executionPolicy.onNonRestartableFailure === 'failAllStages') {
        for (const other of await this.stores.jobs.findByIds(spec.stages.map((entry) => entry.job))) {
          if (other.id === job.id || isTerminal(other.state) || other.state === 'terminating') continue;
          await this.engine.failTree(other, job.failureReason ?? 'AppError', `Stage ${membership.stage} failed: ${job.failureMessage ?? ''}`, now, job);
        }
      }
    }
    await this.syncState(membership.id, now);
  }

  /**
   * Writes the state derived from the stage jobs, if it changed. The update is conditional on the
   * state read, and retried: two stage jobs finishing at once on two servers cannot leave it stale.
   */
  async syncState(analysisId: string, now: number): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.stores.jobs.findById(analysisId);
      if (row?.class !== 'analysis') return;
      const spec = analysisSpecOf(row);
      const stageJobs = await this.stageRows(spec);
      const next = deriveState(spec, stageJobs);
      if (next === row.state) return;
      const patch: Partial<JobRow> = {
        state: next,
        stateChanged: now,
        modified: now,
        stateTransitions: toJson([...parseJson<AnalysisTransition[]>(row.stateTransitions, []), { newState: next, setAt: now }]),
      };
      if (next === 'done') patch.output = toJson(this.outputOf(spec, stageJobs));
      if ((next === 'failed' || next === 'partially_failed') && !row.failureReason) {
        const failed = spec.stages.map((stage) => stageJobs.get(stage.job)).find((job) => job?.state === 'failed');
        if (failed) {
          patch.failureReason = failed.failureReason;
          patch.failureMessage = `Stage ${jobSpec(failed).analysis?.stage} (${failed.name}) failed: ${failed.failureMessage ?? ''}`;
          patch.failureFrom = toJson({
            id: failed.id,
            name: failed.name,
            executable: failed.executable,
            executableName: failed.executableName,
            stage: jobSpec(failed).analysis?.stage,
          });
        }
      }
      if ((next === 'terminated' || next === 'terminating') && spec.terminatedBy) {
        patch.failureReason = 'Terminated';
        patch.failureMessage = `The analysis was terminated by ${spec.terminatedBy}`;
      }
      if (await this.stores.jobs.updateIf(analysisId, [row.state], patch)) {
        if (next === 'done' || next === 'failed' || next === 'terminated') {
          const finished = { ...row, ...patch };
          for (const listener of this.finishedListeners) await listener(finished, now);
        }
        return;
      }
    }
  }

  /**
   * Brings every unfinished analysis's state up to date: a server that stopped between a stage job's
   * end and the listener's update (or another server's stage jobs) leaves nothing stale for long.
   * Called at start-up and then every `everyMs`; answers a function that stops it.
   */
  startSweeping(everyMs: number): () => void {
    const sweep = async () => {
      try {
        for (const row of await this.stores.jobs.listInStates(['in_progress', 'partially_failed', 'terminating'], 1000)) {
          if (row.class === 'analysis') await this.syncState(row.id, Date.now());
        }
      } catch {
        // The database is away (shutting down): the next sweep tries again.
      }
    };
    void sweep();
    const timer = setInterval(() => void sweep(), everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async stageRows(spec: AnalysisSpec): Promise<Map<string, JobRow>> {
    return new Map((await this.stores.jobs.findByIds(spec.stages.map((stage) => stage.job))).map((job) => [job.id, job]));
  }

  private outputOf(spec: AnalysisSpec, stageJobs: ReadonlyMap<string, JobRow>): Record<string, unknown> {
    const outputs = new Map(
      spec.stages.map((stage) => {
        const job = stageJobs.get(stage.job);
        return [stage.id, job?.state === 'done' ? parseJson<Record<string, unknown> | null>(job.output, null) : null];
      }),
    );
    return analysisOutput(spec.workflow.content, outputs);
  }

  private async stageJobs(analysisIds: readonly string[]): Promise<string[]> {
    const rows = await this.stores.jobs.findByIds(analysisIds.filter((id) => id.startsWith('analysis-')));
    return rows.filter((row) => row.class === 'analysis').flatMap((row) => analysisSpecOf(row).stages.map((stage) => stage.job));
  }

  // ---- the API on analyses ----

  private async visible(caller: Caller, id: string): Promise<JobRow> {
    if (!id.startsWith('analysis-')) throw notFound(`The analysis ${id} could not be found`);
    const row = await this.jobs.visibleExecution(caller, id);
    if (row.class !== 'analysis') throw notFound(`The analysis ${id} could not be found`);
    return row;
  }

  /** Changing an analysis: its launcher, or CONTRIBUTE in its project. */
  private async changeable(caller: Caller, id: string, action: string): Promise<JobRow> {
    const row = await this.visible(caller, id);
    if (caller.userId === row.launchedBy && !caller.scope) return row;
    const { level } = await this.access.access(caller, row.project);
    if (!atLeast(level, 'CONTRIBUTE') && caller.userId !== row.launchedBy) {
      throw permissionDenied(`${action} requires CONTRIBUTE permission in ${row.project}, or being the analysis's launcher; you have ${level}`);
    }
    return row;
  }

  async describe(caller: Caller, id: string, options: DescribeOptions, now: number): Promise<{ id: string } & Record<string, unknown>> {
    return this.describeRow(await this.visible(caller, id), options, now);
  }

  async describeRow(row: JobRow, options: DescribeOptions, now: number): Promise<{ id: string } & Record<string, unknown>> {
    const want = fieldSelector(options, ANALYSIS_DEFAULT_FIELDS);
    const spec = analysisSpecOf(row);
    const stageJobs = await this.stageRows(spec);
    let state = row.state;
    const derived = deriveState(spec, stageJobs);
    if (derived !== state) {
      // A finish this server has not seen yet (another server's): bring the row up to date.
      await this.syncState(row.id, now);
      state = derived;
    }
    const stageDescribe = typeof options === 'object' && options.io === false ? { io: false } : true;
    const treeCache = new Map<string, Map<string, number>>();
    const stages = async () =>
      Promise.all(
        spec.stages.map(async (stage) => {
          const job = stageJobs.get(stage.job);
          return { id: stage.id, execution: job ? await this.jobs.describeRow(job, stageDescribe, now, treeCache) : { id: stage.job } };
        }),
      );
    const totalPrice = async () => Math.round((await this.totalPrice(stageJobs, now)) * 1e6) / 1e6;
    const content = spec.workflow.content;
    const described = pickFields(want, {
      id: () => row.id,
      class: () => 'analysis',
      name: () => row.name,
      executable: () => row.executable,
      executableName: () => row.executableName,
      project: () => row.project,
      folder: () => row.folder,
      billTo: () => row.billTo,
      workspace: () => null,
      rootExecution: () => row.id,
      parentJob: () => null,
      parentAnalysis: () => null,
      analysis: () => null,
      stage: () => null,
      workflow: () => ({
        id: spec.workflow.id,
        class: 'workflow',
        project: spec.workflow.project,
        name: spec.workflow.name,
        title: content.title ?? spec.workflow.name,
        summary: content.summary,
        description: content.description,
        outputFolder: content.outputFolder,
        editVersion: content.editVersion,
        stages: content.stages,
        inputs: content.inputs,
        outputs: content.outputs,
      }),
      stages: () => null,
      state: () => state,
      stateTransitions: () => parseJson<AnalysisTransition[]>(row.stateTransitions, []),
      input: () => parseJson<Record<string, unknown>>(row.input, {}),
      runInput: () => spec.runInput,
      originalInput: () => spec.originalInput,
      output: () => (state === 'done' ? this.outputOf(spec, stageJobs) : row.output === null ? null : parseJson<Record<string, unknown>>(row.output, {})),
      launchedBy: () => row.launchedBy,
      created: () => row.created,
      modified: () => row.modified,
      tags: () => parseJson<string[]>(row.tags, []),
      properties: () => parseJson<Record<string, string>>(row.properties, {}),
      details: () => parseJson<unknown>(row.details, {}),
      dependsOn: () => spec.dependsOn,
      priority: () => row.priority,
      totalPrice: () => 0,
      currency: () => DEFAULT_CURRENCY,
      region: () => row.region,
      delayWorkspaceDestruction: () => spec.delayWorkspaceDestruction,
      ignoreReuse: () => spec.ignoreReuse,
      rerunStages: () => spec.rerunStages,
      stageFolders: () => spec.stageFolders,
      failureReason: () => row.failureReason,
      failureMessage: () => row.failureMessage,
      failureFrom: () => parseJson<unknown>(row.failureFrom, null),
      costLimit: () => row.costLimit,
      detachedFrom: () => null,
      treeTurnaroundTime: () => (isAnalysisFinished(state) ? row.stateChanged - row.created : null),
    });
    if (want('stages')) described.stages = await stages();
    if (want('totalPrice')) described.totalPrice = await totalPrice();
    return { ...described, id: row.id };
  }

  /** What an analysis has cost so far: its stage jobs with their subjobs. */
  private async totalPrice(stageJobs: Map<string, JobRow>, now: number): Promise<number> {
    let total = 0;
    for (const job of stageJobs.values()) total += treePrices(await this.stores.jobs.listByRoot(job.rootExecution), now).get(job.id) ?? 0;
    return total;
  }

  /** An analysis that reached its costLimit fails every unfinished stage with CostLimitExceeded (as a job tree does). */
  private async enforceCostLimits(now: number): Promise<void> {
    for (const row of await this.stores.jobs.listLimitedRoots(['done', 'failed', 'terminated', 'partially_failed'])) {
      if (row.class !== 'analysis' || row.costLimit === null) continue;
      const spec = analysisSpecOf(row);
      const stageJobs = await this.stageRows(spec);
      const total = await this.totalPrice(stageJobs, now);
      if (total < row.costLimit) continue;
      const message = `The analysis cost $${total.toFixed(4)}, reaching its cost limit of $${row.costLimit}`;
      for (const job of stageJobs.values()) if (!isTerminal(job.state)) await this.engine.failTree(job, 'CostLimitExceeded', message, now);
      await this.syncState(row.id, now);
    }
  }

  async terminate(caller: Caller, id: string, now: number): Promise<{ id: string }> {
    const row = await this.changeable(caller, id, 'Terminating an analysis');
    if (isAnalysisFinished(row.state)) return { id };
    const spec = analysisSpecOf(row);
    if (!spec.terminatedBy) await this.stores.jobs.update(id, { spec: toJson({ ...spec, terminatedBy: caller.userId }), modified: now });
    // Waiting stages first, from the last: a stage whose producer is terminated first would fail (DependencyFailed) instead.
    const rows = await this.stageRows(spec);
    const order = [...spec.stages].reverse().flatMap((stage) => rows.get(stage.job) ?? []);
    const running = (job: JobRow) => ['running', 'terminating', 'unresponsive', 'debug_hold'].includes(job.state);
    for (const job of [...order.filter((job) => !running(job)), ...order.filter(running)]) {
      if (!isTerminal(job.state)) await this.engine.terminateTree(job.rootExecution, caller.userId, now);
    }
    await this.syncState(id, now);
    return { id };
  }

  async changeTags(caller: Caller, id: string, tags: string[], add: boolean, now: number): Promise<{ id: string }> {
    const row = await this.changeable(caller, id, 'Tagging an analysis');
    const current = parseJson<string[]>(row.tags, []);
    await this.stores.jobs.update(id, { tags: toJson(add ? dedupe([...current, ...tags]) : current.filter((tag) => !tags.includes(tag))), modified: now });
    return { id };
  }

  async setProperties(caller: Caller, id: string, properties: Record<string, string | null>, now: number): Promise<{ id: string }> {
    const row = await this.changeable(caller, id, 'Setting analysis properties');
    await this.stores.jobs.update(id, { properties: toJson(applyProperties(parseJson(row.properties, {}), properties)), modified: now });
    return { id };
  }
}

function deriveState(spec: AnalysisSpec, stageJobs: ReadonlyMap<string, JobRow>): AnalysisState {
  // A stage job that is gone (it never is, but) counts as failed rather than as running forever.
  return analysisState(
    spec.stages.map((stage) => stageJobs.get(stage.job)?.state ?? 'failed'),
    Boolean(spec.terminatedBy),
  );
}

/** A stage job's refusal, named after the stage: input fields become `<stageId>.<field>`. */
function stageError(stage: WorkflowStage, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const field = (error.details as { field?: unknown } | undefined)?.field;
  if (error.type === 'InvalidInput' && typeof field === 'string' && error.message.includes(`input field "${field}"`)) {
    const qualified = `${stage.id}.${field}`;
    return invalidInput(error.message.split(`"${field}"`).join(`"${qualified}"`), { field: qualified });
  }
  return new ApiError(error.type, `stage ${stage.id}${stage.name ? ` ("${stage.name}")` : ''}: ${error.message}`, error.details);
}
