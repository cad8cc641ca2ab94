import type { AnalysisState } from '@panx/contract';
import { parseJson } from '../../lib/json.js';
import type { JobRow } from '../jobs/jobs.repository.js';
import type { WorkflowContent } from './workflow-model.js';

/** A stage of an analysis and the job it runs as. */
export interface AnalysisStage {
  id: string;
  job: string;
  name: string | null;
  executable: string;
  folder: string;
}

/** What an analysis row keeps in its `spec` column. */
export interface AnalysisSpec {
  /** The workflow as it was run. */
  workflow: { id: string; project: string; name: string; content: WorkflowContent };
  stages: AnalysisStage[];
  runInput: Record<string, unknown>;
  originalInput: Record<string, unknown>;
  stageFolders: Record<string, string>;
  rerunStages: string[];
  delayWorkspaceDestruction: boolean;
  dependsOn: string[];
  ignoreReuse: boolean | string[];
  /** Who asked for the analysis to be terminated. */
  terminatedBy?: string;
}

/** An analysis's state change, as `stateTransitions` lists them. */
export interface AnalysisTransition {
  newState: AnalysisState;
  setAt: number;
}

export function analysisSpecOf(row: JobRow): AnalysisSpec {
  return parseJson<AnalysisSpec>(row.spec, {} as AnalysisSpec);
}
