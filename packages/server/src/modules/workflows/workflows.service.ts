import { atLeast, type IoSpecItem, type RouteParsedInput, type WorkflowStageInput } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidInput, invalidState, permissionDenied } from '../../errors.js';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { newId } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import type { Caller } from '../auth/caller.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';
import type { ObjectInContainer } from '../data-objects/objects.repository.js';
import type { Executable } from '../executables/executable-spec.js';
import { checkAgainstSpec } from '../jobs/job-io.js';
import type { JobsService } from '../jobs/jobs.service.js';
import type { AccessService, ProjectAccess } from '../projects/access.service.js';
import { analysisSpecOf } from './analysis-model.js';
import { DEFAULT_WORKFLOW_FORMAT, type WorkflowDocument, workflowFormat } from './importers/index.js';
import {
  computedInputSpec,
  computedOutputSpec,
  elementsOf,
  findStage,
  incompatibilities,
  linkProblems,
  type StageExecutableInfo,
  stageLinkOf,
  stageLinksIn,
  type WorkflowContent,
  type WorkflowOutput,
  type WorkflowStage,
  workflowInputLinkOf,
} from './workflow-model.js';

type DescribeInput = RouteParsedInput<'workflow-xxxx/describe'>;

export interface LoadedWorkflow {
  row: ObjectInContainer;
  content: WorkflowContent;
  access: ProjectAccess;
}

/** Describe fields of a workflow: the common data object ones, then reference §4.6's. */
const WORKFLOW_DEFAULT_FIELDS = [
  'id',
  'class',
  'project',
  'folder',
  'name',
  'state',
  'hidden',
  'types',
  'tags',
  'links',
  'sponsored',
  'createdBy',
  'created',
  'modified',
  'title',
  'summary',
  'description',
  'outputFolder',
  'stages',
  'editVersion',
  'inputSpec',
  'outputSpec',
  'inputs',
  'outputs',
  'ignoreReuse',
  'initializedFrom',
];

const EMPTY_CONTENT: WorkflowContent = {
  title: null,
  summary: '',
  description: '',
  outputFolder: null,
  stages: [],
  inputs: null,
  outputs: null,
  ignoreReuse: false,
  editVersion: 0,
};

export function workflowContentOf(row: Pick<ObjectInContainer, 'content'>): WorkflowContent {
  return { ...EMPTY_CONTENT, ...parseJson<Partial<WorkflowContent>>(row.content, {}) };
}

/**
 * Workflows (reference §4.6): data objects of class workflow whose content is the list of stages.
 * Open workflows are edited under optimistic locking (`editVersion`); closed ones only run (and clone).
 */
