/**
 * Pure rules of the monitor pages (SPEC §2 executions list and details, §3 Execution, §4 job states):
 * one execution as a row, its tree, durations, costs, state colours and page paths.
 */

/** Every job and analysis state of SPEC §4, in the order the state filter offers them. */
export const EXECUTION_STATES = [
  'idle',
  'waiting_on_input',
  'runnable',
  'running',
  'in_progress',
  'waiting_on_output',
  'done',
  'failed',
  'partially_failed',
  'terminating',
  'unresponsive',
  'terminated',
  'debug_hold',
  'restartable',
] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

/** States in which an execution has ended. */
export const FINISHED_STATES: readonly string[] = ['done', 'failed', 'terminated'];

export function isFinished(state: string): boolean {
  return FINISHED_STATES.includes(state);
}

/** Not ended yet (partially_failed analyses still have stages running). */
export function isActive(state: string): boolean {
  return !isFinished(state) && state !== 'unknown';
}

/**
 * Colour of a state (Mantine colour names): done green, failed red, running and in progress blue,
 * waiting cyan, trouble orange, terminated grey. Every SPEC §4 state has its own entry.
 */
export const STATE_COLORS: Readonly<Record<ExecutionState, string>> = {
  idle: 'gray',
  waiting_on_input: 'cyan',
  runnable: 'cyan',
  running: 'blue',
  in_progress: 'blue',
  waiting_on_output: 'cyan',
  done: 'green',
  failed: 'red',
  partially_failed: 'orange',
  terminating: 'yellow',
  unresponsive: 'orange',
  terminated: 'dark',
  debug_hold: 'grape',
  restartable: 'yellow',
};

export function executionStateColor(state: string): string {
  return (STATE_COLORS as Record<string, string>)[state] ?? 'gray';
}

