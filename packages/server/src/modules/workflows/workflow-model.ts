import type { ExecutionPolicy, IoSpecItem, SystemRequirements } from '@panx/contract';

/**
 * A workflow as it is stored (the `content` of its object row): stages in order, each with its
 * executable (an applet or app ID, resolved when the stage was added) and bound inputs, which may be
 * values or stage links. Everything here is pure.
 */
export interface WorkflowStage {
  id: string;
  executable: string;
  name: string | null;
  /** Absolute, or relative to the analysis's output folder; null: the output folder itself. */
  folder: string | null;
  input: Record<string, unknown>;
  executionPolicy: ExecutionPolicy;
  systemRequirements: SystemRequirements;
}

/** A workflow-level output: `outputSource` is a stage output link. */
export interface WorkflowOutput extends IoSpecItem {
  outputSource: unknown;
}

export interface WorkflowContent {
  title: string | null;
  summary: string;
  description: string;
  outputFolder: string | null;
  stages: WorkflowStage[];
  /** Workflow-level inputs; when set, runs are given these names instead of `<stage>.<field>`. */
  inputs: IoSpecItem[] | null;
  outputs: WorkflowOutput[] | null;
  /** true, or the stages whose jobs are never reused. */
  ignoreReuse: boolean | string[];
  editVersion: number;
  initializedFrom?: { id: string; editVersion: number };
}

/** What is known of a stage's executable for the caller (describe's `accessible`). */
export interface StageExecutableInfo {
  accessible: boolean;
  name?: string;
  title?: string;
  inputSpec: IoSpecItem[] | null;
  outputSpec: IoSpecItem[] | null;
}

/** `{"$dnanexus_link": {"stage", "outputField"}}` or `{"$dnanexus_link": {"stage", "inputField"}}` (reference §3.4). */
export type StageLink = { stage: string; outputField: string; index?: number } | { stage: string; inputField: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function linkBody(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value) || !isPlainObject(value.$dnanexus_link)) return undefined;
  return value.$dnanexus_link;
}

export function stageLinkOf(value: unknown): StageLink | undefined {
  const body = linkBody(value);
  if (!body || typeof body.stage !== 'string') return undefined;
  if (typeof body.outputField === 'string') {
    return typeof body.index === 'number'
      ? { stage: body.stage, outputField: body.outputField, index: body.index }
      : { stage: body.stage, outputField: body.outputField };
  }
  if (typeof body.inputField === 'string') return { stage: body.stage, inputField: body.inputField };
  return undefined;
}

/** `{"$dnanexus_link": {"workflowInputField": "name"}}`: a stage input bound to a workflow-level input. */
export function workflowInputLinkOf(value: unknown): string | undefined {
  const body = linkBody(value);
  return body && typeof body.workflowInputField === 'string' ? body.workflowInputField : undefined;
}

/** `{"$dnanexus_link": {"analysis", "field", "index"?}}`: an output of another analysis. */
export function analysisLinkOf(value: unknown): { analysis: string; field: string; index?: number } | undefined {
  const body = linkBody(value);
  if (!body || typeof body.analysis !== 'string' || typeof body.field !== 'string') return undefined;
  return typeof body.index === 'number' ? { analysis: body.analysis, field: body.field, index: body.index } : { analysis: body.analysis, field: body.field };
}

/** Top-level values and array elements: where links count in an input. */
export function elementsOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** Every stage link among a stage's bound inputs, with the field it is in. */
export function stageLinksIn(input: Record<string, unknown>): (StageLink & { field: string })[] {
  return Object.entries(input).flatMap(([field, value]) =>
    elementsOf(value).flatMap((element) => {
      const link = stageLinkOf(element);
      return link ? [{ ...link, field }] : [];
    }),
  );
}

export function findStage(content: WorkflowContent, ref: string): { stage: WorkflowStage; index: number } | undefined {
  const index = content.stages.findIndex((stage) => stage.id === ref);
  const stage = content.stages[index];
  return stage ? { stage, index } : undefined;
}

/**
 * What is wrong with the stages' links: unknown stages, a stage linking to itself, fields the linked
 * executables do not have (when their specs are known), cycles. Empty when nothing is.
 */
export function linkProblems(content: WorkflowContent, infos: ReadonlyMap<string, StageExecutableInfo>): string[] {
  const problems: string[] = [];
  const ids = new Set(content.stages.map((stage) => stage.id));
  const edges = new Map<string, Set<string>>();
  for (const stage of content.stages) {
    const info = infos.get(stage.id);
    if (info?.inputSpec) {
      const known = new Set(info.inputSpec.map((item) => item.name));
      for (const field of Object.keys(stage.input)) {
        if (!known.has(field)) problems.push(`${stage.id}.${field}: the stage's executable has no input "${field}"`);
      }
    }
    for (const link of stageLinksIn(stage.input)) {
      const where = `${stage.id}.${link.field}`;
      if (!ids.has(link.stage)) {
        problems.push(`${where} links to ${link.stage}, which is not a stage of this workflow`);
        continue;
      }
      if (link.stage === stage.id && 'outputField' in link) {
        problems.push(`${where} links to an output of its own stage`);
        continue;
      }
      const source = infos.get(link.stage);
      if ('outputField' in link) {
        if (source?.outputSpec && !source.outputSpec.some((item) => item.name === link.outputField)) {
          problems.push(`${where} links to the output "${link.outputField}" of ${link.stage}, which has no such output`);
        }
      } else if (source?.inputSpec && !source.inputSpec.some((item) => item.name === link.inputField)) {
        problems.push(`${where} links to the input "${link.inputField}" of ${link.stage}, which has no such input`);
      }
      edges.set(stage.id, new Set([...(edges.get(stage.id) ?? []), link.stage]));
    }
  }
  const cycle = findCycle(edges);
  if (cycle) problems.push(`the stage links form a cycle: ${cycle.join(' → ')}`);
  return problems;
}