export class WorkflowsService {
  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly objects: DataObjectsService,
    private readonly jobs: JobsService,
  ) {}

  // ---- reading ----

  async load(caller: Caller, id: string, projectHint?: string): Promise<LoadedWorkflow> {
    const { row, access } = await this.objects.resolve(caller, id, projectHint, 'workflow');
    return { row, access, content: workflowContentOf(row) };
  }

  /** Each stage's executable as the caller sees it (inaccessible ones have no specs). */
  async stageInfos(caller: Caller, content: WorkflowContent, projectHint?: string): Promise<Map<string, StageExecutableInfo>> {
    const byExecutable = new Map<string, StageExecutableInfo>();
    const infos = new Map<string, StageExecutableInfo>();
    for (const stage of content.stages) {
      let info = byExecutable.get(stage.executable);
      if (!info) {
        try {
          const executable = await this.jobs.executableFor(caller, stage.executable, projectHint);
          info = infoOf(executable);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          info = { accessible: false, inputSpec: null, outputSpec: null };
        }
        byExecutable.set(stage.executable, info);
      }
      infos.set(stage.id, info);
    }
    return infos;
  }

  /** Each stage's executable for a run; an executable the caller cannot run fails naming the stage. */
  async stageExecutables(caller: Caller, content: WorkflowContent, projectHint?: string): Promise<Map<string, Executable>> {
    const found = new Map<string, Executable>();
    for (const stage of content.stages) {
      try {
        found.set(stage.id, await this.jobs.executableFor(caller, stage.executable, projectHint));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new ApiError(error.type, `stage ${stage.id}${stage.name ? ` ("${stage.name}")` : ''}: ${error.message}`, { stage: stage.id });
      }
    }
    return found;
  }

  // ---- creating ----

  async create(caller: Caller, input: RouteParsedInput<'workflow/new'>, now: number): Promise<{ id: string; editVersion: number }> {
    await this.access.require(caller, input.project, 'UPLOAD', 'Creating a workflow');
    let content: WorkflowContent = { ...EMPTY_CONTENT };
    if (input.initializeFrom?.id.startsWith('analysis-')) {
      // From an analysis: its workflow as it was run, with the inputs it was given bound.
      const analysis = await this.jobs.visibleExecution(caller, input.initializeFrom.id);
      if (analysis.class !== 'analysis') throw invalidInput(`"initializeFrom": ${input.initializeFrom.id} is not an analysis`);
      const spec = analysisSpecOf(analysis);
      content = {
        ...structuredClone(spec.workflow.content),
        editVersion: 0,
        initializedFrom: { id: analysis.id, editVersion: spec.workflow.content.editVersion },
      };
      for (const [key, value] of Object.entries(spec.runInput)) {
        const dot = key.indexOf('.');
        const stage = dot > 0 ? content.stages.find((candidate) => candidate.id === key.slice(0, dot)) : undefined;
        if (stage) stage.input[key.slice(dot + 1)] = value;
      }
    } else if (input.initializeFrom) {
      const source = await this.load(caller, input.initializeFrom.id, input.initializeFrom.project);
      content = { ...source.content, editVersion: 0, initializedFrom: { id: source.row.objectId, editVersion: source.content.editVersion } };
    }
    if (input.title !== undefined) content.title = input.title;
    if (input.summary !== undefined) content.summary = input.summary ?? '';
    if (input.description !== undefined) content.description = input.description ?? '';
    if (input.outputFolder !== undefined) content.outputFolder = input.outputFolder;
    if (input.inputs !== undefined) content.inputs = input.inputs;
    if (input.outputs !== undefined) content.outputs = input.outputs as WorkflowOutput[] | null;
    if (input.ignoreReuse !== undefined) content.ignoreReuse = input.ignoreReuse;
    if (input.stages) {
      const taken = new Set<string>();
      content.stages = [];
      for (const [index, stage] of input.stages.entries()) content.stages.push(await this.newStage(caller, stage, taken, input.project, `stages[${index}]`));
    }
    await this.assertConsistent(caller, content, input.project);
    const { id } = await this.objects.create(
      caller,
      {
        project: input.project,
        name: input.name,
        folder: input.folder,
        parents: input.parents,
        hidden: input.hidden,
        tags: input.tags,
        types: input.types,
        properties: input.properties,
        details: input.details,
      },
      { cls: 'workflow', state: 'open', content: content as unknown as Record<string, unknown> },
      now,
    );
    return { id, editVersion: content.editVersion };
  }

  /** `workflow/import`: a document of an import format → a new workflow (closed with `close`). */
  async import(caller: Caller, input: RouteParsedInput<'workflow/import'>, now: number): Promise<{ id: string; editVersion: number; stages: string[] }> {
    const document = workflowFormat(input.format ?? DEFAULT_WORKFLOW_FORMAT).parse(input.source);
    const created = await this.create(
      caller,
      {
        project: input.project,
        folder: input.folder,
        parents: input.parents,
        name: input.name ?? document.name,
        title: document.title,
        summary: document.summary,
        description: document.description,
        outputFolder: document.outputFolder,
        stages: document.stages,
        inputs: document.inputs,
        outputs: document.outputs,
      },
      now,
    );
    if (input.close) await this.close(caller, created.id, now);
    const { content } = await this.load(caller, created.id, input.project);
    return { ...created, stages: content.stages.map((stage) => stage.id) };
  }

  /** A stage from what the caller sent: its executable resolved to an ID, an ID of its own, bound inputs of the right classes. */
  private async newStage(
    caller: Caller,
    input: WorkflowStageInput,
    taken: Set<string>,
    projectHint: string | undefined,
    where: string,
  ): Promise<WorkflowStage> {
    const id = input.id ?? newId('stage');
    if (taken.has(id)) throw invalidInput(`${where}: the stage ID ${id} is used twice`, { field: where });
    taken.add(id);
    let executable: Executable;
    try {
      executable = await this.jobs.executableFor(caller, input.executable, projectHint);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw invalidInput(`${where} (${id}): the executable ${input.executable} cannot be used: ${error.message}`, { field: where });
    }
    const stage: WorkflowStage = {
      id,
      executable: executable.id,
      name: input.name ?? null,
      folder: input.folder ?? null,
      input: input.input ?? {},
      executionPolicy: input.executionPolicy ?? {},
      systemRequirements: input.systemRequirements ?? {},
    };
    checkBoundValues(stage, executable.spec.inputSpec);
    return stage;
  }

  /** Links that point nowhere, fields the executables lack and cycles are refused. */
  private async assertConsistent(caller: Caller, content: WorkflowContent, projectHint: string | undefined): Promise<void> {
    const problems = linkProblems(content, await this.stageInfos(caller, content, projectHint));
    if (problems.length) throw invalidInput(`The workflow's stages do not fit together: ${problems.join('; ')}`);
  }

  // ---- editing (optimistic locking on editVersion) ----

  private async edit(
    caller: Caller,
    id: string,
    editVersion: number,
    change: (content: WorkflowContent, loaded: LoadedWorkflow) => Promise<void> | void,
    now: number,
  ): Promise<{ id: string; editVersion: number }> {
    const loaded = await this.load(caller, id);
    assertEditable(loaded);
    assertVersion(id, loaded.content, editVersion);
    const next = structuredClone(loaded.content);
    await change(next, loaded);
    next.editVersion = loaded.content.editVersion + 1;
    await this.assertConsistent(caller, next, loaded.row.projectId);
    if (!(await this.stores.workflows.replaceContent(id, loaded.row.content, toJson(next)))) {
      const current = await this.load(caller, id, loaded.row.projectId);
      if (current.row.state !== 'open') throw invalidState(`${id} was closed meanwhile: closed workflows cannot be edited`);
      throw invalidState(
        `editVersion ${editVersion} of ${id} is out of date: it was edited meanwhile and its current editVersion is ${current.content.editVersion}`,
      );
    }
    await this.stores.objects.updateCopy(loaded.row.projectId, id, { modified: now });
    return { id, editVersion: next.editVersion };
  }

  async addStage(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/addStage'>, now: number) {
    let added = '';
    const result = await this.edit(
      caller,
      id,
      input.editVersion,
      async (content, loaded) => {
        const stage = await this.newStage(caller, input, new Set(content.stages.map((s) => s.id)), loaded.row.projectId, 'stage');
        content.stages.push(stage);
        added = stage.id;
      },
      now,
    );
    return { ...result, stage: added };
  }

  async removeStage(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/removeStage'>, now: number) {
    return this.edit(
      caller,
      id,
      input.editVersion,
      (content) => {
        const { index } = requireStage(content, input.stage);
        const linking = content.stages.flatMap((other) =>
          other.id === input.stage ? [] : stageLinksIn(other.input).flatMap((link) => (link.stage === input.stage ? [`${other.id}.${link.field}`] : [])),
        );
        if (linking.length) {
          throw invalidState(
            `${input.stage} cannot be removed while ${linking.join(', ')} link${linking.length === 1 ? 's' : ''} to it: unbind them first (update)`,
          );
        }
        content.stages.splice(index, 1);
      },
      now,
    );
  }

  async moveStage(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/moveStage'>, now: number) {
    return this.edit(
      caller,
      id,
      input.editVersion,
      (content) => {
        const { stage, index } = requireStage(content, input.stage);
        if (input.newIndex >= content.stages.length) {
          throw invalidInput(`"newIndex" must be below ${content.stages.length}, the number of stages`, { field: 'newIndex' });
        }
        content.stages.splice(index, 1);
        content.stages.splice(input.newIndex, 0, stage);
      },
      now,
    );
  }

  async update(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/update'>, now: number) {
    const result = await this.edit(
      caller,
      id,
      input.editVersion,
      async (content, loaded) => {
        if (input.title !== undefined) content.title = input.title;
        if (input.summary !== undefined) content.summary = input.summary ?? '';
        if (input.description !== undefined) content.description = input.description ?? '';
        if (input.outputFolder !== undefined) content.outputFolder = input.outputFolder;
        if (input.inputs !== undefined) content.inputs = input.inputs;
        if (input.outputs !== undefined) content.outputs = input.outputs as WorkflowOutput[] | null;
        if (input.ignoreReuse !== undefined) content.ignoreReuse = input.ignoreReuse;
        const infos = input.stages ? await this.stageInfos(caller, content, loaded.row.projectId) : new Map<string, StageExecutableInfo>();
        for (const [stageId, change] of Object.entries(input.stages ?? {})) {
          const { stage } = requireStage(content, stageId);
          if (change.name !== undefined) stage.name = change.name;
          if (change.folder !== undefined) stage.folder = change.folder;
          if (change.executionPolicy !== undefined) stage.executionPolicy = change.executionPolicy;
          if (change.systemRequirements !== undefined) stage.systemRequirements = change.systemRequirements;
          for (const [field, value] of Object.entries(change.input ?? {})) {
            if (value === null) delete stage.input[field];
            else stage.input[field] = value;
          }
          checkBoundValues(stage, infos.get(stageId)?.inputSpec ?? null);
        }
      },
      now,
    );
    if (input.name !== undefined) {
      const loaded = await this.load(caller, id);
      await this.stores.objects.updateCopy(loaded.row.projectId, id, { name: input.name, modified: now });
    }
    return result;
  }

  async isStageCompatible(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/isStageCompatible'>) {
    const loaded = await this.load(caller, id);
    if (input.editVersion !== undefined) assertVersion(id, loaded.content, input.editVersion);
    requireStage(loaded.content, input.stage);
    const problems = await this.incompatibilitiesOf(caller, loaded, input.stage, input.executable);
    return { id, compatible: problems.length === 0, incompatibilities: problems };
  }

  private async incompatibilitiesOf(caller: Caller, loaded: LoadedWorkflow, stageId: string, executableRef: string): Promise<string[]> {
    let next: Executable;
    try {
      next = await this.jobs.executableFor(caller, executableRef, loaded.row.projectId);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw invalidInput(`"executable": ${executableRef} cannot be used: ${error.message}`, { field: 'executable' });
    }
    const infos = await this.stageInfos(caller, loaded.content, loaded.row.projectId);
    return incompatibilities(loaded.content, stageId, infos.get(stageId), infoOf(next));
  }

  async updateStageExecutable(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/updateStageExecutable'>, now: number) {
    let compatible = true;
    const result = await this.edit(
      caller,
      id,
      input.editVersion,
      async (content, loaded) => {
        const { stage } = requireStage(content, input.stage);
        const problems = await this.incompatibilitiesOf(caller, loaded, input.stage, input.executable);
        compatible = problems.length === 0;
        if (!compatible && !input.force) {
          throw invalidInput(
            `${input.executable} cannot replace the executable of ${input.stage}: ${problems.join('; ')} (pass "force" to replace it anyway)`,
            {
              field: 'executable',
            },
          );
        }
        const next = await this.jobs.executableFor(caller, input.executable, loaded.row.projectId);
        stage.executable = next.id;
        if (next.spec.inputSpec) {
          // Forced: bindings the new executable has no field for go, with the links to its missing fields.
          const known = new Set(next.spec.inputSpec.map((item) => item.name));
          for (const field of Object.keys(stage.input)) if (!known.has(field)) delete stage.input[field];
        }
        if (!compatible) dropBrokenLinks(content, stage.id, next);
      },
      now,
    );
    return { ...result, compatible };
  }

  async overwrite(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/overwrite'>, now: number) {
    return this.edit(
      caller,
      id,
      input.editVersion,
      async (content) => {
        const source = await this.load(caller, input.from.id, input.from.project);
        Object.assign(content, {
          title: source.content.title,
          summary: source.content.summary,
          description: source.content.description,
          outputFolder: source.content.outputFolder,
          stages: structuredClone(source.content.stages),
          inputs: source.content.inputs,
          outputs: source.content.outputs,
          ignoreReuse: source.content.ignoreReuse,
        });
      },
      now,
    );
  }

  async close(caller: Caller, id: string, now: number): Promise<{ id: string }> {
    const loaded = await this.load(caller, id);
    if (loaded.row.state === 'closed') return { id };
    assertEditable(loaded);
    await this.stores.objects.updateObjectInState(id, 'open', { state: 'closed', stateChanged: now });
    return { id };
  }

  // ---- describe and export ----

  async describe(caller: Caller, id: string, options: DescribeInput): Promise<{ id: string } & Record<string, unknown>> {
    return this.describeLoaded(caller, await this.load(caller, id, options.project), options);
  }

  async describeLoaded(
    caller: Caller,
    loaded: LoadedWorkflow,
    options: DescribeInput | boolean | undefined,
  ): Promise<{ id: string } & Record<string, unknown>> {
    const want = fieldSelector(options, WORKFLOW_DEFAULT_FIELDS);
    const common = await this.objects.describeRow(loaded.row, options);
    const { content } = loaded;
    const needInfos = want('stages') || want('inputSpec') || want('outputSpec');
    const infos = needInfos ? await this.stageInfos(caller, content, loaded.row.projectId) : new Map<string, StageExecutableInfo>();
    const own = pickFields(want, {
      title: () => content.title ?? loaded.row.name,
      summary: () => content.summary,
      description: () => content.description,
      outputFolder: () => content.outputFolder,
      stages: () =>
        content.stages.map((stage) => ({
          id: stage.id,
          name: stage.name,
          executable: stage.executable,
          folder: stage.folder,
          input: stage.input,
          accessible: infos.get(stage.id)?.accessible ?? false,
          executionPolicy: stage.executionPolicy,
          systemRequirements: stage.systemRequirements,
        })),
      editVersion: () => content.editVersion,
      inputSpec: () => computedInputSpec(content, infos),
      outputSpec: () => computedOutputSpec(content, infos),
      inputs: () => content.inputs,
      outputs: () => content.outputs,
      ignoreReuse: () => content.ignoreReuse,
      initializedFrom: () => content.initializedFrom ?? null,
    });
    return { ...common, ...own, id: loaded.row.objectId };
  }

  /** The workflow as a document of an import format; apps are named `app-<name>/<version>` so that it travels. */
  async export(caller: Caller, id: string, input: RouteParsedInput<'workflow-xxxx/export'>): Promise<{ id: string; format: string; document: unknown }> {
    const format = workflowFormat(input.format ?? DEFAULT_WORKFLOW_FORMAT);
    const { row, content } = await this.load(caller, id, input.project);
    const stages: WorkflowStageInput[] = [];
    for (const stage of content.stages) {
      let executable = stage.executable;
      if (executable.startsWith('app-')) {
        const app = await this.stores.apps.findById(executable);
        if (app) executable = `app-${app.name}/${app.version}`;
      }
      stages.push({
        id: stage.id,
        name: stage.name,
        executable,
        folder: stage.folder,
        input: stage.input,
        executionPolicy: stage.executionPolicy,
        systemRequirements: stage.systemRequirements,
      });
    }
    const document: WorkflowDocument = {
      name: row.name,
      title: content.title,
      summary: content.summary,
      description: content.description,
      outputFolder: content.outputFolder,
      stages,
      inputs: content.inputs,
      outputs: content.outputs,
    };
    return { id, format: format.name, document: format.serialize(document) };
  }
}