/** `waiting_on_input` → `Waiting on input`. */
export function executionStateLabel(state: string): string {
  const words = state.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export interface ExecutionRow {
  id: string;
  executionClass: 'job' | 'analysis';
  name: string;
  state: string;
  project: string | undefined;
  /** applet-…, app-… or workflow-… */
  executable: string | undefined;
  executableName: string | undefined;
  launchedBy: string | undefined;
  created: number | undefined;
  modified: number | undefined;
  startedRunning: number | undefined;
  stoppedRunning: number | undefined;
  instanceType: string | undefined;
  totalPrice: number | undefined;
  currencySymbol: string;
  tags: string[];
  parentJob: string | undefined;
  parentAnalysis: string | undefined;
  rootExecution: string | undefined;
  stage: string | undefined;
  tryNumber: number | undefined;
  failureReason: string | undefined;
  failureMessage: string | undefined;
  treeTurnaroundTime: number | undefined;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The fields of findExecutions' `describe` the monitor pages use (jobs and analyses). */
export const EXECUTION_LIST_FIELDS = {
  id: true,
  class: true,
  name: true,
  state: true,
  project: true,
  executable: true,
  applet: true,
  app: true,
  workflow: true,
  executableName: true,
  launchedBy: true,
  created: true,
  modified: true,
  startedRunning: true,
  stoppedRunning: true,
  instanceType: true,
  totalPrice: true,
  currency: true,
  tags: true,
  parentJob: true,
  parentAnalysis: true,
  rootExecution: true,
  stage: true,
  try: true,
  failureReason: true,
  failureMessage: true,
  treeTurnaroundTime: true,
} as const;

/** A describe of a job or an analysis → a row, tolerating missing fields. */
export function toExecutionRow(id: string, describe: unknown): ExecutionRow {
  const d = isRecord(describe) ? describe : {};
  const executionClass = id.startsWith('analysis-') || d.class === 'analysis' ? 'analysis' : 'job';
  const workflow = isRecord(d.workflow) ? str(d.workflow.id) : str(d.workflow);
  const currency = isRecord(d.currency) ? str(d.currency.symbol) : undefined;
  return {
    id,
    executionClass,
    name: str(d.name) ?? id,
    state: str(d.state) ?? 'unknown',
    project: str(d.project),
    executable: str(d.executable) ?? str(d.app) ?? str(d.applet) ?? workflow,
    executableName: str(d.executableName) ?? (isRecord(d.workflow) ? str(d.workflow.name) : undefined),
    launchedBy: str(d.launchedBy),
    created: num(d.created),
    modified: num(d.modified),
    startedRunning: num(d.startedRunning),
    stoppedRunning: num(d.stoppedRunning),
    instanceType: str(d.instanceType),
    totalPrice: num(d.totalPrice),
    currencySymbol: currency ?? '$',
    tags: Array.isArray(d.tags) ? d.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    parentJob: str(d.parentJob),
    parentAnalysis: str(d.parentAnalysis),
    rootExecution: str(d.rootExecution),
    stage: str(d.stage),
    tryNumber: num(d.try),
    failureReason: str(d.failureReason),
    failureMessage: str(d.failureMessage),
    treeTurnaroundTime: num(d.treeTurnaroundTime),
  };
}

/** The execution this one hangs under in its tree: its parent job, else its analysis (stage jobs). */
export function parentOf(row: ExecutionRow): string | undefined {
  return row.parentJob ?? row.parentAnalysis;
}

/**
 * How long it ran: a job from startedRunning to stoppedRunning (or `now` while it runs); an analysis
 * from created to its end (treeTurnaroundTime) or `now`. Undefined before a job starts.
 */
export function executionDuration(row: ExecutionRow, now: number): number | undefined {
  if (row.executionClass === 'analysis') {
    if (row.created === undefined) return undefined;
    if (row.treeTurnaroundTime !== undefined) return row.treeTurnaroundTime;
    if (isFinished(row.state)) return row.modified !== undefined ? Math.max(0, row.modified - row.created) : undefined;
    return Math.max(0, now - row.created);
  }
  if (row.startedRunning === undefined) return undefined;
  const end = row.stoppedRunning ?? (isFinished(row.state) ? row.modified : now);
  return end === undefined ? undefined : Math.max(0, end - row.startedRunning);
}

/** `0s`, `45s`, `3m 05s`, `2h 04m`, `3d 4h` (the two largest units). */
export function formatElapsed(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '--';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, '0')}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/**
 * A cost with its currency symbol: `--` when unknown, `$0.00` for nothing, `<$0.01` for less than a
 * cent, otherwise two decimals (three under a dollar, since jobs often cost fractions of a cent more).
 */
export function formatCost(amount: number | undefined, symbol = '$'): string {
  if (amount === undefined || !Number.isFinite(amount) || amount < 0) return '--';
  if (amount === 0) return `${symbol}0.00`;
  if (amount < 0.01) return `<${symbol}0.01`;
  return `${symbol}${amount < 1 ? amount.toFixed(3) : amount.toFixed(2)}`;
}

export interface TreeNode {
  row: ExecutionRow;
  children: TreeNode[];
}

/**
 * The tree of executions: each row under its parent job or analysis when that is among the rows,
 * otherwise at the top. Children oldest first (the order they were launched); roots newest first.
 * Cycles cannot form: a row whose parent chain returns to itself is put at the top.
 */
export function buildExecutionTree(rows: readonly ExecutionRow[], stageOrder: readonly string[] = []): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  for (const row of rows) if (!nodes.has(row.id)) nodes.set(row.id, { row, children: [] });
  const roots: TreeNode[] = [];
  const parentIn = (node: TreeNode): TreeNode | undefined => {
    const parentId = parentOf(node.row);
    const parent = parentId === undefined ? undefined : nodes.get(parentId);
    if (!parent) return undefined;
    // Walk up: a cycle means this row cannot hang there.
    const seen = new Set([node.row.id]);
    for (let up: TreeNode | undefined = parent; up; ) {
      if (seen.has(up.row.id)) return undefined;
      seen.add(up.row.id);
      const next = parentOf(up.row);
      up = next === undefined ? undefined : nodes.get(next);
    }
    return parent;
  };
  for (const node of nodes.values()) {
    const parent = parentIn(node);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const byCreated = (a: TreeNode, b: TreeNode) => (a.row.created ?? 0) - (b.row.created ?? 0) || a.row.id.localeCompare(b.row.id);
  const stageRank = new Map(stageOrder.map((stage, index) => [stage, index]));
  const byLaunch = (a: TreeNode, b: TreeNode) => compareLaunchOrder(a.row, b.row, stageRank) || byCreated(a, b);
  const sortChildren = (node: TreeNode) => {
    node.children.sort(byLaunch);
    for (const child of node.children) sortChildren(child);
  };
  for (const root of roots) sortChildren(root);
  roots.sort((a, b) => byCreated(b, a));
  return roots;
}

/**
 * Stages of one analysis in the workflow's order (their jobs are all created at once), then the rest
 * by creation time.
 */
export function compareLaunchOrder(a: ExecutionRow, b: ExecutionRow, stageRank: ReadonlyMap<string, number>): number {
  const rankA = a.stage === undefined ? undefined : stageRank.get(a.stage);
  const rankB = b.stage === undefined ? undefined : stageRank.get(b.stage);
  if (rankA !== undefined && rankB !== undefined) return rankA - rankB;
  return (a.created ?? 0) - (b.created ?? 0) || a.id.localeCompare(b.id);
}

/** The stage ids of an analysis describe's workflow, in order. */
export function stageOrderOf(describe: unknown): string[] {
  if (!isRecord(describe) || !isRecord(describe.workflow) || !Array.isArray(describe.workflow.stages)) return [];
  return describe.workflow.stages
    .filter(isRecord)
    .map((stage) => (typeof stage.id === 'string' ? stage.id : ''))
    .filter(Boolean);
}

export interface FlatTreeRow {
  row: ExecutionRow;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
}

/** The visible rows of a tree (depth first), descending only into expanded nodes; iterative (deep trees). */
export function flattenTree(roots: readonly TreeNode[], isExpanded: (id: string) => boolean): FlatTreeRow[] {
  const out: FlatTreeRow[] = [];
  const stack: { node: TreeNode; depth: number }[] = [...roots].reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length) {
    const { node, depth } = stack.pop() as { node: TreeNode; depth: number };
    const expanded = node.children.length > 0 && isExpanded(node.row.id);
    out.push({ row: node.row, depth, hasChildren: node.children.length > 0, expanded });
    if (expanded) for (let index = node.children.length - 1; index >= 0; index--) stack.push({ node: node.children[index] as TreeNode, depth: depth + 1 });
  }
  return out;
}

