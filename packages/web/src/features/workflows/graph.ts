import type { Edge, Node } from '@xyflow/react';
import type { Edit } from './edits';
import { elementsOf, type ExecutableInfo, outputLink, stageLinkOf, stageTitle, type StageModel, type WorkflowModel } from './model';

/**
 * The stages as a graph (pure): a node per stage, an edge per output→input link. Handles are named
 * `in:<field>` and `out:<field>`. Connecting is typed: an output feeds an input of the same class, or
 * one element of an array input of that class; links never form a cycle.
 */

export interface StageNodeData extends Record<string, unknown> {
  stage: StageModel;
  info: ExecutableInfo | undefined;
  index: number;
  title: string;
  /** Every stage's title by ID, for the links shown in the node. */
  titles: Readonly<Record<string, string>>;
}

export interface LinkEdgeData extends Record<string, unknown> {
  /** The stage and input the link is bound in. */
  stageId: string;
  field: string;
  source: string;
  outputField: string;
}

export type StageNode = Node<StageNodeData, 'stage'>;
export type LinkEdge = Edge<LinkEdgeData>;

export const inHandle = (field: string) => `in:${field}`;
export const outHandle = (field: string) => `out:${field}`;
const fieldOfHandle = (handle: string | null | undefined, side: 'in' | 'out'): string | undefined =>
  handle?.startsWith(`${side}:`) ? handle.slice(side.length + 1) : undefined;

export const COLUMN_WIDTH = 340;
const ROW_GAP = 40;

/** Rough height of a stage node: header lines and one row per field. */
export function nodeHeight(info: ExecutableInfo | undefined): number {
  return 96 + 26 * Math.max(1, (info?.inputSpec.length ?? 0) + (info?.outputSpec.length ?? 0));
}

/** Each stage's column: one more than the deepest stage it takes an output or input from. */
export function stageDepths(stages: readonly StageModel[]): Map<string, number> {
  const byId = new Map(stages.map((stage) => [stage.id, stage]));
  const depths = new Map<string, number>();
  const visiting = new Set<string>();
  const depth = (id: string): number => {
    const known = depths.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0; // a cycle (the server refuses them): stop here
    visiting.add(id);
    const stage = byId.get(id);
    let value = 0;
    for (const element of Object.values(stage?.input ?? {}).flatMap(elementsOf)) {
      const link = stageLinkOf(element);
      if (link && link.stage !== id && byId.has(link.stage)) value = Math.max(value, depth(link.stage) + 1);
    }
    visiting.delete(id);
    depths.set(id, value);
    return value;
  };
  for (const stage of stages) depth(stage.id);
  return depths;
}

/** Nodes laid out in columns by depth (stage order within a column); `positions` keeps where the user dragged nodes. */
export function stagesToNodes(
  model: WorkflowModel,
  infos: ReadonlyMap<string, ExecutableInfo>,
  positions: ReadonlyMap<string, { x: number; y: number }> = new Map(),
): StageNode[] {
  const depths = stageDepths(model.stages);
  const titles = Object.fromEntries(model.stages.map((stage) => [stage.id, stageTitle(stage, infos.get(stage.executable))]));
  const columnHeights = new Map<number, number>();
  return model.stages.map((stage, index) => {
    const info = infos.get(stage.executable);
    const column = depths.get(stage.id) ?? 0;
    const y = columnHeights.get(column) ?? 0;
    columnHeights.set(column, y + nodeHeight(info) + ROW_GAP);
    return {
      id: stage.id,
      type: 'stage',
      position: positions.get(stage.id) ?? { x: column * COLUMN_WIDTH, y },
      data: { stage, info, index, title: titles[stage.id] ?? stage.id, titles },
    };
  });
}

/** An edge per stage output link (array elements each get theirs). */
export function stagesToEdges(model: WorkflowModel): LinkEdge[] {
  const ids = new Set(model.stages.map((stage) => stage.id));
  return model.stages.flatMap((stage) =>
    Object.entries(stage.input).flatMap(([field, value]) =>
      elementsOf(value).flatMap((element) => {
        const link = stageLinkOf(element);
        if (!link || !('outputField' in link) || !ids.has(link.stage)) return [];
        return [
          {
            id: `${link.stage}.${link.outputField}->${stage.id}.${field}`,
            source: link.stage,
            sourceHandle: outHandle(link.outputField),
            target: stage.id,
            targetHandle: inHandle(field),
            data: { stageId: stage.id, field, source: link.stage, outputField: link.outputField },
          },
        ];
      }),
    ),
  );
}

export interface ConnectionRequest {
  source: string | null;
  sourceHandle?: string | null;
  target: string | null;
  targetHandle?: string | null;
}

