import { describe, expect, it } from 'vitest';
import {
  ancestorsOf,
  buildExecutionTree,
  countActive,
  EXECUTION_STATES,
  type ExecutionRow,
  executionDuration,
  executionPagePath,
  executionStateColor,
  executionStateLabel,
  flattenTree,
  formatCost,
  formatElapsed,
  newlyEnded,
  rerunPath,
  STATE_COLORS,
  stageOrderOf,
  terminateRefusal,
  toExecutionRow,
} from './execution-model';

const row = (id: string, extra: Record<string, unknown> = {}): ExecutionRow => toExecutionRow(id, { name: id, state: 'done', created: 1, ...extra });

describe('toExecutionRow', () => {
  it('reads a job describe, tolerating missing and wrongly typed fields', () => {
    const job = toExecutionRow('job-1', {
      name: 'align',
      state: 'running',
      project: 'project-1',
      applet: 'applet-1',
      executableName: 'bwa',
      launchedBy: 'user-ann',
      startedRunning: 10,
      totalPrice: 0.5,
      currency: { symbol: '€' },
      tags: ['a', 3, 'b'],
      parentJob: null,
      try: 2,
    });
    expect(job).toMatchObject({
      executionClass: 'job',
      executable: 'applet-1',
      currencySymbol: '€',
      tags: ['a', 'b'],
      parentJob: undefined,
      tryNumber: 2,
      startedRunning: 10,
    });
    expect(toExecutionRow('job-2', null)).toMatchObject({ name: 'job-2', state: 'unknown', currencySymbol: '$', tags: [] });
  });

  it('reads an analysis: class from the id, executable from the workflow', () => {
    expect(toExecutionRow('analysis-1', { workflow: { id: 'workflow-1', name: 'germline' } })).toMatchObject({
      executionClass: 'analysis',
      executable: 'workflow-1',
      executableName: 'germline',
    });
  });
});

describe('states', () => {
  it('gives every SPEC §4 job and analysis state a colour and a label', () => {
    expect(EXECUTION_STATES).toHaveLength(14);
    for (const state of EXECUTION_STATES) {
      expect(STATE_COLORS[state]).toBeTruthy();
      expect(executionStateLabel(state)).not.toContain('_');
    }
    expect(executionStateColor('done')).toBe('green');
    expect(executionStateColor('failed')).toBe('red');
    expect(executionStateColor('running')).toBe('blue');
    expect(executionStateColor('nonsense')).toBe('gray');
    expect(executionStateLabel('waiting_on_input')).toBe('Waiting on input');
  });

  it('counts the executions that have not ended', () => {
    expect(
      countActive([row('job-1', { state: 'running' }), row('job-2'), row('analysis-1', { state: 'partially_failed' }), row('job-3', { state: 'terminated' })]),
    ).toBe(2);
  });
});

describe('durations and costs', () => {
  it('times a job from start to stop, or to now while it runs, and nothing before it starts', () => {
    expect(executionDuration(row('job-1', { startedRunning: 1_000, stoppedRunning: 61_000 }), 999_999)).toBe(60_000);
    expect(executionDuration(row('job-1', { state: 'running', startedRunning: 1_000 }), 11_000)).toBe(10_000);
    expect(executionDuration(row('job-1', { state: 'runnable' }), 11_000)).toBeUndefined();
  });

  it('times an analysis from its creation to its end', () => {
    expect(executionDuration(row('analysis-1', { created: 1_000, treeTurnaroundTime: 5_000 }), 99_000)).toBe(5_000);
    expect(executionDuration(row('analysis-1', { state: 'in_progress', created: 1_000 }), 4_000)).toBe(3_000);
  });

  it('formats elapsed time with its two largest units', () => {
    expect(formatElapsed(undefined)).toBe('--');
    expect(formatElapsed(-1)).toBe('--');
    expect(formatElapsed(0)).toBe('0s');
    expect(formatElapsed(45_900)).toBe('45s');
    expect(formatElapsed(185_000)).toBe('3m 05s');
    expect(formatElapsed(2 * 3_600_000 + 4 * 60_000)).toBe('2h 04m');
    expect(formatElapsed(76 * 3_600_000)).toBe('3d 4h');
  });

  it('formats costs: unknown, nothing, under a cent, under a dollar, dollars', () => {
    expect(formatCost(undefined)).toBe('--');
    expect(formatCost(Number.NaN)).toBe('--');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.004)).toBe('<$0.01');
    expect(formatCost(0.1234)).toBe('$0.123');
    expect(formatCost(12.345, '€')).toBe('€12.35');
  });
});