/** Ids on the way from a root to `id` (excluded), so that the tree can reveal it. */
export function ancestorsOf(rows: readonly ExecutionRow[], id: string): string[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const out: string[] = [];
  const seen = new Set<string>([id]);
  for (let parent = byId.get(id) && parentOf(byId.get(id) as ExecutionRow); parent && !seen.has(parent); ) {
    out.unshift(parent);
    seen.add(parent);
    const row = byId.get(parent);
    parent = row ? parentOf(row) : undefined;
  }
  return out;
}

/** How many rows have not ended. */
export function countActive(rows: readonly ExecutionRow[]): number {
  return rows.filter((row) => isActive(row.state)).length;
}

/** `/panx/projects/{project}/monitor/{class}/{id}` (with `/try/{n}` and a tab), or `/panx/executions/{id}` without a project. */
export function executionPagePath(execution: { id: string; project?: string | undefined }, options: { tryNumber?: number; tab?: string } = {}): string {
  const executionClass = execution.id.startsWith('analysis-') ? 'analysis' : 'job';
  if (!execution.project) return `/panx/executions/${encodeURIComponent(execution.id)}`;
  const tryPart = options.tryNumber === undefined ? '' : `/try/${options.tryNumber}`;
  const tab = options.tab ? `/${options.tab}` : '';
  return `/panx/projects/${encodeURIComponent(execution.project)}/monitor/${executionClass}/${encodeURIComponent(execution.id)}${tryPart}${tab}`;
}

/** The runner prefilled from an execution (the runner's `?from=` agreement). */
export function rerunPath(project: string, executable: string, executionId: string): string {
  return `/panx/projects/${encodeURIComponent(project)}/run/${encodeURIComponent(executable)}?${new URLSearchParams({ from: executionId })}`;
}

/**
 * Executions the user launched that were active in `before` and have ended in `after`: the monitor
 * pages refresh the notification store as soon as they see one (the server has notified by then).
 */
export function newlyEnded(before: readonly ExecutionRow[] | undefined, after: readonly ExecutionRow[], userId: string | undefined): ExecutionRow[] {
  if (!before || !userId) return [];
  const was = new Map(before.map((row) => [row.id, row.state]));
  return after.filter((row) => {
    const previous = was.get(row.id);
    return (
      row.launchedBy === userId &&
      previous !== undefined &&
      isActive(previous) &&
      isFinished(row.state) &&
      row.parentJob === undefined &&
      row.parentAnalysis === undefined
    );
  });
}

/** Why a user cannot terminate these executions, or undefined when they can (SPEC §6: CONTRIBUTE, or the launcher). */
export function terminateRefusal(level: string | undefined, selected: readonly ExecutionRow[], userId: string | undefined): string | undefined {
  if (selected.length === 0) return 'Select executions to terminate';
  if (selected.every((row) => !isActive(row.state))) return 'The selected executions have already ended';
  const contributes = level === 'CONTRIBUTE' || level === 'ADMINISTER';
  if (!contributes && !selected.every((row) => row.launchedBy !== undefined && row.launchedBy === userId)) {
    return `Terminating needs CONTRIBUTE access to this project; you have ${level ?? 'no'} access`;
  }
  return undefined;
}
