/**
 * The tool runner's form, as pure rules: fields from an executable's input spec (dxapp.json `inputSpec`,
 * or a workflow's computed spec keyed `<stageId>.<field>`), what the user typed, the validation states
 * DEFAULT/LOADING/ERROR of each field and WAIT_USER_INPUT/WAIT_API/READY of dependent inputs (SPEC §4),
 * the run input built from them, the server's InvalidInput errors put beside their fields, and the
 * values of an earlier execution's runInput read back into the form.
 */

export const VALIDATION_STATES = ['DEFAULT', 'LOADING', 'ERROR'] as const;
export type ValidationState = (typeof VALIDATION_STATES)[number];
export const DEPENDENT_STATES = ['WAIT_USER_INPUT', 'WAIT_API', 'READY'] as const;
export type DependentState = (typeof DEPENDENT_STATES)[number];

export const DATA_CLASSES = ['file', 'record', 'applet', 'workflow', 'database'] as const;
export type DataClass = (typeof DATA_CLASSES)[number];
export type ScalarClass = 'string' | 'int' | 'float' | 'boolean' | 'hash';
export type FieldClass = ScalarClass | DataClass;
const FIELD_CLASSES: readonly string[] = ['string', 'int', 'float', 'boolean', 'hash', ...DATA_CLASSES];
const isFieldClass = (value: string): value is FieldClass => FIELD_CLASSES.includes(value);

/** A picked data object: what the form keeps to show it and to link to it. */
export interface DataRef {
  id: string;
  project?: string;
  name?: string;
}

/**
 * What the user gave for a field: text as typed (string, int, float, hash; one entry per item for
 * arrays), a boolean, or picked objects. `undefined`: nothing given.
 */
export type RawValue = string | string[] | boolean | DataRef[] | undefined;

/** A workflow input bound in the workflow itself: to another stage's output or input, or to a value. */
export type Binding =
  | { kind: 'stageOutput'; stage: string; field: string }
  | { kind: 'stageInput'; stage: string; field: string }
  | { kind: 'value'; value: unknown };

export interface FieldSpec {
  /** The run input's key: the field name, or `<stageId>.<field>` for workflows. */
  key: string;
  name: string;
  stage?: string;
  class: FieldClass;
  array: boolean;
  optional: boolean;
  /** The spec's default (apps and applets), as JSON. */
  default?: unknown;
  label: string;
  help?: string;
  choices?: unknown[];
  /** File-name globs the picker filters by. */
  patterns: string[];
  group?: string;
  /** Workflows: what the workflow binds this input to. */
  binding?: Binding;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function isDataClass(cls: FieldClass): cls is DataClass {
  return (DATA_CLASSES as readonly string[]).includes(cls);
}

/** `{"$dnanexus_link": …}` as a data reference, a stage link or nothing. */
export function readLink(value: unknown): { data?: DataRef; stage?: { stage: string; outputField?: string; inputField?: string } } | undefined {
  if (!isRecord(value) || !('$dnanexus_link' in value)) return undefined;
  const link = value.$dnanexus_link;
  if (typeof link === 'string') return { data: { id: link } };
  if (!isRecord(link)) return undefined;
  const stage = str(link.stage);
  if (stage) return { stage: { stage, outputField: str(link.outputField), inputField: str(link.inputField) } };
  const id = str(link.id);
  if (id) return { data: { id, project: str(link.project) } };
  return undefined;
}

export function dataLink(ref: DataRef): { $dnanexus_link: string | { project: string; id: string } } {
  return { $dnanexus_link: ref.project ? { project: ref.project, id: ref.id } : ref.id };
}

function patternsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((p): p is string => typeof p === 'string');
  if (isRecord(value) && Array.isArray(value.name)) return value.name.filter((p): p is string => typeof p === 'string');
  return [];
}

/**
 * The form's fields from an input spec. For a workflow spec (items carrying `stage`), a bound input
 * arrives as `optional` with its binding as `default`: it becomes the field's `binding`.
 */
