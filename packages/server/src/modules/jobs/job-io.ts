import { createHash } from 'node:crypto';
import type { IoSpecItem } from '@panx/contract';
import { invalidInput } from '../../errors.js';

/** A `$dnanexus_link` to a data object (with the project it was named in, when given). */
export interface ObjectRef {
  id: string;
  project?: string;
}
/** A job-based object reference: `{"$dnanexus_link": {"job", "field", "index"?}}` or the bare legacy form. */
export interface Jbor {
  job: string;
  field: string;
  index?: number;
}

const OBJECT_ID = /^(file|record|applet|workflow|database)-[0-9A-Za-z]{24}$/;
const JOB_ID = /^job-[0-9A-Za-z]{24}$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object a value links to, if it is an object link. */
export function objectRefOf(value: unknown): ObjectRef | undefined {
  if (!isPlainObject(value) || !('$dnanexus_link' in value)) return undefined;
  const link = value.$dnanexus_link;
  if (typeof link === 'string') return OBJECT_ID.test(link) ? { id: link } : undefined;
  if (isPlainObject(link) && typeof link.id === 'string' && OBJECT_ID.test(link.id)) {
    return typeof link.project === 'string' ? { id: link.id, project: link.project } : { id: link.id };
  }
  return undefined;
}

/** The job reference a value is, in the `$dnanexus_link` form or (outputs of dx-jobutil-add-output) the bare one. */
export function jborOf(value: unknown): Jbor | undefined {
  if (!isPlainObject(value)) return undefined;
  const body =
    '$dnanexus_link' in value ? value.$dnanexus_link : Object.keys(value).every((key) => ['job', 'field', 'index'].includes(key)) ? value : undefined;
  if (!isPlainObject(body) || typeof body.job !== 'string' || typeof body.field !== 'string' || !JOB_ID.test(body.job)) return undefined;
  if (body.index !== undefined && !(typeof body.index === 'number' && Number.isInteger(body.index) && body.index >= 0)) return undefined;
  return body.index === undefined ? { job: body.job, field: body.field } : { job: body.job, field: body.field, index: body.index };
}

/** Top-level values and array elements: where links and references count for an executable's I/O. */
function elements(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/** Every object link among the fields' values, with the field (`key`) it is in. */
export function objectRefsIn(io: Record<string, unknown>): (ObjectRef & { key: string })[] {
  return Object.entries(io).flatMap(([key, value]) =>
    elements(value).flatMap((element) => {
      const ref = objectRefOf(element);
      return ref ? [{ ...ref, key }] : [];
    }),
  );
}

/** Every job reference among the fields' values, with the field (`key`) it is in. */
export function jborsIn(io: Record<string, unknown>): (Jbor & { key: string })[] {
  return Object.entries(io).flatMap(([key, value]) =>
    elements(value).flatMap((element) => {
      const ref = jborOf(element);
      return ref ? [{ ...ref, key }] : [];
    }),
  );
}

/** The value a reference stands for in the referenced job's output; throws a message when it has none. */
export function valueOfJbor(ref: Jbor, output: Record<string, unknown>): unknown {
  if (!(ref.field in output)) throw new Error(`${ref.job} has no output field "${ref.field}"`);
  const value = output[ref.field];
  if (ref.index === undefined) return value;
  if (!Array.isArray(value) || ref.index >= value.length) throw new Error(`${ref.job}'s output "${ref.field}" has no element ${ref.index}`);
  return value[ref.index];
}

/**
 * Replaces the references whose jobs are done (`outputs` by job id). Links are rewritten to the
 * plain `{"$dnanexus_link": "file-xxxx"}` form, as a job's input and output show them.
 */
export function substitute(io: Record<string, unknown>, outputs: Map<string, Record<string, unknown>>): Record<string, unknown> {
  const one = (value: unknown): unknown => {
    const ref = jborOf(value);
    if (ref) {
      const output = outputs.get(ref.job);
      return output ? normalizeLinks(valueOfJbor(ref, output)) : value;
    }
    return normalizeLinks(value);
  };
  return Object.fromEntries(Object.entries(io).map(([field, value]) => [field, Array.isArray(value) ? value.map(one) : one(value)]));
}

function normalizeLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeLinks);
  const ref = objectRefOf(value);
  return ref ? { $dnanexus_link: ref.id } : value;
}

