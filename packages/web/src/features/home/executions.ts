/** Pure helpers of the home page's "Running executions" (SPEC §3 Execution, §4 job states). */
import { executionPagePath, executionStateColor } from '../monitor/execution-model';

/** States of an execution that has not ended (jobs, and analyses' `in_progress`). */
export const ACTIVE_EXECUTION_STATES = [
  'idle',
  'waiting_on_input',
  'runnable',
  'running',
  'waiting_on_output',
  'in_progress',
  'terminating',
  'restartable',
  'debug_hold',
  'unresponsive',
] as const;

export interface ExecutionSummary {
  id: string;
  name: string;
  state: string;
  project: string | undefined;
  created: number | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One result of `system/findExecutions` with `describe` → a summary (tolerating missing fields). */
export function toExecutionSummary(result: { id: string; describe?: unknown }): ExecutionSummary {
  const describe = isRecord(result.describe) ? result.describe : {};
  return {
    id: result.id,
    name: typeof describe.name === 'string' && describe.name ? describe.name : result.id,
    state: typeof describe.state === 'string' ? describe.state : 'unknown',
    project: typeof describe.project === 'string' ? describe.project : undefined,
    created: typeof describe.created === 'number' ? describe.created : undefined,
  };
}

/** The execution's details page (SPEC §2), or the project-less one without a project. */
export function executionPath(execution: ExecutionSummary): string {
  return executionPagePath(execution);
}

/** Badge colour of a state: the monitor pages' colours, so that a state looks the same everywhere. */
export function stateColor(state: string): string {
  return executionStateColor(state);
}

/** `waiting_on_input` → `waiting on input`. */
export function stateLabel(state: string): string {
  return state.replace(/_/g, ' ');
}
