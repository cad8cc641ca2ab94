import type { AnalysisState } from '@panx/contract';

const TERMINAL = new Set(['done', 'failed', 'terminated']);

/**
 * An analysis's state from its stage jobs' states (reference §4.6), pure:
 * - terminate was asked for: `terminating` until every stage job has finished, then `terminated`
 *   (unless everything was done already);
 * - every stage done: `done`;
 * - a stage failed or was terminated while others still run: `partially_failed`;
 * - everything finished and something failed: `failed` (only terminations: `terminated`);
 * - otherwise `in_progress`.
 */
export function analysisState(stageStates: readonly string[], terminateRequested: boolean): AnalysisState {
  const finished = stageStates.every((state) => TERMINAL.has(state));
  const allDone = stageStates.every((state) => state === 'done');
  if (allDone) return 'done';
  if (terminateRequested) return finished ? 'terminated' : 'terminating';
  const failed = stageStates.some((state) => state === 'failed');
  const terminated = stageStates.some((state) => state === 'terminated');
  if (finished) return failed ? 'failed' : 'terminated';
  if (failed || terminated) return 'partially_failed';
  return 'in_progress';
}

export function isAnalysisFinished(state: string): boolean {
  return state === 'done' || state === 'failed' || state === 'terminated';
}
