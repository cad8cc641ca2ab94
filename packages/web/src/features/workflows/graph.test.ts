import { describe, expect, it } from 'vitest';
import { applySteps } from './edits';
import { INFOS, stage, workflow } from './fixtures.test-helpers';
import { checkConnection, classesCompatible, connectEdit, disconnectEdit, inHandle, outHandle, stageDepths, stagesToEdges, stagesToNodes } from './graph';
import { outputLink } from './model';

const A = stage('stage-a', 'applet-producer');
const B = stage('stage-b', 'applet-consumer', { reads: outputLink('stage-a', 'out') });
const C = stage('stage-c', 'applet-consumer', {
  reads: outputLink('stage-b', 'result'),
  extra: [outputLink('stage-a', 'out'), outputLink('stage-b', 'result')],
});

const connection = (source: string, output: string, target: string, input: string) => ({
  source,
  sourceHandle: outHandle(output),
  target,
  targetHandle: inHandle(input),
});

describe('stages as a graph', () => {
  it('maps stages to nodes in columns by depth and links to edges (array elements each one edge)', () => {
    const model = workflow([A, B, C]);
    expect([...stageDepths(model.stages)]).toEqual([
      ['stage-a', 0],
      ['stage-b', 1],
      ['stage-c', 2],
    ]);
    const nodes = stagesToNodes(model, INFOS, new Map([['stage-c', { x: 5, y: 6 }]]));
    expect(nodes.map((node) => [node.id, node.position.x, node.data.index, node.data.title])).toEqual([
      ['stage-a', 0, 0, 'Producer'],
      ['stage-b', 340, 1, 'Consumer'],
      ['stage-c', 5, 2, 'Consumer'],
    ]);
    expect(stagesToEdges(model).map((edge) => [edge.source, edge.sourceHandle, edge.target, edge.targetHandle])).toEqual([
      ['stage-a', 'out:out', 'stage-b', 'in:reads'],
      ['stage-b', 'out:result', 'stage-c', 'in:reads'],
      ['stage-a', 'out:out', 'stage-c', 'in:extra'],
      ['stage-b', 'out:result', 'stage-c', 'in:extra'],
    ]);
  });

  it('ignores links to unknown stages and inputs bound to values', () => {
    const model = workflow([stage('stage-x', 'applet-consumer', { reads: outputLink('stage-gone', 'out'), label: 'text' })]);
    expect(stagesToEdges(model)).toEqual([]);
  });

  it('accepts only typed connections without cycles, and says why not', () => {
    const model = workflow([A, B, stage('stage-c', 'applet-consumer')]);
    expect(classesCompatible('file', 'file')).toBe(true);
    expect(classesCompatible('file', 'array:file')).toBe(true);
    expect(classesCompatible('int', 'file')).toBe(false);
    const check = (source: string, output: string, target: string, input: string) => checkConnection(model, INFOS, connection(source, output, target, input));
    expect(check('stage-a', 'count', 'stage-c', 'reads')).toEqual({ ok: false, reason: 'The output count is a int; the input reads takes a file' });
    expect(check('stage-b', 'result', 'stage-b', 'reads')).toEqual({ ok: false, reason: 'A stage cannot take its own output' });
    expect(check('stage-b', 'result', 'stage-a', 'n')).toMatchObject({ ok: false });
    expect(check('stage-a', 'out', 'stage-b', 'reads')).toEqual({ ok: false, reason: 'These are already connected' });
    expect(check('stage-a', 'nope', 'stage-c', 'reads')).toEqual({ ok: false, reason: 'stage-a has no output nope' });
    expect(checkConnection(model, INFOS, { source: 'stage-a', target: 'stage-c', sourceHandle: 'in:n', targetHandle: 'in:reads' })).toMatchObject({
      ok: false,
    });
    // a cycle: c → b (b's result into c), then b taking c's result
    const chained = workflow([A, B, stage('stage-c', 'applet-consumer', { reads: outputLink('stage-b', 'result') })]);
    expect(checkConnection(chained, INFOS, connection('stage-c', 'result', 'stage-b', 'extra'))).toEqual({
      ok: false,
      reason: 'stage-c already depends on stage-b: that link would form a cycle',
    });
  });

  it('connects into a single input or appends to an array input, and disconnects one edge', () => {
    const model = workflow([A, B, stage('stage-c', 'applet-consumer', { extra: [outputLink('stage-a', 'out')] })]);
    const single = checkConnection(model, INFOS, connection('stage-b', 'result', 'stage-c', 'reads'));
    const array = checkConnection(model, INFOS, connection('stage-b', 'result', 'stage-c', 'extra'));
    if (!single.ok || !array.ok) throw new Error('both connections should be accepted');
    const after = applySteps(model, [...connectEdit(model, INFOS, single).steps, ...connectEdit(model, INFOS, array).steps]);
    expect(after.stages[2]?.input).toEqual({ reads: outputLink('stage-b', 'result'), extra: [outputLink('stage-a', 'out'), outputLink('stage-b', 'result')] });
    expect(connectEdit(model, INFOS, single).label).toBe('Connect Consumer.result → Consumer.reads');
    const edges = stagesToEdges(after).filter((edge) => edge.target === 'stage-c');
    const removeArrayElement = disconnectEdit(after, edges.find((edge) => edge.data?.field === 'extra' && edge.source === 'stage-a')?.data as never);
    expect(applySteps(after, removeArrayElement?.steps ?? []).stages[2]?.input.extra).toEqual([outputLink('stage-b', 'result')]);
    const removeSingle = disconnectEdit(after, edges.find((edge) => edge.data?.field === 'reads')?.data as never);
    expect(applySteps(after, removeSingle?.steps ?? []).stages[2]?.input.reads).toBeUndefined();
  });
});
