import type { IoSpecItem } from '@panx/contract';
import { invalidInput } from '../../errors.js';
import { findCycle, stageLinkOf, type WorkflowContent, type WorkflowStage, workflowInputLinkOf } from './workflow-model.js';

/** What a run needs to know of each stage's executable. */
export interface StageSpecs {
  inputSpec: IoSpecItem[] | null;
  outputSpec: IoSpecItem[] | null;
}

export interface PlanRequest {
  content: WorkflowContent;
  specs: ReadonlyMap<string, StageSpecs>;
  /** The run's input: `<stageId>.<field>` (or a workflow input's name) → value. */
  input: Record<string, unknown>;
  /** The job each stage will run as (known before the jobs exist). */
  jobIds: ReadonlyMap<string, string>;
}

export interface StagePlan {
  stage: WorkflowStage;
  jobId: string;
  /** The job's input: bound and given values, stage output links turned into job-based references. */
  input: Record<string, unknown>;
  /** Stages whose jobs this one waits for. */
  after: string[];
}

export interface Plan {
  stages: StagePlan[];
  /** Every stage's input keyed `<stageId>.<field>`, as the analysis shows it. */
  originalInput: Record<string, unknown>;
}

/**
 * Turns a workflow and a run's input into one job input per stage (pure): given values override bound
 * ones; `{stage, outputField}` links become job-based references to the producing stage's job;
 * `{stage, inputField}` links take that field's value (itself resolved); `workflowInputField` links
 * take the workflow input. Throws InvalidInput naming `<stageId>.<field>` for unknown stages or
 * fields, missing required inputs and cycles.
 */
export function planStages(request: PlanRequest): Plan {
  const { content, specs, jobIds } = request;
  const stagesById = new Map(content.stages.map((stage) => [stage.id, stage]));
  const given = new Map<string, Record<string, unknown>>();
  const workflowGiven: Record<string, unknown> = {};
  const workflowInputs = new Map((content.inputs ?? []).map((item) => [item.name, item]));

  for (const [key, value] of Object.entries(request.input)) {
    const dot = key.indexOf('.');
    if (dot < 0) {
      if (workflowInputs.has(key)) {
        workflowGiven[key] = value;
        continue;
      }
      throw invalidInput(
        `input "${key}" names no stage input: a workflow's inputs are given as <stageId>.<field> (stages: ${content.stages.map((stage) => stage.id).join(', ') || 'none'})`,
        { field: key },
      );
    }
    const stageId = key.slice(0, dot);
    const field = key.slice(dot + 1);
    const stage = stagesById.get(stageId);
    if (!stage) {
      throw invalidInput(`input "${key}": the workflow has no stage ${stageId} (its stages: ${content.stages.map((s) => s.id).join(', ') || 'none'})`, {
        field: key,
      });
    }
    const spec = specs.get(stageId)?.inputSpec;
    if (spec && !spec.some((item) => item.name === field)) {
      throw invalidInput(`input "${key}": ${stageId} has no input "${field}" (its inputs: ${spec.map((item) => item.name).join(', ') || 'none'})`, {
        field: key,
      });
    }
    given.set(stageId, { ...given.get(stageId), [field]: value });
  }
  for (const item of content.inputs ?? []) {
    if (workflowGiven[item.name] === undefined && item.default === undefined && !item.optional) {
      throw invalidInput(`input "${item.name}" (class ${item.class}) is required but was not given`, { field: item.name });
    }
  }

  const effective = (stage: WorkflowStage): Record<string, unknown> => {
    const merged: Record<string, unknown> = { ...stage.input };
    for (const [field, value] of Object.entries(given.get(stage.id) ?? {})) {
      if (value === null) delete merged[field];
      else merged[field] = value;
    }
    return merged;
  };
  const after = new Map<string, Set<string>>();
  const resolved = new Map<string, unknown>();

  const resolveElement = (stageId: string, field: string, element: unknown, trail: readonly string[]): unknown => {
    const where = `${stageId}.${field}`;
    const link = stageLinkOf(element);
    if (link) {
      const source = stagesById.get(link.stage);
      if (!source) throw invalidInput(`input "${where}" links to ${link.stage}, which is not a stage of this workflow`, { field: where });
      if ('outputField' in link) {
        if (link.stage === stageId) throw invalidInput(`input "${where}" links to an output of its own stage`, { field: where });
        const outputs = specs.get(link.stage)?.outputSpec;
        if (outputs && !outputs.some((item) => item.name === link.outputField)) {
          throw invalidInput(`input "${where}" links to the output "${link.outputField}" of ${link.stage}, which has no such output`, { field: where });
        }
        after.set(stageId, new Set([...(after.get(stageId) ?? []), link.stage]));
        const job = jobIds.get(link.stage) as string;
        return { $dnanexus_link: link.index === undefined ? { job, field: link.outputField } : { job, field: link.outputField, index: link.index } };
      }
      return resolveField(source, link.inputField, [...trail, where]);
    }
    const workflowInput = workflowInputLinkOf(element);
    if (workflowInput !== undefined) {
      const item = workflowInputs.get(workflowInput);
      if (!item) throw invalidInput(`input "${where}" links to the workflow input "${workflowInput}", which the workflow does not have`, { field: where });
      return workflowGiven[workflowInput] ?? item.default;
    }
    return element;
  };

  const resolveField = (stage: WorkflowStage, field: string, trail: readonly string[]): unknown => {
    const key = `${stage.id}.${field}`;
    if (trail.includes(key)) throw invalidInput(`input "${key}" links to itself through ${trail.join(' → ')}`, { field: key });
    if (resolved.has(key)) return resolved.get(key);
    const value = effective(stage)[field];
    let result: unknown;
    if (value === undefined) result = undefined;
    else if (Array.isArray(value)) {
      result = value.map((element) => resolveElement(stage.id, field, element, trail)).filter((element) => element !== undefined);
    } else result = resolveElement(stage.id, field, value, trail);
    resolved.set(key, result);
    return result;
  };

  const plans: StagePlan[] = [];
  const originalInput: Record<string, unknown> = {};
  for (const stage of content.stages) {
    const input: Record<string, unknown> = {};
    for (const field of Object.keys(effective(stage))) {
      const value = resolveField(stage, field, []);
      if (value !== undefined) input[field] = value;
    }
    for (const item of specs.get(stage.id)?.inputSpec ?? []) {
      if (input[item.name] === undefined && item.default === undefined && !item.optional) {
        const where = `${stage.id}.${item.name}`;
        throw invalidInput(`input "${where}" (class ${item.class}) is required but was not given${stage.name ? ` (stage "${stage.name}")` : ''}`, {
          field: where,
        });
      }
    }
    for (const [field, value] of Object.entries(input)) originalInput[`${stage.id}.${field}`] = value;
    plans.push({ stage, jobId: jobIds.get(stage.id) as string, input, after: [...(after.get(stage.id) ?? [])] });
  }
  const cycle = findCycle(after);
  if (cycle) throw invalidInput(`the stages wait for each other in a cycle: ${cycle.join(' → ')}`, { field: cycle[0] });
  return { stages: plans, originalInput };
}
