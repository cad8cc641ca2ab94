/**
 * The workflow editor's model of a workflow (pure): stages in order with their bound inputs, read
 * from `workflow-xxxx/describe`, and what is known of each stage's executable (its input and output
 * specs). Stage links are `{"$dnanexus_link": {"stage", "outputField"}}` or `{..., "inputField"}`
 * (reference §3.4), as top-level values or array elements.
 */

export interface IoField {
  name: string;
  class: string;
  optional: boolean;
  label?: string;
  help?: string;
  patterns?: string[];
  choices?: unknown[];
  default?: unknown;
}

export interface ExecutableInfo {
  id: string;
  name: string;
  title: string;
  inputSpec: IoField[];
  outputSpec: IoField[];
}

export type SystemRequirements = Record<string, { instanceType?: string }>;

export interface StageModel {
  id: string;
  executable: string;
  name: string | null;
  folder: string | null;
  input: Record<string, unknown>;
  systemRequirements: SystemRequirements;
  executionPolicy: Record<string, unknown>;
}

export interface WorkflowModel {
  id: string;
  project: string;
  name: string;
  title: string | null;
  state: string;
  editVersion: number;
  outputFolder: string | null;
  stages: StageModel[];
}

export type StageLink = { stage: string; outputField: string } | { stage: string; inputField: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The stage link in a value, if it is one. */
export function stageLinkOf(value: unknown): StageLink | undefined {
  if (!isRecord(value) || !isRecord(value.$dnanexus_link)) return undefined;
  const body = value.$dnanexus_link;
  if (typeof body.stage !== 'string') return undefined;
  if (typeof body.outputField === 'string') return { stage: body.stage, outputField: body.outputField };
  if (typeof body.inputField === 'string') return { stage: body.stage, inputField: body.inputField };
  return undefined;
}

export function outputLink(stage: string, outputField: string): { $dnanexus_link: { stage: string; outputField: string } } {
  return { $dnanexus_link: { stage, outputField } };
}

/** Top-level values and array elements: where links count in an input. */
export const elementsOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** Every stage link among a stage's bound inputs, with the field it is in. */
export function stageLinksIn(input: Record<string, unknown>): (StageLink & { field: string })[] {
  return Object.entries(input).flatMap(([field, value]) =>
    elementsOf(value).flatMap((element) => {
      const link = stageLinkOf(element);
      return link ? [{ ...link, field }] : [];
    }),
  );
}

/** An executable's inputSpec/outputSpec as fields (items without a name or class are left out). */
export function ioFieldsOf(spec: unknown): IoField[] {
  if (!Array.isArray(spec)) return [];
  return spec.flatMap((item) => {
    if (!isRecord(item) || typeof item.name !== 'string' || typeof item.class !== 'string') return [];
    const field: IoField = { name: item.name, class: item.class, optional: item.optional === true || item.default !== undefined };
    if (typeof item.label === 'string') field.label = item.label;
    if (typeof item.help === 'string') field.help = item.help;
    if (Array.isArray(item.patterns)) field.patterns = item.patterns.filter((p): p is string => typeof p === 'string');
    if (Array.isArray(item.choices)) field.choices = item.choices;
    if (item.default !== undefined) field.default = item.default;
    return [field];
  });
}

export function executableInfoOf(id: string, describe: unknown): ExecutableInfo {
  const d = isRecord(describe) ? describe : {};
  const name = str(d.name) ?? id;
  return { id, name, title: str(d.title) ?? name, inputSpec: ioFieldsOf(d.inputSpec), outputSpec: ioFieldsOf(d.outputSpec) };
}

/** `workflow-xxxx/describe` → the model; throws when the answer is not a workflow. */
export function workflowFromDescribe(describe: unknown): WorkflowModel {
  if (!isRecord(describe) || typeof describe.id !== 'string') throw new Error('The server did not describe a workflow');
  const stages = Array.isArray(describe.stages) ? describe.stages : [];
  return {
    id: describe.id,
    project: str(describe.project) ?? '',
    name: str(describe.name) ?? describe.id,
    title: str(describe.title),
    state: str(describe.state) ?? 'open',
    editVersion: typeof describe.editVersion === 'number' ? describe.editVersion : 0,
    outputFolder: str(describe.outputFolder),
    stages: stages.filter(isRecord).map((stage) => ({
      id: String(stage.id),
      executable: str(stage.executable) ?? '',
      name: str(stage.name),
      folder: str(stage.folder),
      input: isRecord(stage.input) ? { ...stage.input } : {},
      systemRequirements: isRecord(stage.systemRequirements) ? (stage.systemRequirements as SystemRequirements) : {},
      executionPolicy: isRecord(stage.executionPolicy) ? stage.executionPolicy : {},
    })),
  };
}

/** The instance type a stage asks for (all entry points), if any. */
export function instanceTypeOf(stage: StageModel): string | null {
  return stage.systemRequirements['*']?.instanceType ?? stage.systemRequirements.main?.instanceType ?? null;
}

export function stageTitle(stage: StageModel, info: ExecutableInfo | undefined): string {
  return stage.name || info?.title || stage.executable;
}

/** A new stage ID (letters, digits, "-"): `stage-` and 24 random characters, like the server's. */
export function newStageId(random: () => number = Math.random): string {
  const alphabet = '0123456789BFGJKPQVXYZbfgjkpqvxyz';
  let id = 'stage-';
  for (let i = 0; i < 24; i++) id += alphabet[Math.floor(random() * alphabet.length)];
  return id;
}

/** A short readable form of a bound value (links as `stage.field`). */
export function describeValue(value: unknown, stageName: (id: string) => string = (id) => id): string {
  const link = stageLinkOf(value);
  if (link) return 'outputField' in link ? `← ${stageName(link.stage)}.${link.outputField}` : `= ${stageName(link.stage)} input ${link.inputField}`;
  if (Array.isArray(value)) return `[${value.map((item) => describeValue(item, stageName)).join(', ')}]`;
  if (isRecord(value) && value.$dnanexus_link !== undefined) {
    const body = value.$dnanexus_link;
    if (typeof body === 'string') return body;
    if (isRecord(body) && typeof body.id === 'string') return typeof body.project === 'string' ? `${body.project}:${body.id}` : body.id;
  }
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

const LEVELS = ['NONE', 'VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER'] as const;

/** Why the user cannot edit this workflow (read-only editor), or undefined when they can. */
export function editBlockedReason(state: string, level: string | undefined): string | undefined {
  if (state !== 'open') return 'This workflow is closed: closed workflows can be run and copied, not edited.';
  if (level === undefined) return undefined;
  const rank = LEVELS.indexOf(level as (typeof LEVELS)[number]);
  if (rank < LEVELS.indexOf('UPLOAD'))
    return `You have ${level} access to this project: editing a workflow needs UPLOAD access or more. Ask a project administrator.`;
  return undefined;
}

/** Whether the user may run the workflow (a run creates an analysis in the project: CONTRIBUTE, as on DNAnexus). */
export function runBlockedReason(level: string | undefined): string | undefined {
  if (level === undefined) return undefined;
  return LEVELS.indexOf(level as (typeof LEVELS)[number]) < LEVELS.indexOf('CONTRIBUTE')
    ? `You have ${level} access: running needs CONTRIBUTE access or more.`
    : undefined;
}

/** Required inputs without a value or link (asked for when the workflow is run): `Stage title.field`. */
export function unboundRequiredInputs(model: WorkflowModel, infos: ReadonlyMap<string, ExecutableInfo>): string[] {
  return model.stages.flatMap((stage) => {
    const info = infos.get(stage.executable);
    return (info?.inputSpec ?? [])
      .filter((field) => !field.optional && stage.input[field.name] === undefined)
      .map((field) => `${stageTitle(stage, info)}.${field.name}`);
  });
}
