/**
 * Inputs and outputs of an execution as the details page shows them (SPEC §9 limits: up to 10,000
 * data objects described, arrays expanded to 1,000 items, 1,000 fields).
 */
import { isRecord } from './execution-model';

export const IO_DATA_OBJECTS_LIMIT = 10_000;
export const IO_ARRAY_EXPAND_LIMIT = 1_000;
export const IO_FIELDS_LIMIT = 1_000;

export type IoValue =
  | { kind: 'object'; id: string; project: string | undefined }
  | { kind: 'execution-output'; execution: string; field: string }
  | { kind: 'array'; items: IoValue[]; hidden: number }
  | { kind: 'scalar'; text: string }
  | { kind: 'json'; text: string }
  | { kind: 'empty' };

const OBJECT_ID = /^(file|record|applet|workflow|database|table|gtable)-[0-9A-Za-z]{24}$/;

/** `{"$dnanexus_link": "file-…"}` or `{"$dnanexus_link": {"project", "id"}}` or a job/analysis output reference. */
export function classify(value: unknown): IoValue {
  if (value === null || value === undefined) return { kind: 'empty' };
  if (Array.isArray(value)) {
    return { kind: 'array', items: value.slice(0, IO_ARRAY_EXPAND_LIMIT).map(classify), hidden: Math.max(0, value.length - IO_ARRAY_EXPAND_LIMIT) };
  }
  if (isRecord(value)) {
    const link = value.$dnanexus_link;
    if (typeof link === 'string' && OBJECT_ID.test(link)) return { kind: 'object', id: link, project: undefined };
    if (isRecord(link)) {
      if (typeof link.id === 'string' && OBJECT_ID.test(link.id))
        return { kind: 'object', id: link.id, project: typeof link.project === 'string' ? link.project : undefined };
      const execution = typeof link.job === 'string' ? link.job : typeof link.analysis === 'string' ? link.analysis : undefined;
      const field = typeof link.field === 'string' ? link.field : undefined;
      if (execution && field) return { kind: 'execution-output', execution, field };
    }
    return { kind: 'json', text: JSON.stringify(value, null, 2) };
  }
  if (typeof value === 'string') return { kind: 'scalar', text: value };
  return { kind: 'scalar', text: JSON.stringify(value) };
}

export interface IoField {
  name: string;
  value: IoValue;
}

/** The first 1,000 fields, sorted by name (stage fields `stage-x.field` group by stage), and how many were left out. */
export function ioFields(io: unknown): { fields: IoField[]; hidden: number } {
  if (!isRecord(io)) return { fields: [], hidden: 0 };
  const names = Object.keys(io).sort((a, b) => a.localeCompare(b));
  return {
    fields: names.slice(0, IO_FIELDS_LIMIT).map((name) => ({ name, value: classify(io[name]) })),
    hidden: Math.max(0, names.length - IO_FIELDS_LIMIT),
  };
}

/** Data objects named by the fields (each once, up to 10,000), for one batch of describes. */
export function dataObjectsOf(fields: readonly IoField[]): { id: string; project: string | undefined }[] {
  const seen = new Map<string, { id: string; project: string | undefined }>();
  const visit = (value: IoValue) => {
    if (seen.size >= IO_DATA_OBJECTS_LIMIT) return;
    if (value.kind === 'object' && !seen.has(value.id)) seen.set(value.id, { id: value.id, project: value.project });
    if (value.kind === 'array') for (const item of value.items) visit(item);
  };
  for (const field of fields) visit(field.value);
  return [...seen.values()];
}

/** The page a data object opens: files in the viewer (`/panx/{project}/{file}/view`), others in their project's data. */
export function dataObjectPath(id: string, project: string | undefined, folder?: string): string | undefined {
  if (!project) return undefined;
  if (id.startsWith('file-')) return `/panx/${encodeURIComponent(project)}/${encodeURIComponent(id)}/view`;
  const path = (folder ?? '/').replace(/^\/+/, '');
  return `/panx/projects/${encodeURIComponent(project)}/data/${path}`;
}
