import { isApiError } from '@panx/client';
import { type Step, stepsProblems } from './edits';
import { describeValue, type ExecutableInfo, stageTitle, type WorkflowModel } from './model';

/**
 * Optimistic locking (pure): every edit carries the editVersion it was based on; when the server
 * answers that it is out of date, the editor keeps the user's steps, shows what the other version
 * changed, and offers to re-apply the steps on top of it when they still apply.
 */

/** Whether an API error says the workflow was edited meanwhile (the edit may be re-applied). */
export function isEditConflict(error: unknown): boolean {
  return isApiError(error, 'InvalidState') && /editVersion \d+ .*out of date/i.test(error.message);
}

/** Whether the workflow can no longer be edited at all (closed meanwhile). */
export function isClosedMeanwhile(error: unknown): boolean {
  return isApiError(error, 'InvalidState') && /closed/i.test(error.message) && !isEditConflict(error);
}

export interface Conflict {
  /** What the user was doing (the edit's label). */
  label: string;
  /** The steps not yet applied: the user's edit, kept until it is re-applied or discarded. */
  pending: Step[];
  /** Where the edit came from: a new edit, an undo or a redo. */
  origin: 'edit' | 'undo' | 'redo';
  /** The workflow the user was looking at, and the server's latest version. */
  base: WorkflowModel;
  latest: WorkflowModel;
  message: string;
}

/** What the other version changed, as sentences (stages added, removed, renamed, moved, inputs, settings). */
export function describeChanges(base: WorkflowModel, latest: WorkflowModel, infos: ReadonlyMap<string, ExecutableInfo> = new Map()): string[] {
  const changes: string[] = [];
  const title = (stage: WorkflowModel['stages'][number]) => stageTitle(stage, infos.get(stage.executable));
  if (base.name !== latest.name) changes.push(`Workflow renamed from "${base.name}" to "${latest.name}"`);
  const before = new Map(base.stages.map((stage) => [stage.id, stage]));
  const after = new Map(latest.stages.map((stage) => [stage.id, stage]));
  for (const stage of latest.stages) if (!before.has(stage.id)) changes.push(`Stage "${title(stage)}" added`);
  for (const stage of base.stages) if (!after.has(stage.id)) changes.push(`Stage "${title(stage)}" removed`);
  const name = (id: string) => {
    const stage = after.get(id) ?? before.get(id);
    return stage ? title(stage) : id;
  };
  for (const stage of latest.stages) {
    const old = before.get(stage.id);
    if (!old) continue;
    if (old.name !== stage.name) changes.push(`Stage "${title(old)}" renamed to "${title(stage)}"`);
    if (old.folder !== stage.folder) changes.push(`Stage "${title(stage)}": folder ${old.folder ?? '(default)'} → ${stage.folder ?? '(default)'}`);
    if (JSON.stringify(old.systemRequirements) !== JSON.stringify(stage.systemRequirements)) changes.push(`Stage "${title(stage)}": instance type changed`);
    for (const field of new Set([...Object.keys(old.input), ...Object.keys(stage.input)])) {
      const was = old.input[field];
      const now = stage.input[field];
      if (JSON.stringify(was) === JSON.stringify(now)) continue;
      if (now === undefined) changes.push(`Stage "${title(stage)}": ${field} unbound`);
      else changes.push(`Stage "${title(stage)}": ${field} = ${describeValue(now, name)}`);
    }
  }
  const commonBefore = base.stages.filter((stage) => after.has(stage.id)).map((stage) => stage.id);
  const commonAfter = latest.stages.filter((stage) => before.has(stage.id)).map((stage) => stage.id);
  if (commonBefore.join() !== commonAfter.join()) changes.push('Stages reordered');
  if (!changes.length && base.editVersion !== latest.editVersion) changes.push('Settings outside the stages changed');
  return changes;
}

export type Rebase = { ok: true; steps: Step[] } | { ok: false; problems: string[] };

/** Whether the pending steps still apply to the latest version (then they are sent with its editVersion). */
export function rebase(latest: WorkflowModel, pending: readonly Step[]): Rebase {
  const problems = stepsProblems(latest, pending);
  return problems.length ? { ok: false, problems } : { ok: true, steps: [...pending] };
}

/** Where a conflicting edit is kept for this tab, so that a reload does not lose it. */
export const pendingEditKey = (workflowId: string) => `panx.workflowEdit.${workflowId}`;

const STEP_KINDS = new Set(['addStage', 'removeStage', 'moveStage', 'updateStage', 'rename']);

export function serializeConflict(conflict: Conflict): string {
  const { label, pending, origin, base, message } = conflict;
  return JSON.stringify({ label, pending, origin, base, message });
}

/** A kept conflict against the latest version, or undefined when the text is not one (then it is dropped). */
export function restoreConflict(text: string | null, latest: WorkflowModel): Conflict | undefined {
  if (!text) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { label, pending, origin, base, message } = value as Record<string, unknown>;
  const isStep = (step: unknown) => typeof step === 'object' && step !== null && STEP_KINDS.has(String((step as { kind?: unknown }).kind));
  if (typeof label !== 'string' || !Array.isArray(pending) || !pending.length || !pending.every(isStep)) return undefined;
  if (origin !== 'edit' && origin !== 'undo' && origin !== 'redo') return undefined;
  if (typeof base !== 'object' || base === null || (base as WorkflowModel).id !== latest.id || !Array.isArray((base as WorkflowModel).stages)) return undefined;
  return { label, pending: pending as Step[], origin, base: base as WorkflowModel, latest, message: typeof message === 'string' ? message : '' };
}
