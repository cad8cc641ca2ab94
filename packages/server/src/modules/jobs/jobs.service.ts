import { atLeast, FIND_LIMIT_MAX, type PermissionLevel, type RouteParsedInput, type SystemRequirements } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import { matchesProperties, matchesTags, nameMatcher } from '../../lib/name-match.js';
import type { Caller } from '../auth/caller.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';
import type { AppletsService } from '../executables/applets.service.js';
import type { AppsService } from '../executables/apps.service.js';
import { type Executable, type ExecutableSpec, isExecutableAllowed } from '../executables/executable-spec.js';
import type { AccessService } from '../projects/access.service.js';
import { projectSettings } from '../projects/project-describe.js';
import { applyProperties, dedupe } from '../projects/projects.service.js';
import type { ProjectRow } from '../projects/projects.repository.js';
import type { InstanceTypes } from './instance-types.js';
import { describeInstanceTypes } from './instance-types.describe.js';
import { ancestorsOf, type JobEngine } from './job-engine.js';
import { describeJob, jobFieldSelector } from './job-describe.js';
import { checkAgainstSpec, globMatches, jborsIn, namePatterns, objectRefsIn, valueOfJbor } from './job-io.js';
import { durationMs, type JobSpec, jobSpec, PRIORITY_RANK, treePrices } from './job-model.js';
import { isTerminal } from './job-state.js';
import type { JobRow } from './jobs.repository.js';

type RunInput = RouteParsedInput<'applet-xxxx/run'>;
type DescribeInput = RouteParsedInput<'job-xxxx/describe'>;

export interface JobsServiceOptions {
  defaultTimeoutMs: number;
}

/** A job ready to be created: checked, with its instance type, input and spec. */
export interface NewJobParams {
  /** The id to give it (stage jobs of an analysis get theirs before they exist, so that they can refer to each other). */
  id?: string;
  executable: Executable;
  name: string;
  function: string;
  project: ProjectRow;
  folder: string;
  parent: JobRow | undefined;
  launchedBy: string;
  instanceType: { name: string; cores: number; memoryMB: number; pricePerHour: number };
  input: Record<string, unknown>;
  spec: JobSpec;
  priority: string;
  costLimit: number | null;
  tags: string[];
  properties: Record<string, string>;
  details: unknown;
}

/** A stage job of an analysis, as the workflows module prepares it. */
export interface StageJobOptions {
  jobId: string;
  analysis: { id: string; stage: string };
  /** The analysis's other stage jobs: they do not exist yet, and references to them are checked by the workflows module. */
  siblings: ReadonlySet<string>;
  /** The analysis's workflow is allowed in the project (allowedExecutables), so its stages may run whatever they are. */
  allowedByWorkflow?: boolean;
}

type DescribeOptionsOrFlag = DescribeInput | boolean | undefined;

/**
 * What the workflows module lends the job search: analyses are rows of `jobs` with class "analysis"
 * (the engine never picks them up: their states are not job states), described by that module.
 */
export interface AnalysisHooks {
  describe(row: JobRow, options: DescribeOptionsOrFlag, now: number): Promise<{ id: string } & Record<string, unknown>>;
  /** The stage jobs of these analyses (searches by rootExecution or parentAnalysis include them). */
  stageJobs(analysisIds: readonly string[]): Promise<string[]>;
}