/** Whether an output of class `output` may feed an input of class `input`. */
export function classesCompatible(output: string, input: string): boolean {
  return output === input || input === `array:${output}`;
}

/** Whether `from` reaches `to` by following links backwards (to where stages take their values from). */
function dependsOn(model: WorkflowModel, from: string, to: string): boolean {
  const byId = new Map(model.stages.map((stage) => [stage.id, stage]));
  const seen = new Set<string>();
  const stack = [from];
  while (stack.length) {
    const id = stack.pop() as string;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const element of Object.values(byId.get(id)?.input ?? {}).flatMap(elementsOf)) {
      const link = stageLinkOf(element);
      if (link && link.stage !== id) stack.push(link.stage);
    }
  }
  return false;
}

export type ConnectionCheck =
  | { ok: true; stageId: string; field: string; source: string; outputField: string; asElement: boolean }
  | { ok: false; reason: string };

/** Whether dragging from an output handle to an input handle makes a valid link, and why not. */
export function checkConnection(model: WorkflowModel, infos: ReadonlyMap<string, ExecutableInfo>, connection: ConnectionRequest): ConnectionCheck {
  const outputField = fieldOfHandle(connection.sourceHandle, 'out');
  const field = fieldOfHandle(connection.targetHandle, 'in');
  if (!connection.source || !connection.target || !outputField || !field)
    return { ok: false, reason: 'Connect an output (right side) to an input (left side)' };
  const source = model.stages.find((stage) => stage.id === connection.source);
  const target = model.stages.find((stage) => stage.id === connection.target);
  if (!source || !target) return { ok: false, reason: 'That stage no longer exists' };
  if (source.id === target.id) return { ok: false, reason: 'A stage cannot take its own output' };
  const output = infos.get(source.executable)?.outputSpec.find((item) => item.name === outputField);
  const input = infos.get(target.executable)?.inputSpec.find((item) => item.name === field);
  if (!output) return { ok: false, reason: `${source.name || source.id} has no output ${outputField}` };
  if (!input) return { ok: false, reason: `${target.name || target.id} has no input ${field}` };
  if (!classesCompatible(output.class, input.class)) {
    return { ok: false, reason: `The output ${outputField} is a ${output.class}; the input ${field} takes a ${input.class}` };
  }
  if (dependsOn(model, source.id, target.id))
    return { ok: false, reason: `${source.name || source.id} already depends on ${target.name || target.id}: that link would form a cycle` };
  const asElement = input.class !== output.class;
  const already = elementsOf(target.input[field]).some((element) => {
    const link = stageLinkOf(element);
    return link && 'outputField' in link && link.stage === source.id && link.outputField === outputField;
  });
  if (already) return { ok: false, reason: 'These are already connected' };
  return { ok: true, stageId: target.id, field, source: source.id, outputField, asElement };
}

/** The edit that makes a checked connection: the input bound to the link (added to an array input's links). */
export function connectEdit(model: WorkflowModel, infos: ReadonlyMap<string, ExecutableInfo>, check: Extract<ConnectionCheck, { ok: true }>): Edit {
  const target = model.stages.find((stage) => stage.id === check.stageId);
  const source = model.stages.find((stage) => stage.id === check.source);
  const link = outputLink(check.source, check.outputField);
  let value: unknown = link;
  if (check.asElement) {
    const current = target?.input[check.field];
    const links = Array.isArray(current) ? current.filter((element) => stageLinkOf(element)) : [];
    value = [...links, link];
  }
  const label = `Connect ${source ? stageTitle(source, infos.get(source.executable)) : check.source}.${check.outputField} → ${
    target ? stageTitle(target, infos.get(target.executable)) : check.stageId
  }.${check.field}`;
  return { label, steps: [{ kind: 'updateStage', stageId: check.stageId, input: { [check.field]: value } }] };
}

/** The edit that removes one link edge (the element of an array input, or the whole binding). */
export function disconnectEdit(model: WorkflowModel, edge: LinkEdgeData): Edit | undefined {
  const target = model.stages.find((stage) => stage.id === edge.stageId);
  const current = target?.input[edge.field];
  if (current === undefined) return undefined;
  const isThisLink = (element: unknown) => {
    const link = stageLinkOf(element);
    return link !== undefined && 'outputField' in link && link.stage === edge.source && link.outputField === edge.outputField;
  };
  let value: unknown = null;
  if (Array.isArray(current)) {
    const kept = current.filter((element) => !isThisLink(element));
    value = kept.length ? kept : null;
  } else if (!isThisLink(current)) {
    return undefined;
  }
  return {
    label: `Disconnect ${edge.source}.${edge.outputField} → ${edge.field}`,
    steps: [{ kind: 'updateStage', stageId: edge.stageId, input: { [edge.field]: value } }],
  };
}