export function fieldsFromSpec(spec: readonly unknown[] | null | undefined): FieldSpec[] {
  const fields: FieldSpec[] = [];
  for (const item of spec ?? []) {
    if (!isRecord(item)) continue;
    const key = str(item.name);
    const rawClass = str(item.class);
    if (!key || !rawClass) continue;
    const array = rawClass.startsWith('array:');
    const base = rawClass.replace(/^array:/, '');
    // A class the form does not know (a retired one such as gtable): typed as text, and said so in the help.
    const cls: FieldClass = isFieldClass(base) ? base : 'string';
    const stage = str(item.stage);
    const name = stage && key.startsWith(`${stage}.`) ? key.slice(stage.length + 1) : key;
    const field: FieldSpec = {
      key,
      name,
      ...(stage ? { stage } : {}),
      class: cls,
      array,
      optional: item.optional === true,
      label: str(item.label) ?? name,
      ...(isFieldClass(base)
        ? str(item.help)
          ? { help: str(item.help) }
          : {}
        : { help: `${str(item.help) ? `${str(item.help)} ` : ''}(Class ${base}: the form takes it as text.)` }),
      ...(Array.isArray(item.choices) ? { choices: item.choices } : {}),
      patterns: patternsOf(item.patterns),
      ...(str(item.group) ? { group: str(item.group) } : {}),
    };
    if ('default' in item && item.default !== undefined) {
      if (stage) {
        const link = readLink(item.default);
        if (link?.stage?.outputField) field.binding = { kind: 'stageOutput', stage: link.stage.stage, field: link.stage.outputField };
        else if (link?.stage?.inputField) field.binding = { kind: 'stageInput', stage: link.stage.stage, field: link.stage.inputField };
        else field.binding = { kind: 'value', value: item.default };
      } else {
        field.default = item.default;
      }
    }
    fields.push(field);
  }
  return fields;
}

/** The user's value for a JSON value of the field (a default, a bound value, an earlier run's input). */
export function rawFromJson(field: FieldSpec, value: unknown): RawValue {
  if (value === undefined || value === null) return undefined;
  const items = field.array ? (Array.isArray(value) ? value : [value]) : [value];
  if (isDataClass(field.class)) {
    const refs = items.map((item) => readLink(item)?.data ?? (typeof item === 'string' ? { id: item } : undefined)).filter((ref): ref is DataRef => !!ref);
    return refs.length ? refs : undefined;
  }
  if (field.class === 'boolean' && !field.array) return typeof value === 'boolean' ? value : undefined;
  const text = (item: unknown) => (field.class === 'hash' ? JSON.stringify(item, null, 2) : typeof item === 'string' ? item : JSON.stringify(item));
  return field.array ? items.map(text) : text(value);
}

/** The initial values: each field's default (bound workflow inputs stay unset: the workflow gives them). */
export function initialValues(fields: readonly FieldSpec[]): Record<string, RawValue> {
  const values: Record<string, RawValue> = {};
  for (const field of fields) values[field.key] = field.default !== undefined ? rawFromJson(field, field.default) : undefined;
  return values;
}

/** Values of an earlier run (`runInput` of a job or analysis) for the fields it names; unknown keys are reported. */
export function valuesFromRunInput(fields: readonly FieldSpec[], runInput: unknown): { values: Record<string, RawValue>; unknown: string[] } {
  const values: Record<string, RawValue> = {};
  const unknown: string[] = [];
  if (!isRecord(runInput)) return { values, unknown };
  const byKey = new Map(fields.map((field) => [field.key, field]));
  for (const [key, value] of Object.entries(runInput)) {
    const field = byKey.get(key);
    if (!field) {
      unknown.push(key);
      continue;
    }
    // A stage link in a re-run cannot be given again from the form: the workflow binds it.
    if (readLink(value)?.stage) continue;
    values[key] = rawFromJson(field, value);
  }
  return { values, unknown };
}

const isEmpty = (raw: RawValue): boolean =>
  raw === undefined ||
  (typeof raw === 'string' && raw.trim() === '') ||
  (Array.isArray(raw) && raw.every((item) => typeof item === 'string' && item.trim() === ''));

/** Whether the user gave something for the field. */
export function hasValue(raw: RawValue): boolean {
  return !isEmpty(raw);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

const INT = /^[+-]?\d+$/;

function parseScalar(field: FieldSpec, text: string): Parsed {
  const trimmed = text.trim();
  let value: unknown;
  switch (field.class) {
    case 'int':
      if (!INT.test(trimmed)) return { ok: false, error: `"${text}" is not a whole number` };
      value = Number(trimmed);
      if (!Number.isSafeInteger(value)) return { ok: false, error: `${trimmed} is too large for an integer` };
      break;
    case 'float':
      value = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(value)) return { ok: false, error: `"${text}" is not a number` };
      break;
    case 'boolean':
      if (trimmed !== 'true' && trimmed !== 'false') return { ok: false, error: 'Expected true or false' };
      value = trimmed === 'true';
      break;
    case 'hash':
      try {
        value = JSON.parse(trimmed);
      } catch {
        return { ok: false, error: 'Not valid JSON' };
      }
      if (!isRecord(value)) return { ok: false, error: 'Expected a JSON object ({…})' };
      break;
    default:
      value = text;
  }
  if (field.choices && !field.choices.some((choice) => JSON.stringify(choice) === JSON.stringify(value))) {
    return { ok: false, error: `Must be one of: ${field.choices.map((choice) => (typeof choice === 'string' ? choice : JSON.stringify(choice))).join(', ')}` };
  }
  return { ok: true, value };
}