function infoOf(executable: Executable): StageExecutableInfo {
  return {
    accessible: true,
    name: executable.name,
    title: executable.spec.title,
    inputSpec: executable.spec.inputSpec,
    outputSpec: executable.spec.outputSpec,
  };
}

function assertEditable(loaded: LoadedWorkflow): void {
  if (loaded.row.state !== 'open') {
    throw invalidState(`${loaded.row.objectId} is closed: closed workflows cannot be edited (make an editable copy with workflow/new and initializeFrom)`);
  }
  if (!atLeast(loaded.access.level, 'UPLOAD')) {
    throw permissionDenied(`Editing ${loaded.row.objectId} requires UPLOAD permission in ${loaded.row.projectId}; you have ${loaded.access.level}`);
  }
}

function assertVersion(id: string, content: WorkflowContent, editVersion: number): void {
  if (editVersion !== content.editVersion) {
    throw invalidState(`editVersion ${editVersion} of ${id} is out of date: its current editVersion is ${content.editVersion} (describe it again and retry)`);
  }
}

function requireStage(content: WorkflowContent, stageId: string): { stage: WorkflowStage; index: number } {
  const found = findStage(content, stageId);
  if (!found) {
    throw invalidInput(`The workflow has no stage ${stageId} (its stages: ${content.stages.map((stage) => stage.id).join(', ') || 'none'})`, {
      field: 'stage',
    });
  }
  return found;
}