/** What the API offers on jobs: run, job/new, describe, terminate, metadata, search; the engine does the rest. */
export class JobsService {
  private analyses: AnalysisHooks | undefined;

  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly objects: DataObjectsService,
    private readonly applets: AppletsService,
    private readonly apps: AppsService,
    private readonly instanceTypes: InstanceTypes,
    private readonly engine: JobEngine,
    private readonly options: JobsServiceOptions,
  ) {}

  useAnalyses(hooks: AnalysisHooks): void {
    this.analyses = hooks;
  }

  /** `system/describeInstanceTypes` (Panx extension): the catalogue the jobs of a region or project can use, with prices. */
  describeInstanceTypes(caller: Caller, input: RouteParsedInput<'system/describeInstanceTypes'>) {
    return describeInstanceTypes(this.instanceTypes, this.access, caller, input);
  }

  // ---- visibility ----

  /** The job, if the caller may see it: its launcher, or VIEW in its project. */
  async visibleJob(caller: Caller, id: string): Promise<JobRow> {
    if (!id.startsWith('job-')) throw notFound(`The job ${id} could not be found`);
    return this.visibleExecution(caller, id);
  }

  /** A job or analysis (both are rows of `jobs`), if the caller may see it: its launcher, or VIEW in its project. */
  async visibleExecution(caller: Caller, id: string): Promise<JobRow> {
    const job = /^(job|analysis)-/.test(id) ? await this.stores.jobs.findById(id) : undefined;
    if (!job) throw notFound(`The ${id.startsWith('analysis-') ? 'analysis' : 'job'} ${id} could not be found`);
    if (caller.userId === job.launchedBy && !caller.scope) return job;
    const { level } = await this.access.access(caller, job.project).catch(() => ({ level: 'NONE' as PermissionLevel }));
    if (level === 'NONE' && !(caller.userId === job.launchedBy && caller.scope?.projects[job.workspace])) throw notFound(`The job ${id} could not be found`);
    return job;
  }

  /** Changing a job: its launcher, or CONTRIBUTE in its project. */
  private async changeableJob(caller: Caller, id: string, action: string): Promise<JobRow> {
    const job = await this.visibleJob(caller, id);
    if (caller.userId === job.launchedBy && !caller.scope) return job;
    const { level } = await this.access.access(caller, job.project);
    if (!atLeast(level, 'CONTRIBUTE') && caller.userId !== job.launchedBy) {
      throw permissionDenied(`${action} requires CONTRIBUTE permission in ${job.project}, or being the job's launcher; you have ${level}`);
    }
    return job;
  }

  private async callerJob(caller: Caller): Promise<JobRow | undefined> {
    return caller.tokenKind === 'job' ? this.stores.jobs.findByTokenId(caller.tokenId) : undefined;
  }

  // ---- running ----

  async runApplet(caller: Caller, id: string, input: RunInput, now: number): Promise<{ id: string }> {
    const parent = await this.callerJob(caller);
    const executable = await this.applets.forRun(caller, id, input.project ?? parent?.project);
    return this.run(caller, executable, input, parent, now);
  }

  async runApp(caller: Caller, ref: string, input: RunInput, now: number): Promise<{ id: string }> {
    const parent = await this.callerJob(caller);
    return this.run(caller, await this.apps.forRun(caller, ref), input, parent, now);
  }

  /** An applet (`applet-xxxx`, looked for in `projectHint` first) or app (`app-xxxx`, `app-name[/version]`) the caller may run. */
  executableFor(caller: Caller, ref: string, projectHint?: string): Promise<Executable> {
    if (ref.startsWith('applet-')) return this.applets.forRun(caller, ref, projectHint);
    if (ref.startsWith('app-')) return this.apps.forRun(caller, ref);
    throw invalidInput(`"${ref}" is not an applet or app`);
  }

  /** A new job tree. From inside a job, the new tree is detached from it and runs in the job's project by default. */
  private async run(caller: Caller, executable: Executable, input: RunInput, callingJob: JobRow | undefined, now: number): Promise<{ id: string }> {
    const [id] = await this.createJobs([await this.prepareRun(caller, executable, input, callingJob, now)], now);
    return { id: id as string };
  }

  /**
   * Checks a run (project, limits, instance type, input against the spec, input objects, references,
   * dependsOn) and answers the job to create. `stage` makes it a stage job of an analysis.
   */
  async prepareRun(
    caller: Caller,
    executable: Executable,
    input: RunInput,
    callingJob: JobRow | undefined,
    now: number,
    stage?: StageJobOptions,
  ): Promise<NewJobParams> {
    const projectId = input.project ?? callingJob?.project;
    if (!projectId) throw invalidInput('"project" is required: the project the job runs in and its outputs go to');
    const { project } = await this.access.require(caller, projectId, 'CONTRIBUTE', 'Running executables');
    if (project.class !== 'project') throw invalidInput(`"project" must be a project, not the container ${projectId}`);
    const settings = projectSettings(project);
    if (!stage?.allowedByWorkflow && !isExecutableAllowed(settings.allowedExecutables, executable)) {
      throw permissionDenied(`${projectId} only allows these executables: ${(settings.allowedExecutables ?? []).join(', ') || 'none'}`);
    }
    await this.assertWithinMonthlyLimit(project, now);

    const spec = executable.spec;
    const requirements = [input.systemRequirements, input.systemRequirementsByExecutable?.[executable.id], spec.runSpec.systemRequirements];
    const instanceType = this.instanceTypeFor('main', requirements, project);
    const validated = checkAgainstSpec(spec.inputSpec, input.input, { what: 'input', applyDefaults: true });
    const inputSources = await this.checkInputObjects(caller, validated, spec);
    await this.checkReferences(caller, validated, undefined, stage?.siblings);
    await this.checkDependsOn(caller, input.dependsOn ?? [], undefined);

    const timeoutPolicy = input.timeoutPolicyByExecutable?.[executable.id] ?? spec.runSpec.timeoutPolicy;
    const jobSpecValue: JobSpec = {
      runInput: input.input,
      originalInput: validated,
      dependsOn: input.dependsOn ?? [],
      systemRequirements: (input.systemRequirements ?? {}) as SystemRequirements,
      executionPolicy: { ...spec.runSpec.executionPolicy, ...input.executionPolicy },
      timeoutMs: durationMs(timeoutPolicy?.main ?? timeoutPolicy?.['*']) ?? this.options.defaultTimeoutMs,
      delayWorkspaceDestruction: input.delayWorkspaceDestruction ?? false,
      ignoreReuse: input.ignoreReuse ?? false,
      debug: input.debug,
      allowSSH: input.allowSSH,
      inputSources,
      executableContainer: executable.container,
      resources: executable.kind === 'app' ? executable.container : null,
      projectAccess: spec.access?.project ?? 'VIEW',
      allProjectsAccess: spec.access?.allProjects ?? null,
      detach: callingJob ? true : undefined,
      ...(stage ? { analysis: stage.analysis } : {}),
    };
    return {
      id: stage?.jobId,
      executable,
      name: input.name ?? spec.title ?? executable.name,
      function: 'main',
      project,
      folder: input.folder ?? '/',
      parent: undefined,
      launchedBy: caller.userId,
      instanceType,
      input: validated,
      spec: jobSpecValue,
      priority: input.priority ?? 'normal',
      costLimit: input.costLimit ?? null,
      tags: dedupe(input.tags ?? []),
      properties: input.properties ?? {},
      details: input.details ?? {},
    };
  }

  /** `job/new`: a subjob of the calling job, running one of its executable's entry points. */
  async newSubjob(caller: Caller, input: RouteParsedInput<'job/new'>, now: number): Promise<{ id: string }> {
    const parent = await this.callerJob(caller);
    if (!parent) throw permissionDenied('job/new can only be called by a running job, with its job token');
    if (parent.state !== 'running') throw invalidState(`${parent.id} is ${parent.state}: only running jobs start subjobs`);
    const project = await this.stores.projects.findById(parent.project);
    if (!project) throw notFound(`The project ${parent.project} no longer exists`);
    const parentSpec = jobSpec(parent);
    const executableSpec = await this.engine.executableSpec(parent);
    const instanceType = this.instanceTypeFor(
      input.function,
      [input.systemRequirements, parentSpec.systemRequirements, executableSpec.runSpec.systemRequirements],
      project,
    );
    const values = input.input ?? {};
    const tree = await this.stores.jobs.listByRoot(parent.rootExecution);
    const ancestors = new Set([parent.id, ...ancestorsOf(parent, tree)]);
    const inputSources = await this.checkInputObjects(caller, values, undefined);
    await this.checkReferences(caller, values, ancestors);
    await this.checkDependsOn(caller, input.dependsOn ?? [], ancestors);
    const timeoutPolicy = executableSpec.runSpec.timeoutPolicy;
    const spec: JobSpec = {
      ...parentSpec,
      runInput: values,
      originalInput: values,
      dependsOn: input.dependsOn ?? [],
      systemRequirements: (input.systemRequirements ?? parentSpec.systemRequirements) as SystemRequirements,
      timeoutMs: durationMs(timeoutPolicy?.[input.function] ?? timeoutPolicy?.['*']) ?? this.options.defaultTimeoutMs,
      inputSources,
      outputReusedFrom: undefined,
      detach: undefined,
    };
    const [id] = await this.createJobs(
      [
        {
          executable: {
            id: parent.executable,
            kind: parent.executable.startsWith('app-') ? 'app' : 'applet',
            name: parent.executableName,
            spec: executableSpec,
            container: null,
          },
          name: input.name ?? `${parent.executableName}:${input.function}`,
          function: input.function,
          project,
          folder: parent.folder,
          parent,
          launchedBy: parent.launchedBy,
          instanceType,
          input: values,
          spec,
          priority: parent.priority,
          costLimit: null,
          tags: dedupe(input.tags ?? []),
          properties: input.properties ?? {},
          details: input.details ?? {},
        },
      ],
      now,
    );
    return { id: id as string };
  }

  private instanceTypeFor(fn: string, sources: (SystemRequirements | undefined)[], project: ProjectRow) {
    let name: string | undefined;
    let where = '';
    for (const [index, source] of sources.entries()) {
      const entry = source?.[fn] ?? source?.['*'];
      if (entry?.instanceType) {
        name = entry.instanceType;
        where = `${index === sources.length - 1 ? 'runSpec.' : ''}systemRequirements.${source?.[fn] ? fn : '*'}.instanceType`;
        break;
      }
    }
    name ??= this.instanceTypes.defaultFor(project.region, projectSettings(project).defaultInstanceType);
    const type = this.instanceTypes.find(project.region, name);
    if (!type) {
      throw invalidInput(
        `${where || 'instanceType'}: unknown instance type "${name}" in ${project.region} (known: ${this.instanceTypes
          .list(project.region)
          .map((known) => known.name)
          .join(', ')})`,
        { field: where },
      );
    }
    return type;
  }

  /** Every input object must be readable by the caller (and match its field's patterns); answers where each was found. */
  private async checkInputObjects(caller: Caller, values: Record<string, unknown>, spec: ExecutableSpec | undefined): Promise<Record<string, string>> {
    const sources: Record<string, string> = {};
    for (const ref of objectRefsIn(values)) {
      const cls = ref.id.slice(0, ref.id.indexOf('-'));
      let found: Awaited<ReturnType<DataObjectsService['resolve']>>;
      try {
        found = await this.objects.resolve(caller, ref.id, ref.project, cls);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw invalidInput(`input field "${ref.key}": ${ref.id} cannot be read: ${error.message}`, { field: ref.key });
      }
      sources[ref.id] = found.row.projectId;
      const item = spec?.inputSpec?.find((candidate) => candidate.name === ref.key);
      const patterns = item ? namePatterns(item) : [];
      if (cls === 'file' && patterns.length && !patterns.some((pattern) => globMatches(found.row.name, pattern))) {
        throw invalidInput(`input field "${ref.key}": the file name "${found.row.name}" matches none of its patterns (${patterns.join(', ')})`, {
          field: ref.key,
        });
      }
    }
    return sources;
  }

  /** Job-based references must name jobs the caller can see, that did not fail, and (for a subjob) are not its ancestors. */
  private async checkReferences(
    caller: Caller,
    values: Record<string, unknown>,
    ancestors: Set<string> | undefined,
    siblings?: ReadonlySet<string>,
  ): Promise<void> {
    for (const ref of jborsIn(values)) {
      if (siblings?.has(ref.job)) continue;
      if (ancestors?.has(ref.job)) {
        throw invalidInput(`input field "${ref.key}" refers to ${ref.job}, an ancestor of the new job: that would be a dependency cycle`, {
          field: ref.key,
        });
      }
      let job: JobRow;
      try {
        job = await this.visibleJob(caller, ref.job);
      } catch {
        throw invalidInput(`input field "${ref.key}" refers to ${ref.job}, which could not be found`, { field: ref.key });
      }
      if (job.state === 'failed' || job.state === 'terminated')
        throw invalidInput(`input field "${ref.key}" refers to ${ref.job}, which ${job.state}`, { field: ref.key });
      if (job.state === 'done') {
        try {
          valueOfJbor(ref, parseJson<Record<string, unknown>>(job.output, {}));
        } catch (error) {
          throw invalidInput(`input field "${ref.key}": ${(error as Error).message}`, { field: ref.key });
        }
      }
    }
  }

  private async checkDependsOn(caller: Caller, dependsOn: readonly string[], ancestors: Set<string> | undefined): Promise<void> {
    for (const id of dependsOn) {
      if (ancestors?.has(id))
        throw invalidInput(`dependsOn: ${id} is an ancestor of the new job, which it waits for: that would be a dependency cycle`, { field: 'dependsOn' });
      if (id.startsWith('job-')) {
        try {
          await this.visibleJob(caller, id);
        } catch {
          throw invalidInput(`dependsOn: the job ${id} could not be found`, { field: 'dependsOn' });
        }
        continue;
      }
      const cls = id.slice(0, id.indexOf('-'));
      try {
        await this.objects.resolve(caller, id, undefined, cls);
      } catch {
        throw invalidInput(`dependsOn: ${id} is neither a job nor a data object you can see`, { field: 'dependsOn' });
      }
    }
  }

  async assertWithinMonthlyLimit(project: ProjectRow, now: number): Promise<void> {
    const limit = projectSettings(project).monthlyComputeLimit;
    if (limit === undefined || limit === null) return;
    const spent = await this.engine.monthlySpend(project.id, now);
    if (spent >= limit) {
      throw new ApiError(
        'SpendingLimitExceeded',
        `${project.id} has spent $${spent.toFixed(4)} on compute this month, reaching its monthly limit of $${limit}`,
      );
    }
  }

  /**
   * Creates jobs in one transaction (with `alongside`, which writes rows that belong with them, such as
   * their analysis), each the root of a new tree with its own workspace unless it has a parent; then
   * lets the engine move them on.
   */
  async createJobs(list: readonly NewJobParams[], now: number, alongside?: (tx: Stores) => Promise<void>): Promise<string[]> {
    const rows = list.map((params) => this.jobRow(params, now));
    await this.stores.transaction(async (tx) => {
      if (alongside) await alongside(tx);
      for (const [index, row] of rows.entries()) {
        const params = list[index] as NewJobParams;
        if (!params.parent) {
          await tx.projects.insert({
            id: row.workspace,
            class: 'container',
            name: `workspace of ${row.id}`,
            billTo: params.project.billTo,
            region: params.project.region,
            containsPHI: params.project.containsPHI,
            settings: '{}',
            summary: '',
            description: '',
            tags: '[]',
            properties: '{}',
            pendingTransfer: null,
            createdBy: toJson({ user: params.launchedBy, job: row.id, executable: params.executable.id }),
            created: now,
            modified: now,
            version: 1,
          });
          await tx.projects.setMember({ projectId: row.workspace, memberId: params.launchedBy, level: 'ADMINISTER', created: now });
        }
        await tx.jobs.insert(row);
      }
    });
    for (const row of rows) await this.engine.advance(row.id, now);
    return rows.map((row) => row.id);
  }

  private jobRow(params: NewJobParams, now: number): JobRow {
    const id = params.id ?? newId('job');
    const parent = params.parent;
    const workspace = parent?.workspace ?? newId('container');
    const row: JobRow = {
      id,
      class: 'job',
      name: params.name,
      state: 'idle',
      executable: params.executable.id,
      executableName: params.executable.name,
      function: params.function,
      project: params.project.id,
      folder: params.folder,
      workspace,
      rootExecution: parent?.rootExecution ?? id,
      originJob: parent?.originJob ?? id,
      parentJob: parent?.id ?? null,
      parentTry: parent?.try ?? null,
      launchedBy: params.launchedBy,
      billTo: params.project.billTo,
      region: params.project.region,
      instanceType: params.instanceType.name,
      cores: params.instanceType.cores,
      memoryMB: params.instanceType.memoryMB,
      pricePerHour: params.instanceType.pricePerHour,
      priority: params.priority,
      priorityRank: PRIORITY_RANK[params.priority] ?? 1,
      try: 0,
      created: now,
      modified: now,
      stateChanged: now,
      startedRunning: null,
      stoppedRunning: null,
      deadline: null,
      accruedPrice: 0,
      costLimit: params.costLimit,
      failureReason: null,
      failureMessage: null,
      failureFrom: null,
      tokenId: null,
      claimedBy: null,
      executorHandle: null,
      reuseKey: null,
      input: toJson(params.input),
      output: null,
      outcome: null,
      stateTransitions: toJson([{ newState: 'idle', setAt: now }]),
      tries: '[]',
      logOffsets: '{}',
      tags: toJson(params.tags),
      properties: toJson(params.properties),
      details: toJson(params.details),
      spec: toJson(params.spec),
    };
    return row;
  }

  // ---- describe, change, search ----

  async describe(caller: Caller, id: string, options: DescribeInput, now: number): Promise<{ id: string } & Record<string, unknown>> {
    const job = await this.visibleJob(caller, id);
    if (options.try !== undefined && options.try > job.try) throw invalidInput(`${id} has no try ${options.try} (its current try is ${job.try})`);
    return this.describeRow(job, options, now, new Map());
  }

  async describeRow(
    job: JobRow,
    options: DescribeInput | boolean | undefined,
    now: number,
    treeCache: Map<string, Map<string, number>>,
  ): Promise<{ id: string } & Record<string, unknown>> {
    if (job.class === 'analysis' && this.analyses) return this.analyses.describe(job, options, now);
    const want = jobFieldSelector(options);
    let totalPrice = 0;
    if (want('totalPrice')) {
      let prices = treeCache.get(job.rootExecution);
      if (!prices) {
        prices = treePrices(await this.stores.jobs.listByRoot(job.rootExecution), now);
        treeCache.set(job.rootExecution, prices);
      }
      totalPrice = prices.get(job.id) ?? 0;
    }
    const tryNumber = typeof options === 'object' ? options.try : undefined;
    return describeJob(want, job, { totalPrice, tryNumber });
  }

  async terminate(caller: Caller, id: string, now: number): Promise<{ id: string }> {
    const job = await this.changeableJob(caller, id, 'Terminating a job');
    if (!isTerminal(job.state)) await this.engine.terminateTree(job.rootExecution, caller.userId, now);
    return { id };
  }

  async update(caller: Caller, id: string, input: RouteParsedInput<'job-xxxx/update'>, now: number): Promise<{ id: string }> {
    const job = await this.changeableJob(caller, id, 'Updating a job');
    if (isTerminal(job.state)) throw invalidState(`${id} is ${job.state} and can no longer change`);
    const spec = jobSpec(job);
    const patch: Partial<JobRow> = { modified: now };
    if (input.priority) Object.assign(patch, { priority: input.priority, priorityRank: PRIORITY_RANK[input.priority] ?? 1 });
    if (input.allowSSH || input.rank !== undefined) {
      patch.spec = toJson({ ...spec, ...(input.allowSSH ? { allowSSH: input.allowSSH } : {}), ...(input.rank !== undefined ? { rank: input.rank } : {}) });
    }
    await this.stores.jobs.update(id, patch);
    return { id };
  }

  async changeTags(caller: Caller, id: string, tags: string[], add: boolean, now: number): Promise<{ id: string }> {
    const job = await this.changeableJob(caller, id, 'Tagging a job');
    const current = parseJson<string[]>(job.tags, []);
    await this.stores.jobs.update(id, { tags: toJson(add ? dedupe([...current, ...tags]) : current.filter((tag) => !tags.includes(tag))), modified: now });
    return { id };
  }

  async setProperties(caller: Caller, id: string, properties: Record<string, string | null>, now: number): Promise<{ id: string }> {
    const job = await this.changeableJob(caller, id, 'Setting job properties');
    await this.stores.jobs.update(id, { properties: toJson(applyProperties(parseJson(job.properties, {}), properties)), modified: now });
    return { id };
  }

  /** The runner of the job's current try reports how its code ended (job token of that job only). */
  async reportOutcome(caller: Caller, id: string, input: RouteParsedInput<'job-xxxx/reportOutcome'>, now: number): Promise<{ id: string }> {
    const job = id.startsWith('job-') ? await this.stores.jobs.findById(id) : undefined;
    if (!job) throw notFound(`The job ${id} could not be found`);
    if (caller.tokenKind !== 'job' || job.tokenId !== caller.tokenId)
      throw permissionDenied(`Only the runner of ${id}, with its job token, reports its outcome`);
    if (input.try !== job.try) throw invalidState(`${id} is in try ${job.try}, not ${input.try}`);
    if (!['running', 'unresponsive', 'terminating'].includes(job.state)) throw invalidState(`${id} is ${job.state}: its outcome can no longer be reported`);
    await this.engine.recordOutcome(
      job,
      { try: input.try, exitCode: input.exitCode, signal: input.signal ?? null, output: input.output ?? null, error: input.error ?? null },
      now,
    );
    return { id };
  }

  async find(caller: Caller, input: RouteParsedInput<'system/findExecutions'>, cls: 'job' | 'analysis' | undefined, now: number) {
    const limit = input.limit ?? FIND_LIMIT_MAX;
    const wantedClass = cls ?? input.class;
    const list = (value: string | string[] | undefined) => (value === undefined ? undefined : [value].flat());
    let projects: string[] | undefined;
    if (input.project) {
      await this.access.require(caller, input.project, 'VIEW');
      projects = [input.project];
    }
    const visible = projects ? undefined : (await this.access.visibleProjects(caller)).map((entry) => entry.project.id);
    const matcher = input.name ? nameMatcher(input.name) : undefined;
    // The stage jobs of an analysis are the roots of their own job trees; their root execution is the analysis.
    const rootExecutions = list(input.rootExecution);
    const analysisRoots = rootExecutions?.filter((id) => id.startsWith('analysis-')) ?? [];
    if (rootExecutions && analysisRoots.length && this.analyses) rootExecutions.push(...(await this.analyses.stageJobs(analysisRoots)));
    const parentAnalyses = input.parentAnalysis === undefined || input.parentAnalysis === null ? undefined : [input.parentAnalysis].flat();
    const ids = parentAnalyses ? ((await this.analyses?.stageJobs(parentAnalyses)) ?? []) : undefined;
    let before = parseCursor(input.starting);
    const results: { id: string; describe?: unknown }[] = [];
    let lastReturned: { created: number; id: string } | undefined;
    const treeCache = new Map<string, Map<string, number>>();
    const batchSize = Math.min(FIND_LIMIT_MAX, Math.max(limit + 1, 100));
    for (;;) {
      const batch = await this.stores.jobs.find({
        classes: wantedClass ? [wantedClass] : ['job', 'analysis'],
        ids,
        projects,
        visibleTo: visible ? { userId: caller.userId, projects: visible } : undefined,
        launchedBy: input.launchedBy,
        executable: input.executable,
        states: list(input.state),
        originJobs: list(input.originJob ?? input.origin),
        rootExecutions,
        parentJobs: input.parentJob === undefined ? undefined : [input.parentJob].flat(),
        rootsOnly: input.includeSubjobs === false,
        nameExact: matcher?.exact,
        created: input.created,
        modified: input.modified,
        before,
        limit: batchSize,
      });
      for (const row of batch) {
        before = { created: row.created, id: row.id };
        if (matcher && !matcher.test(row.name)) continue;
        // `parentAnalysis: null`: no analysis's stage jobs (top-level executions, as the monitor lists them).
        if (input.parentAnalysis === null && row.class === 'job' && row.parentJob === null && jobSpec(row).analysis) continue;
        if (input.tags && !matchesTags(parseJson<string[]>(row.tags, []), input.tags)) continue;
        if (input.properties && !matchesProperties(parseJson(row.properties, {}), input.properties)) continue;
        if (results.length === limit) return { results, next: lastReturned ?? null };
        lastReturned = { created: row.created, id: row.id };
        results.push({ id: row.id, ...(input.describe ? { describe: await this.describeRow(row, input.describe, now, treeCache) } : {}) });
      }
      if (batch.length < batchSize) return { results, next: null };
    }
  }

  async describeMany(caller: Caller, input: RouteParsedInput<'system/describeExecutions'>, now: number) {
    const results: unknown[] = [];
    const treeCache = new Map<string, Map<string, number>>();
    for (const entry of input.executions) {
      const { id, describe } = typeof entry === 'string' ? { id: entry, describe: undefined } : entry;
      try {
        const job = await this.visibleExecution(caller, id);
        results.push({ describe: await this.describeRow(job, describe ?? input.describe ?? true, now, treeCache) });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        results.push({});
      }
    }
    return { results };
  }
}

function parseCursor(starting: unknown): { created: number; id: string } | undefined {
  if (starting === undefined || starting === null) return undefined;
  if (
    typeof starting === 'object' &&
    typeof (starting as { created?: unknown }).created === 'number' &&
    typeof (starting as { id?: unknown }).id === 'string'
  ) {
    return { created: (starting as { created: number }).created, id: (starting as { id: string }).id };
  }
  throw invalidInput('"starting" must be the "next" value of a previous findExecutions answer');
}
