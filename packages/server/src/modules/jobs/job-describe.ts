import { DEFAULT_CURRENCY, type DescribeOptions } from '@panx/contract';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { parseJson } from '../../lib/json.js';
import { jobSpec, transitionsOf, triesOf } from './job-model.js';
import type { JobRow } from './jobs.repository.js';

/** Every field of reference §4.5, returned unless `fields` says otherwise. */
export const JOB_DEFAULT_FIELDS = [
  'id',
  'class',
  'name',
  'executableName',
  'project',
  'billTo',
  'workspace',
  'folder',
  'rootExecution',
  'parentJob',
  'originJob',
  'parentAnalysis',
  'analysis',
  'stage',
  'state',
  'stateTransitions',
  'function',
  'applet',
  'app',
  'launchedBy',
  'created',
  'modified',
  'startedRunning',
  'stoppedRunning',
  'input',
  'runInput',
  'originalInput',
  'output',
  'instanceType',
  'priority',
  'tags',
  'properties',
  'details',
  'dependsOn',
  'totalPrice',
  'currency',
  'region',
  'try',
  'tryCreated',
  'isFree',
  'failureReason',
  'failureMessage',
  'failureFrom',
  'systemRequirements',
  'executionPolicy',
  'timeout',
  'costLimit',
  'delayWorkspaceDestruction',
  'ignoreReuse',
  'outputReusedFrom',
  'resources',
  'projectCache',
  'sshHostKey',
  'allowSSH',
  'debug',
  'rank',
  'detachedFrom',
  'singleContext',
  'treeTurnaroundTime',
] as const;

export function jobFieldSelector(options: DescribeOptions | boolean | undefined): (field: string) => boolean {
  return fieldSelector(options, JOB_DEFAULT_FIELDS);
}

export interface JobDescribeExtras {
  /** The job's price with everything below it in its tree. */
  totalPrice: number;
  /** Describe this earlier try instead of the current one. */
  tryNumber?: number;
}

export function describeJob(want: (field: string) => boolean, row: JobRow, extras: JobDescribeExtras): { id: string } & Record<string, unknown> {
  const spec = jobSpec(row);
  const earlier = extras.tryNumber !== undefined && extras.tryNumber !== row.try ? triesOf(row).find((t) => t.try === extras.tryNumber) : undefined;
  const isApp = row.executable.startsWith('app-');
  const transitions = earlier?.stateTransitions ?? transitionsOf(row);
  const fields: Record<string, () => unknown> = {
    id: () => row.id,
    class: () => row.class,
    name: () => row.name,
    executableName: () => row.executableName,
    project: () => row.project,
    billTo: () => row.billTo,
    workspace: () => row.workspace,
    folder: () => row.folder,
    // A stage job is the root of its own job tree for the engine; its analysis is the root execution.
    rootExecution: () => spec.analysis?.id ?? row.rootExecution,
    parentJob: () => row.parentJob,
    originJob: () => row.originJob,
    parentAnalysis: () => (spec.analysis && row.parentJob === null ? spec.analysis.id : null),
    analysis: () => spec.analysis?.id ?? null,
    stage: () => (spec.analysis && row.parentJob === null ? spec.analysis.stage : null),
    state: () => earlier?.state ?? row.state,
    stateTransitions: () => transitions,
    function: () => row.function,
    launchedBy: () => row.launchedBy,
    created: () => row.created,
    modified: () => row.modified,
    startedRunning: () => (earlier ? earlier.startedRunning : row.startedRunning),
    stoppedRunning: () => (earlier ? earlier.stoppedRunning : row.stoppedRunning),
    input: () => parseJson<Record<string, unknown>>(row.input, {}),
    runInput: () => spec.runInput ?? {},
    originalInput: () => spec.originalInput ?? {},
    output: () => (earlier ? null : parseJson<Record<string, unknown> | null>(row.output, null)),
    instanceType: () => earlier?.instanceType ?? row.instanceType,
    priority: () => row.priority,
    tags: () => parseJson<string[]>(row.tags, []),
    properties: () => parseJson<Record<string, string>>(row.properties, {}),
    details: () => parseJson<unknown>(row.details, {}),
    dependsOn: () => spec.dependsOn ?? [],
    totalPrice: () => round(earlier ? earlier.price : extras.totalPrice),
    currency: () => DEFAULT_CURRENCY,
    region: () => row.region,
    try: () => earlier?.try ?? row.try,
    tryCreated: () => earlier?.created ?? transitions[0]?.setAt ?? row.created,
    isFree: () => false,
    failureReason: () => (earlier ? earlier.failureReason : row.failureReason),
    failureMessage: () => (earlier ? earlier.failureMessage : row.failureMessage),
    failureFrom: () => (earlier ? null : parseJson<unknown>(row.failureFrom, null)),
    systemRequirements: () => spec.systemRequirements ?? {},
    executionPolicy: () => spec.executionPolicy ?? {},
    timeout: () => spec.timeoutMs,
    costLimit: () => row.costLimit,
    delayWorkspaceDestruction: () => spec.delayWorkspaceDestruction ?? false,
    ignoreReuse: () => spec.ignoreReuse ?? false,
    outputReusedFrom: () => spec.outputReusedFrom ?? null,
    resources: () => spec.resources,
    projectCache: () => null,
    sshHostKey: () => null,
    allowSSH: () => spec.allowSSH ?? [],
    debug: () => spec.debug ?? {},
    rank: () => spec.rank ?? 0,
    detachedFrom: () => null,
    singleContext: () => false,
    treeTurnaroundTime: () => (row.stoppedRunning && row.parentJob === null ? row.stoppedRunning - row.created : null),
  };
  if (isApp) fields.app = () => row.executable;
  else fields.applet = () => row.executable;
  return { ...pickFields(want, fields), id: row.id };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