/** A cycle in a directed graph (as the list of its nodes, the first repeated at the end), if there is one. */
export function findCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      if (next === node) continue; // an input linked to another input of the same stage
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of edges.keys()) {
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

/**
 * The workflow's input spec (reference §4.6): its `inputs` when it has some, else every stage's
 * inputs named `<stageId>.<field>` (with `stage`); fields already bound are optional, with the bound
 * value as default. Null when a stage's executable is inaccessible (`dx run` then says so).
 */
export function computedInputSpec(content: WorkflowContent, infos: ReadonlyMap<string, StageExecutableInfo>): IoSpecItem[] | null {
  if (content.inputs) return content.inputs;
  const spec: IoSpecItem[] = [];
  for (const stage of content.stages) {
    const info = infos.get(stage.id);
    if (!info?.accessible) return null;
    for (const item of info.inputSpec ?? []) {
      const bound = stage.input[item.name];
      spec.push({
        ...item,
        name: `${stage.id}.${item.name}`,
        stage: stage.id,
        ...(bound !== undefined ? { optional: true, default: bound } : {}),
      } as IoSpecItem);
    }
  }
  return spec;
}

/** The workflow's output spec: its `outputs` when it has some, else every stage's outputs named `<stageId>.<field>`. */
export function computedOutputSpec(content: WorkflowContent, infos: ReadonlyMap<string, StageExecutableInfo>): IoSpecItem[] | null {
  if (content.outputs) return content.outputs;
  const spec: IoSpecItem[] = [];
  for (const stage of content.stages) {
    const info = infos.get(stage.id);
    if (!info?.accessible) return null;
    for (const item of info.outputSpec ?? []) spec.push({ ...item, name: `${stage.id}.${item.name}`, stage: stage.id } as IoSpecItem);
  }
  return spec;
}

/**
 * Why `next` could not replace the executable of `stageId`: fields the stage binds that it lacks,
 * outputs and inputs other stages link to that it lacks or has with another class.
 */
export function incompatibilities(
  content: WorkflowContent,
  stageId: string,
  current: StageExecutableInfo | undefined,
  next: Pick<StageExecutableInfo, 'inputSpec' | 'outputSpec'>,
): string[] {
  const found = findStage(content, stageId);
  if (!found) return [`there is no stage ${stageId}`];
  const problems: string[] = [];
  const inputs = next.inputSpec ? new Map(next.inputSpec.map((item) => [item.name, item])) : undefined;
  const outputs = next.outputSpec ? new Map(next.outputSpec.map((item) => [item.name, item])) : undefined;
  const classOf = (spec: IoSpecItem[] | null | undefined, name: string) => spec?.find((item) => item.name === name)?.class;
  if (inputs) {
    for (const field of Object.keys(found.stage.input)) {
      const item = inputs.get(field);
      if (!item) problems.push(`the stage binds the input "${field}", which the new executable does not have`);
      else {
        const before = classOf(current?.inputSpec, field);
        if (before && before !== item.class) problems.push(`the input "${field}" is of class ${item.class}, not ${before}`);
      }
    }
  }
  for (const other of content.stages) {
    for (const link of stageLinksIn(other.input)) {
      if (link.stage !== stageId) continue;
      const where = `${other.id}.${link.field}`;
      if ('outputField' in link && outputs) {
        const item = outputs.get(link.outputField);
        const before = classOf(current?.outputSpec, link.outputField);
        if (!item) problems.push(`${where} links to the output "${link.outputField}", which the new executable does not have`);
        else if (before && before !== item.class)
          problems.push(`${where} links to the output "${link.outputField}", now of class ${item.class}, not ${before}`);
      } else if ('inputField' in link && inputs && !inputs.has(link.inputField)) {
        problems.push(`${where} links to the input "${link.inputField}", which the new executable does not have`);
      }
    }
  }
  return problems;
}

/** Where a stage's outputs go: its folder (run's stageFolders first) relative to the output folder, or absolute. */
export function stageFolder(base: string, folder: string | null | undefined): string {
  if (!folder) return base;
  const joined = folder.startsWith('/') ? folder : `${base === '/' ? '' : base}/${folder}`;
  const normalized = joined.replace(/\/+/g, '/').replace(/\/$/, '');
  return normalized || '/';
}

/**
 * An analysis's output from its stage jobs' outputs (of those done): the workflow's `outputs` when it
 * has some (each from its `outputSource` stage link), else every output as `<stageId>.<field>`.
 */
export function analysisOutput(content: WorkflowContent, stageOutputs: ReadonlyMap<string, Record<string, unknown> | null>): Record<string, unknown> {
  const output: Record<string, unknown> = {};
  if (content.outputs) {
    for (const item of content.outputs) {
      const link = stageLinkOf(item.outputSource);
      if (!link || !('outputField' in link)) continue;
      const value = stageOutputs.get(link.stage)?.[link.outputField];
      if (value === undefined) continue;
      output[item.name] = link.index !== undefined && Array.isArray(value) ? value[link.index] : value;
    }
    return output;
  }
  for (const stage of content.stages) {
    for (const [field, value] of Object.entries(stageOutputs.get(stage.id) ?? {})) output[`${stage.id}.${field}`] = value;
  }
  return output;
}
