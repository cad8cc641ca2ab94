import { type StageModel, type SystemRequirements, stageLinkOf, stageLinksIn, type WorkflowModel } from './model';

/**
 * Edits of a workflow as steps, each one API call under `editVersion` (pure). An edit the user makes
 * (remove a stage that others link to, say) may take several steps; its inverse is computed from the
 * workflow it was applied to, so that undo and redo are edits like any other.
 */
export type Step =
  | { kind: 'addStage'; stage: StageModel }
  | { kind: 'removeStage'; stageId: string }
  | { kind: 'moveStage'; stageId: string; newIndex: number }
  | {
      kind: 'updateStage';
      stageId: string;
      name?: string | null;
      folder?: string | null;
      systemRequirements?: SystemRequirements;
      /** Merged into the bound inputs; null unbinds a field. */
      input?: Record<string, unknown>;
    }
  | { kind: 'rename'; name: string; title: string | null };

export interface Edit {
  label: string;
  steps: Step[];
}

/** What stands in the way of a step on this workflow, or undefined when it applies. */
export function stepProblem(model: WorkflowModel, step: Step): string | undefined {
  const find = (id: string) => model.stages.find((stage) => stage.id === id);
  switch (step.kind) {
    case 'addStage': {
      if (find(step.stage.id)) return `the stage ${step.stage.id} already exists`;
      const missing = stageLinksIn(step.stage.input).find((link) => !find(link.stage));
      return missing ? `the input ${missing.field} links to ${missing.stage}, which is no longer a stage` : undefined;
    }
    case 'removeStage': {
      if (!find(step.stageId)) return `the stage ${step.stageId} no longer exists`;
      const linking = model.stages.filter((stage) => stage.id !== step.stageId && stageLinksIn(stage.input).some((link) => link.stage === step.stageId));
      return linking.length ? `${linking.map((stage) => stage.name || stage.id).join(', ')} link${linking.length === 1 ? 's' : ''} to it` : undefined;
    }
    case 'moveStage':
      if (!find(step.stageId)) return `the stage ${step.stageId} no longer exists`;
      return step.newIndex >= model.stages.length ? `there are only ${model.stages.length} stages` : undefined;
    case 'updateStage': {
      if (!find(step.stageId)) return `the stage ${step.stageId} no longer exists`;
      const missing = stageLinksIn(Object.fromEntries(Object.entries(step.input ?? {}).filter(([, value]) => value !== null))).find(
        (link) => !find(link.stage),
      );
      return missing ? `the input ${missing.field} would link to ${missing.stage}, which is no longer a stage` : undefined;
    }
    case 'rename':
      return step.name.trim() ? undefined : 'a workflow needs a name';
  }
}

/** The workflow after the step (the editVersion is the server's business). Throws when the step does not apply. */
export function applyStep(model: WorkflowModel, step: Step): WorkflowModel {
  const problem = stepProblem(model, step);
  if (problem) throw new Error(problem);
  const stages = model.stages.map((stage) => ({ ...stage, input: { ...stage.input } }));
  switch (step.kind) {
    case 'addStage':
      return { ...model, stages: [...stages, { ...step.stage, input: { ...step.stage.input } }] };
    case 'removeStage':
      return { ...model, stages: stages.filter((stage) => stage.id !== step.stageId) };
    case 'moveStage': {
      const index = stages.findIndex((stage) => stage.id === step.stageId);
      const [moved] = stages.splice(index, 1);
      if (moved) stages.splice(step.newIndex, 0, moved);
      return { ...model, stages };
    }
    case 'updateStage': {
      const stage = stages.find((candidate) => candidate.id === step.stageId);
      if (stage) {
        if (step.name !== undefined) stage.name = step.name;
        if (step.folder !== undefined) stage.folder = step.folder;
        if (step.systemRequirements !== undefined) stage.systemRequirements = step.systemRequirements;
        for (const [field, value] of Object.entries(step.input ?? {})) {
          if (value === null) delete stage.input[field];
          else stage.input[field] = value;
        }
      }
      return { ...model, stages };
    }
    case 'rename':
      return { ...model, stages, name: step.name, title: step.title };
  }
}

