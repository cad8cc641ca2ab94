import type { ExecutionPolicy, JobState, SystemRequirements } from '@panx/contract';
import { parseJson } from '../../lib/json.js';
import type { StreamOffsets } from '../../scheduler/executors/executor.js';
import { priceOf } from './instance-types.js';
import type { JobRow } from './jobs.repository.js';

/** What a job keeps in its `spec` column: set at creation, never changed afterwards. */
export interface JobSpec {
  /** The input as given (before defaults). */
  runInput: Record<string, unknown>;
  /** runInput with the spec's defaults, references still in it. */
  originalInput: Record<string, unknown>;
  dependsOn: string[];
  /** The systemRequirements given to run or job/new. */
  systemRequirements: SystemRequirements;
  executionPolicy: ExecutionPolicy;
  /** ms a try may run. */
  timeoutMs: number;
  delayWorkspaceDestruction: boolean;
  ignoreReuse: boolean;
  debug?: { debugOn?: string[] };
  allowSSH?: string[];
  /** Where each input object is copied into the workspace from (object id → container). */
  inputSources: Record<string, string>;
  /** The container the executable's own objects (applet, bundled resources) come from. */
  executableContainer: string | null;
  /** The app's resources container (DX_RESOURCES_ID). */
  resources: string | null;
  /** Level the job's token gets in the launch project (access.project of the executable). */
  projectAccess: string;
  /** Level in every other project of the launcher (access.allProjects), if any. */
  allProjectsAccess: string | null;
  outputReusedFrom?: string;
  rank?: number;
  detach?: boolean;
  /** Set on the jobs of an analysis (stage jobs and, inherited, their subjobs): the analysis and the stage. */
  analysis?: { id: string; stage: string };
}

export interface StateTransition {
  newState: JobState;
  setAt: number;
}

/** A finished try, as `describe` with `try` shows it. */
export interface JobTry {
  try: number;
  state: JobState;
  created: number;
  startedRunning: number | null;
  stoppedRunning: number | null;
  failureReason: string | null;
  failureMessage: string | null;
  stateTransitions: StateTransition[];
  instanceType: string;
  price: number;
}

/** What the runner reported for the current try (applied once its process has exited). */
export interface Outcome {
  try: number;
  exitCode: number | null;
  signal: string | null;
  output?: Record<string, unknown> | null;
  error?: { type: string; message: string } | null;
  reported: number;
}

export const PRIORITY_RANK: Record<string, number> = { low: 0, normal: 1, high: 2 };

export function jobSpec(row: JobRow): JobSpec {
  return parseJson<JobSpec>(row.spec, {} as JobSpec);
}

export function transitionsOf(row: JobRow): StateTransition[] {
  return parseJson<StateTransition[]>(row.stateTransitions, []);
}

export function triesOf(row: JobRow): JobTry[] {
  return parseJson<JobTry[]>(row.tries, []);
}

export function outcomeOf(row: JobRow): Outcome | null {
  return parseJson<Outcome | null>(row.outcome, null);
}

export function logOffsetsOf(row: JobRow): Record<string, StreamOffsets> {
  return parseJson<Record<string, StreamOffsets>>(row.logOffsets, {});
}

/** The job's own price so far: finished running periods, plus the current one while it runs. */
export function ownPrice(row: Pick<JobRow, 'accruedPrice' | 'state' | 'startedRunning' | 'pricePerHour'>, now: number): number {
  const running = (row.state === 'running' || row.state === 'terminating' || row.state === 'unresponsive') && row.startedRunning !== null;
  return row.accruedPrice + (running ? priceOf(now - (row.startedRunning ?? now), row.pricePerHour) : 0);
}

/** Each job's price including every job below it in the tree. */
export function treePrices(rows: readonly JobRow[], now: number): Map<string, number> {
  const totals = new Map<string, number>();
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const row of rows) {
    const own = ownPrice(row, now);
    for (let node: JobRow | undefined = row; node; node = node.parentJob ? byId.get(node.parentJob) : undefined) {
      totals.set(node.id, (totals.get(node.id) ?? 0) + own);
    }
  }
  return totals;
}

/** ms in a timeout policy entry (`{days, hours, minutes}`). */
export function durationMs(duration: { days?: number; hours?: number; minutes?: number } | undefined): number | undefined {
  if (!duration) return undefined;
  const ms = ((duration.days ?? 0) * 24 * 60 + (duration.hours ?? 0) * 60 + (duration.minutes ?? 0)) * 60_000;
  return ms > 0 ? ms : undefined;
}