/**
 * The field's JSON value for the run input. `value: undefined` means "leave it out" (an optional field
 * left empty, or a bound workflow input not overridden); a required empty field is an error.
 */
export function parseField(field: FieldSpec, raw: RawValue): Parsed {
  if (isEmpty(raw)) {
    if (field.optional || field.binding) return { ok: true, value: undefined };
    return { ok: false, error: field.array ? 'At least one item is required' : 'Required' };
  }
  if (isDataClass(field.class)) {
    if (!Array.isArray(raw) || raw.some((item) => typeof item === 'string')) return { ok: false, error: `Pick a ${field.class}` };
    const refs = raw as DataRef[];
    if (!field.array && refs.length > 1) return { ok: false, error: `Only one ${field.class} can be given` };
    const links = refs.map(dataLink);
    return { ok: true, value: field.array ? links : links[0] };
  }
  if (field.class === 'boolean' && !field.array) {
    if (typeof raw === 'boolean') return { ok: true, value: raw };
    return parseScalar(field, String(raw));
  }
  if (field.array) {
    const texts = (Array.isArray(raw) ? raw : [raw]).filter((item): item is string => typeof item === 'string' && item.trim() !== '');
    const values: unknown[] = [];
    for (const [index, text] of texts.entries()) {
      const parsed = parseScalar(field, text);
      if (!parsed.ok) return { ok: false, error: texts.length > 1 ? `Item ${index + 1}: ${parsed.error}` : parsed.error };
      values.push(parsed.value);
    }
    return { ok: true, value: values };
  }
  if (typeof raw !== 'string') return { ok: false, error: 'Unexpected value' };
  return parseScalar(field, raw);
}

/** Per field: the local check (once the user touched it or tried to run), else the server's error. */
export interface FieldStatus {
  state: ValidationState;
  error?: string;
}

/**
 * DEFAULT (nothing to say), LOADING (the field's objects are being checked with the API), ERROR (its
 * value is wrong, locally or according to the server). Local errors show once the field was touched
 * or a run was attempted; the server's error stays until the value changes.
 */
export function fieldStatus(
  field: FieldSpec,
  raw: RawValue,
  options: { touched: boolean; submitted: boolean; checking?: boolean; checkError?: string; serverError?: string },
): FieldStatus {
  if (options.checking) return { state: 'LOADING' };
  const parsed = parseField(field, raw);
  if (!parsed.ok && (options.touched || options.submitted)) return { state: 'ERROR', error: parsed.error };
  if (options.checkError) return { state: 'ERROR', error: options.checkError };
  if (options.serverError) return { state: 'ERROR', error: options.serverError };
  return { state: 'DEFAULT' };
}

/**
 * A dependent input (a workflow input bound to another stage's input or output):
 * WAIT_USER_INPUT while the input it follows has no value, WAIT_API while that input's objects are
 * being checked, READY when its value is known (or, for a stage output, will be made by the run).
 */
export function dependentState(
  field: FieldSpec,
  values: Readonly<Record<string, RawValue>>,
  fields: readonly FieldSpec[],
  checking: ReadonlySet<string> = new Set(),
): DependentState | undefined {
  const binding = field.binding;
  if (!binding || binding.kind === 'value') return undefined;
  if (binding.kind === 'stageOutput') return 'READY';
  const sourceKey = `${binding.stage}.${binding.field}`;
  const source = fields.find((candidate) => candidate.key === sourceKey);
  if (!source) return 'READY';
  if (checking.has(sourceKey)) return 'WAIT_API';
  if (hasValue(values[sourceKey]) || source.binding?.kind === 'value' || source.default !== undefined) return 'READY';
  // The source itself follows another input.
  if (source.binding) return dependentState(source, values, fields, checking);
  return 'WAIT_USER_INPUT';
}

/** The form as a whole: WAIT_USER_INPUT while a required field is empty or wrong, WAIT_API while something is checked or loading. */
export function formState(
  fields: readonly FieldSpec[],
  values: Readonly<Record<string, RawValue>>,
  options: { checking?: ReadonlySet<string>; loading?: boolean } = {},
): DependentState {
  if (options.loading || (options.checking && options.checking.size > 0)) return 'WAIT_API';
  return fields.every((field) => parseField(field, values[field.key]).ok) ? 'READY' : 'WAIT_USER_INPUT';
}