export function applySteps(model: WorkflowModel, steps: readonly Step[]): WorkflowModel {
  return steps.reduce(applyStep, model);
}

/** Problems of the steps one after the other (empty when all apply). */
export function stepsProblems(model: WorkflowModel, steps: readonly Step[]): string[] {
  const problems: string[] = [];
  let current = model;
  for (const step of steps) {
    const problem = stepProblem(current, step);
    if (problem) {
      problems.push(problem);
      break;
    }
    current = applyStep(current, step);
  }
  return problems;
}

/** The steps that undo `step` on `model` (the workflow before it). */
function inverseStep(model: WorkflowModel, step: Step): Step[] {
  const index = (id: string) => model.stages.findIndex((stage) => stage.id === id);
  switch (step.kind) {
    case 'addStage':
      return [{ kind: 'removeStage', stageId: step.stage.id }];
    case 'removeStage': {
      const at = index(step.stageId);
      const stage = model.stages[at];
      if (!stage) throw new Error(`the stage ${step.stageId} no longer exists`);
      const add: Step = { kind: 'addStage', stage: { ...stage, input: { ...stage.input } } };
      return at === model.stages.length - 1 ? [add] : [add, { kind: 'moveStage', stageId: step.stageId, newIndex: at }];
    }
    case 'moveStage':
      return [{ kind: 'moveStage', stageId: step.stageId, newIndex: index(step.stageId) }];
    case 'updateStage': {
      const stage = model.stages[index(step.stageId)];
      if (!stage) throw new Error(`the stage ${step.stageId} no longer exists`);
      const back: Step = { kind: 'updateStage', stageId: step.stageId };
      if (step.name !== undefined) back.name = stage.name;
      if (step.folder !== undefined) back.folder = stage.folder;
      if (step.systemRequirements !== undefined) back.systemRequirements = stage.systemRequirements;
      if (step.input) back.input = Object.fromEntries(Object.keys(step.input).map((field) => [field, stage.input[field] ?? null]));
      return [back];
    }
    case 'rename':
      return [{ kind: 'rename', name: model.name, title: model.title }];
  }
}

/** The steps that undo `steps` applied to `model`. */
export function inverseOf(model: WorkflowModel, steps: readonly Step[]): Step[] {
  const inverses: Step[][] = [];
  let current = model;
  for (const step of steps) {
    inverses.push(inverseStep(current, step));
    current = applyStep(current, step);
  }
  return inverses.reverse().flat();
}

// ---- the edits the editor offers ----

export function addStageEdit(stage: StageModel, title: string): Edit {
  return { label: `Add ${title}`, steps: [{ kind: 'addStage', stage }] };
}

/** Remove a stage: first unbind what links to it in other stages (the server refuses otherwise). */
export function removeStageEdit(model: WorkflowModel, stageId: string): Edit {
  const stage = model.stages.find((candidate) => candidate.id === stageId);
  const steps: Step[] = [];
  for (const other of model.stages) {
    if (other.id === stageId) continue;
    const input: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(other.input)) {
      if (Array.isArray(value)) {
        const kept = value.filter((element) => stageLinkOf(element)?.stage !== stageId);
        if (kept.length !== value.length) input[field] = kept.length ? kept : null;
      } else if (stageLinkOf(value)?.stage === stageId) {
        input[field] = null;
      }
    }
    if (Object.keys(input).length) steps.push({ kind: 'updateStage', stageId: other.id, input });
  }
  steps.push({ kind: 'removeStage', stageId });
  return { label: `Remove ${stage?.name || stageId}`, steps };
}

export function moveStageEdit(model: WorkflowModel, stageId: string, newIndex: number): Edit | undefined {
  const from = model.stages.findIndex((stage) => stage.id === stageId);
  if (from < 0 || newIndex < 0 || newIndex >= model.stages.length || newIndex === from) return undefined;
  return { label: `Move ${model.stages[from]?.name || stageId} to position ${newIndex + 1}`, steps: [{ kind: 'moveStage', stageId, newIndex }] };
}

