/** Pure rules of the tool details page: a describe answer (app, applet or workflow) as what the page shows. */
import { type Tool, type ToolClass, toolClassOf } from './tool-catalog';

export interface IoField {
  name: string;
  label: string;
  class: string;
  optional: boolean;
  /** JSON text of the default, or undefined when there is none. */
  defaultText: string | undefined;
  patterns: string[];
  choices: string[];
  help: string;
  group: string;
}

export interface WorkflowStageSummary {
  id: string;
  name: string;
  executable: string;
}

export interface ToolDetails {
  id: string;
  class: ToolClass;
  name: string;
  title: string;
  summary: string;
  description: string;
  developerNotes: string;
  version: string | undefined;
  categories: string[];
  inputs: IoField[];
  outputs: IoField[];
  createdBy: string | undefined;
  created: number;
  modified: number;
  project: string | undefined;
  folder: string | undefined;
  stages: WorkflowStageSummary[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** A value as short readable text: strings as they are, links by their id, the rest as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isRecord(value) && '$dnanexus_link' in value) {
    const link = value.$dnanexus_link;
    if (typeof link === 'string') return link;
    if (isRecord(link) && typeof link.id === 'string') return typeof link.project === 'string' ? `${link.project}:${link.id}` : link.id;
    // A workflow input bound to another stage's output (or input).
    if (isRecord(link) && typeof link.stage === 'string') {
      const field = typeof link.outputField === 'string' ? link.outputField : typeof link.inputField === 'string' ? `input ${link.inputField}` : '';
      return field ? `${link.stage} → ${field}` : link.stage;
    }
  }
  return JSON.stringify(value);
}

/** One entry of an inputSpec or outputSpec (ignoring anything malformed). */
export function toIoField(entry: unknown): IoField | undefined {
  if (!isRecord(entry) || typeof entry.name !== 'string') return undefined;
  return {
    name: entry.name,
    label: str(entry.label),
    class: str(entry.class) || 'hash',
    optional: entry.optional === true,
    defaultText: 'default' in entry && entry.default !== undefined ? valueText(entry.default) : undefined,
    patterns: strings(entry.patterns),
    choices: Array.isArray(entry.choices) ? entry.choices.map(valueText) : [],
    help: str(entry.help),
    group: str(entry.group),
  };
}

export function toIoFields(spec: unknown): IoField[] {
  return Array.isArray(spec) ? spec.map(toIoField).filter((field): field is IoField => field !== undefined) : [];
}

/** `createdBy` is a user id on apps and `{ user, job? }` on data objects. */
function creator(value: unknown): string | undefined {
  if (typeof value === 'string' && value) return value;
  if (isRecord(value) && typeof value.user === 'string') return value.user;
  return undefined;
}

/** The describe answer of `app-xxxx/describe`, `applet-xxxx/describe` or `workflow-xxxx/describe` as the page's model. */
export function toToolDetails(described: Record<string, unknown> & { id: string }): ToolDetails {
  const cls = (str(described.class) || toolClassOf(described.id) || 'app') as ToolClass;
  const name = str(described.name) || described.id;
  const stages = Array.isArray(described.stages)
    ? described.stages.filter(isRecord).map((stage, index) => ({
        id: str(stage.id) || `stage-${index}`,
        name: str(stage.name) || str(stage.id) || `Stage ${index + 1}`,
        executable: str(stage.executable),
      }))
    : [];
  return {
    id: described.id,
    class: cls,
    name,
    title: str(described.title) || name,
    summary: str(described.summary),
    description: str(described.description),
    developerNotes: str(described.developerNotes),
    version: str(described.version) || undefined,
    categories: strings(described.categories),
    inputs: toIoFields(described.inputSpec),
    outputs: toIoFields(described.outputSpec),
    createdBy: creator(described.createdBy),
    created: num(described.created),
    modified: num(described.modified),
    project: str(described.project) || undefined,
    folder: str(described.folder) || undefined,
    stages,
  };
}

/** Input fields by group, the ungrouped ones first (as the runner shows them). */
export function groupFields(fields: readonly IoField[]): { group: string; fields: IoField[] }[] {
  const groups = new Map<string, IoField[]>();
  for (const field of fields) groups.set(field.group, [...(groups.get(field.group) ?? []), field]);
  return [...groups.entries()].sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : 0)).map(([group, list]) => ({ group, fields: list }));
}

/** Badge colour of an execution state: done green, failed red, running blue, the rest grey or orange. */
export function executionStateColor(state: string): string {
  if (state === 'done') return 'green';
  if (state === 'failed') return 'red';
  if (state === 'terminated' || state === 'terminating' || state === 'partially_failed') return 'orange';
  if (state === 'running' || state === 'in_progress') return 'blue';
  return 'gray';
}

/** A stage's executable as people read it: `BWA-MEM read mapper 1.0.0` for a known app version, the title of a known applet, else the reference itself. */
export function executableLabel(tools: readonly Tool[] | undefined, executable: string): string {
  for (const tool of tools ?? []) {
    if (tool.class === 'app') {
      const version = tool.versions.find((v) => v.id === executable || `app-${tool.name}/${v.version}` === executable);
      if (version) return `${tool.title} ${version.version}`;
      if (executable === `app-${tool.name}`) return tool.title;
    } else if (tool.id === executable) return tool.title;
  }
  return executable;
}