/** Bound values that are not links must fit their field (class, choices). */
function checkBoundValues(stage: WorkflowStage, inputSpec: IoSpecItem[] | null): void {
  if (!inputSpec) return;
  for (const [field, value] of Object.entries(stage.input)) {
    const item = inputSpec.find((candidate) => candidate.name === field);
    if (!item) throw invalidInput(`${stage.id}.${field}: the stage's executable has no input "${field}"`, { field: `${stage.id}.${field}` });
    if (elementsOf(value).some((element) => stageLinkOf(element) || workflowInputLinkOf(element) !== undefined)) continue;
    try {
      checkAgainstSpec([{ ...item, optional: true }], { [field]: value }, { what: 'input', applyDefaults: false });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw invalidInput(error.message.replace(`"${field}"`, `"${stage.id}.${field}"`), { field: `${stage.id}.${field}` });
    }
  }
}

/** After a forced executable change: links from other stages to fields the new executable lacks are unbound. */
function dropBrokenLinks(content: WorkflowContent, stageId: string, next: Executable): void {
  const outputs = next.spec.outputSpec ? new Set(next.spec.outputSpec.map((item) => item.name)) : undefined;
  const inputs = next.spec.inputSpec ? new Set(next.spec.inputSpec.map((item) => item.name)) : undefined;
  for (const other of content.stages) {
    for (const link of stageLinksIn(other.input)) {
      if (link.stage !== stageId) continue;
      const broken = 'outputField' in link ? outputs && !outputs.has(link.outputField) : inputs && !inputs.has(link.inputField);
      if (broken) delete other.input[link.field];
    }
  }
}