describe('execution trees', () => {
  const rows = [
    row('analysis-1', { created: 5 }),
    row('job-s1', { parentAnalysis: 'analysis-1', created: 7 }),
    row('job-s0', { parentAnalysis: 'analysis-1', created: 6 }),
    row('job-sub', { parentJob: 'job-s1', created: 8 }),
    row('job-root', { created: 9 }),
    row('job-orphan', { parentJob: 'job-missing', created: 1 }),
  ];

  it('hangs subjobs under their parent job and stages under their analysis, children oldest first, roots newest first', () => {
    const tree = buildExecutionTree(rows);
    expect(tree.map((node) => node.row.id)).toEqual(['job-root', 'analysis-1', 'job-orphan']);
    const analysis = tree[1];
    expect(analysis?.children.map((node) => node.row.id)).toEqual(['job-s0', 'job-s1']);
    expect(analysis?.children[1]?.children.map((node) => node.row.id)).toEqual(['job-sub']);
  });

  it('flattens only expanded nodes, with depths', () => {
    const tree = buildExecutionTree(rows);
    expect(flattenTree(tree, () => false).map((flat) => flat.row.id)).toEqual(['job-root', 'analysis-1', 'job-orphan']);
    const open = flattenTree(tree, () => true);
    expect(open.map((flat) => [flat.row.id, flat.depth, flat.hasChildren])).toEqual([
      ['job-root', 0, false],
      ['analysis-1', 0, true],
      ['job-s0', 1, false],
      ['job-s1', 1, true],
      ['job-sub', 2, false],
      ['job-orphan', 0, false],
    ]);
    expect(ancestorsOf(rows, 'job-sub')).toEqual(['analysis-1', 'job-s1']);
  });

  it('orders an analysis’s stages as its workflow does (their jobs share a creation time)', () => {
    const stages = [
      row('analysis-2', { created: 1 }),
      row('job-a', { parentAnalysis: 'analysis-2', stage: 'stage-produce', created: 2 }),
      row('job-b', { parentAnalysis: 'analysis-2', stage: 'stage-consume', created: 2 }),
    ];
    const order = stageOrderOf({ workflow: { stages: [{ id: 'stage-produce' }, { id: 'stage-consume' }] } });
    expect(order).toEqual(['stage-produce', 'stage-consume']);
    expect(buildExecutionTree(stages, order)[0]?.children.map((node) => node.row.stage)).toEqual(['stage-produce', 'stage-consume']);
    expect(buildExecutionTree(stages)[0]?.children.map((node) => node.row.id)).toEqual(['job-a', 'job-b']);
    expect(stageOrderOf(null)).toEqual([]);
  });

  it('survives a cycle and 10,000 subjobs', () => {
    const cycle = buildExecutionTree([row('job-a', { parentJob: 'job-b' }), row('job-b', { parentJob: 'job-a' })]);
    expect(flattenTree(cycle, () => true)).toHaveLength(2);
    const many = [row('job-root'), ...Array.from({ length: 10_000 }, (_, index) => row(`job-${index}`, { parentJob: 'job-root', created: index }))];
    const started = performance.now();
    const flat = flattenTree(buildExecutionTree(many), () => true);
    expect(flat).toHaveLength(10_001);
    expect(flat[1]?.row.id).toBe('job-0');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('paths and permissions', () => {
  it('builds the details path (with a try and a tab) and the project-less one', () => {
    expect(executionPagePath({ id: 'job-1', project: 'project-1' })).toBe('/panx/projects/project-1/monitor/job/job-1');
    expect(executionPagePath({ id: 'analysis-1', project: 'project-1' }, { tryNumber: 2, tab: 'log' })).toBe(
      '/panx/projects/project-1/monitor/analysis/analysis-1/try/2/log',
    );
    expect(executionPagePath({ id: 'job-1' })).toBe('/panx/executions/job-1');
    expect(rerunPath('project-1', 'applet-1', 'job-1')).toBe('/panx/projects/project-1/run/applet-1?from=job-1');
  });

  it('refuses to terminate without CONTRIBUTE unless the user launched every selected one', () => {
    const mine = row('job-1', { state: 'running', launchedBy: 'user-me' });
    const theirs = row('job-2', { state: 'running', launchedBy: 'user-you' });
    expect(terminateRefusal('CONTRIBUTE', [theirs], 'user-me')).toBeUndefined();
    expect(terminateRefusal('VIEW', [mine], 'user-me')).toBeUndefined();
    expect(terminateRefusal('VIEW', [mine, theirs], 'user-me')).toContain('CONTRIBUTE');
    expect(terminateRefusal('ADMINISTER', [], 'user-me')).toBe('Select executions to terminate');
    expect(terminateRefusal('ADMINISTER', [row('job-3')], 'user-me')).toContain('already ended');
  });

  it('notices the user’s own top-level executions that just ended', () => {
    const before = [row('job-1', { state: 'running', launchedBy: 'user-me' }), row('job-2', { state: 'running', launchedBy: 'user-you' })];
    const after = [row('job-1', { state: 'failed', launchedBy: 'user-me' }), row('job-2', { state: 'done', launchedBy: 'user-you' })];
    expect(newlyEnded(before, after, 'user-me').map((r) => r.id)).toEqual(['job-1']);
    expect(newlyEnded(undefined, after, 'user-me')).toEqual([]);
    expect(newlyEnded(after, after, 'user-me')).toEqual([]);
  });
});