/** The run's `input` and the fields in error. Bound workflow inputs left alone are not sent (the workflow gives them). */
export function buildRunInput(
  fields: readonly FieldSpec[],
  values: Readonly<Record<string, RawValue>>,
): { input: Record<string, unknown>; errors: Record<string, string> } {
  const input: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    if (field.binding && field.binding.kind !== 'value') continue;
    const parsed = parseField(field, values[field.key]);
    if (!parsed.ok) errors[field.key] = parsed.error;
    else if (parsed.value !== undefined) input[field.key] = parsed.value;
  }
  return { input, errors };
}

/** Run options outside `input` that name a form control (so that their server errors show beside it). */
export const OPTION_FIELDS = ['project', 'folder', 'name', 'tags', 'costLimit', 'priority', 'systemRequirements', 'stageSystemRequirements'] as const;

/**
 * Where an InvalidInput error of a run belongs: `details.field` when the server names one (a field key,
 * `stageId.field`, or a run option), else the first quoted field key the message names; `undefined`
 * for errors that concern the whole run.
 */
export function errorField(fields: readonly FieldSpec[], details: unknown, message: string): string | undefined {
  const keys = new Set(fields.map((field) => field.key));
  const named = isRecord(details) ? str(details.field) : undefined;
  const candidates = [named, ...[...message.matchAll(/"([^"]+)"/g)].map((match) => match[1])];
  for (const candidate of candidates) {
    if (!candidate) continue;
    if (keys.has(candidate)) return candidate;
    // Applet errors name the field inside a workflow stage as "<field>" with the stage in details.
    const stageScoped = fields.find((field) => field.stage && field.key === candidate);
    if (stageScoped) return stageScoped.key;
    const option = (OPTION_FIELDS as readonly string[]).find((name) => candidate === name || candidate.startsWith(`${name}.`));
    if (option) return option;
  }
  return undefined;
}

/** Glob of a spec's `patterns` (`*` any run of characters, `?` one character), matched against the whole name. */
export function globToRegExp(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** Whether a name matches the field's patterns (no patterns: everything matches). */
export function matchesPatterns(patterns: readonly string[], name: string): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((pattern) => globToRegExp(pattern).test(name));
}

export interface FieldSection {
  /** The stage of a workflow (undefined for apps and applets). */
  stage?: string;
  /** The spec's `group` (undefined: the main inputs, shown first and open). */
  group?: string;
  fields: FieldSpec[];
}

/**
 * Fields in sections: per stage (workflows, in stage order), then per group in the order groups first
 * appear, the ungrouped fields first. Groups are collapsible; a group holding a required empty field
 * opens by itself (see `sectionNeedsAttention`).
 */
export function sections(fields: readonly FieldSpec[]): FieldSection[] {
  const result: FieldSection[] = [];
  const stages: (string | undefined)[] = [];
  for (const field of fields) if (!stages.includes(field.stage)) stages.push(field.stage);
  for (const stage of stages) {
    const ofStage = fields.filter((field) => field.stage === stage);
    const main = ofStage.filter((field) => !field.group);
    if (main.length) result.push({ ...(stage ? { stage } : {}), fields: main });
    const groups: string[] = [];
    for (const field of ofStage) if (field.group && !groups.includes(field.group)) groups.push(field.group);
    for (const group of groups) result.push({ ...(stage ? { stage } : {}), group, fields: ofStage.filter((field) => field.group === group) });
  }
  return result;
}

/** Whether a section holds a field that still needs the user (required and empty, or in error). */
export function sectionNeedsAttention(
  section: FieldSection,
  values: Readonly<Record<string, RawValue>>,
  errors: Readonly<Record<string, string | undefined>>,
): boolean {
  return section.fields.some((field) => !!errors[field.key] || (!field.binding && !parseField(field, values[field.key]).ok));
}

/** A binding as a line of text: "output trimmed_reads of stage-fastp". */
export function describeBinding(binding: Binding, stageNames: Readonly<Record<string, string | undefined>> = {}): string {
  const stage = (id: string) => (stageNames[id] ? `${stageNames[id]} (${id})` : id);
  if (binding.kind === 'stageOutput') return `Output "${binding.field}" of ${stage(binding.stage)}`;
  if (binding.kind === 'stageInput') return `Same as input "${binding.field}" of ${stage(binding.stage)}`;
  return 'Set in the workflow';
}