function classOfLinkTarget(id: string): string {
  return id.slice(0, id.indexOf('-'));
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Whether one value fits a (non-array) I/O class. References stand for any class until resolved. */
function fitsClass(value: unknown, cls: string): boolean {
  if (jborOf(value)) return true;
  switch (cls) {
    case 'string':
      return typeof value === 'string';
    case 'int':
      return typeof value === 'number' && Number.isInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'hash':
      return isPlainObject(value) && objectRefOf(value) === undefined;
    default: {
      const ref = objectRefOf(value);
      return ref !== undefined && classOfLinkTarget(ref.id) === cls;
    }
  }
}

function sameChoice(value: unknown, choice: unknown): boolean {
  const ref = objectRefOf(value);
  const choiceRef = objectRefOf(choice);
  if (ref || choiceRef) return ref?.id === choiceRef?.id;
  return JSON.stringify(value) === JSON.stringify(choice);
}

/**
 * Checks an executable's input (or output) against its spec: known fields, required ones present
 * (defaults filled in), classes (with arrays), choices. Throws InvalidInput naming the field. With
 * no spec, anything goes.
 */
export function checkAgainstSpec(
  spec: readonly IoSpecItem[] | null | undefined,
  values: Record<string, unknown>,
  options: { what: 'input' | 'output'; applyDefaults: boolean },
): Record<string, unknown> {
  if (!spec) return { ...values };
  const result: Record<string, unknown> = {};
  const known = new Set(spec.map((item) => item.name));
  for (const field of Object.keys(values)) {
    if (!known.has(field)) {
      throw invalidInput(`${options.what} field "${field}" is not in the ${options.what} spec (known fields: ${[...known].join(', ') || 'none'})`, { field });
    }
  }
  for (const item of spec) {
    const isArray = item.class.startsWith('array:');
    const cls = item.class.replace(/^array:/, '');
    let value = values[item.name];
    if (value === undefined || value === null) {
      if (options.applyDefaults && item.default !== undefined) value = item.default;
      else if (item.optional) continue;
      else throw invalidInput(`${options.what} field "${item.name}" (class ${item.class}) is required but was not given`, { field: item.name });
    }
    if (isArray) {
      if (jborOf(value)) {
        result[item.name] = value;
        continue;
      }
      if (!Array.isArray(value))
        throw invalidInput(`${options.what} field "${item.name}" must be an array of ${cls}, not ${describeValue(value)}`, { field: item.name });
      value.forEach((element, index) => {
        if (!fitsClass(element, cls)) {
          throw invalidInput(`${options.what} field "${item.name}"[${index}] must be of class ${cls}, not ${describeValue(element)}`, { field: item.name });
        }
      });
    } else if (!fitsClass(value, cls)) {
      throw invalidInput(`${options.what} field "${item.name}" must be of class ${cls}, not ${describeValue(value)}`, { field: item.name });
    }
    if (item.choices?.length) {
      for (const element of elements(value)) {
        if (jborOf(element)) continue;
        if (!item.choices.some((choice) => sameChoice(element, choice))) {
          throw invalidInput(
            `${options.what} field "${item.name}" must be one of ${item.choices.map(describeValue).join(', ')}, not ${describeValue(element)}`,
            { field: item.name },
          );
        }
      }
    }
    result[item.name] = value;
  }
  return result;
}

/** The glob patterns of a spec item (`["*.bam"]` or `{"name": ["*.bam"]}`). */
export function namePatterns(item: IoSpecItem): string[] {
  const patterns = item.patterns;
  if (!patterns) return [];
  if (Array.isArray(patterns)) return patterns;
  return patterns.name ?? [];
}

/** `*` and `?` globs, as DNAnexus patterns use them. */
export function globMatches(name: string, pattern: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    's',
  );
  return regex.test(name);
}

/** JSON with sorted keys, so that equal values hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Jobs with the same key would compute the same thing: same executable, entry point, input and instance type. */
export function reuseKeyOf(parts: { executable: string; function: string; input: Record<string, unknown>; instanceType: string }): string {
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}