/** Bind (a value or link) or, with null, unbind one input. */
export function setInputEdit(stageId: string, field: string, value: unknown, label?: string): Edit {
  return { label: label ?? (value === null ? `Unbind ${field}` : `Set ${field}`), steps: [{ kind: 'updateStage', stageId, input: { [field]: value } }] };
}

export function stageSettingsEdit(
  model: WorkflowModel,
  stageId: string,
  change: { name?: string | null; folder?: string | null; instanceType?: string | null },
): Edit | undefined {
  const stage = model.stages.find((candidate) => candidate.id === stageId);
  if (!stage) return undefined;
  const step: Extract<Step, { kind: 'updateStage' }> = { kind: 'updateStage', stageId };
  const labels: string[] = [];
  const clean = (text: string | null | undefined) => (text?.trim() ? text.trim() : null);
  if (change.name !== undefined && clean(change.name) !== stage.name) {
    step.name = clean(change.name);
    labels.push(step.name ? `Rename stage to ${step.name}` : 'Clear the stage name');
  }
  if (change.folder !== undefined && clean(change.folder) !== stage.folder) {
    step.folder = clean(change.folder);
    labels.push(step.folder ? `Set folder ${step.folder}` : 'Clear the folder');
  }
  if (change.instanceType !== undefined) {
    const type = clean(change.instanceType);
    const current = stage.systemRequirements['*']?.instanceType ?? null;
    if (type !== current) {
      const rest = Object.fromEntries(Object.entries(stage.systemRequirements).filter(([entry]) => entry !== '*'));
      step.systemRequirements = type ? { ...rest, '*': { instanceType: type } } : rest;
      labels.push(type ? `Instance type ${type}` : 'Default instance type');
    }
  }
  return labels.length ? { label: labels.join(', '), steps: [step] } : undefined;
}

export function renameEdit(model: WorkflowModel, name: string): Edit | undefined {
  const clean = name.trim();
  if (!clean || (clean === model.name && (model.title === null || model.title === clean))) return undefined;
  return { label: `Rename workflow to ${clean}`, steps: [{ kind: 'rename', name: clean, title: clean }] };
}

// ---- steps as API calls ----

export type StepRequest =
  | { route: 'workflow-xxxx/addStage'; body: Record<string, unknown> & { editVersion: number; executable: string } }
  | { route: 'workflow-xxxx/removeStage'; body: { editVersion: number; stage: string } }
  | { route: 'workflow-xxxx/moveStage'; body: { editVersion: number; stage: string; newIndex: number } }
  | { route: 'workflow-xxxx/update'; body: Record<string, unknown> & { editVersion: number } };

export function requestOf(step: Step, editVersion: number): StepRequest {
  switch (step.kind) {
    case 'addStage': {
      const { stage } = step;
      const body: StepRequest['body'] & { executable: string } = { editVersion, id: stage.id, executable: stage.executable, input: stage.input };
      if (stage.name) body.name = stage.name;
      if (stage.folder) body.folder = stage.folder;
      if (Object.keys(stage.systemRequirements).length) body.systemRequirements = stage.systemRequirements;
      if (Object.keys(stage.executionPolicy).length) body.executionPolicy = stage.executionPolicy;
      return { route: 'workflow-xxxx/addStage', body };
    }
    case 'removeStage':
      return { route: 'workflow-xxxx/removeStage', body: { editVersion, stage: step.stageId } };
    case 'moveStage':
      return { route: 'workflow-xxxx/moveStage', body: { editVersion, stage: step.stageId, newIndex: step.newIndex } };
    case 'updateStage': {
      const { kind: _kind, stageId, ...change } = step;
      return { route: 'workflow-xxxx/update', body: { editVersion, stages: { [stageId]: change } } };
    }
    case 'rename':
      return { route: 'workflow-xxxx/update', body: { editVersion, name: step.name, title: step.title } };
  }
}
