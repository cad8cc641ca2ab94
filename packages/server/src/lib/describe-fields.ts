import type { DescribeOptions } from '@panx/contract';

const LEGACY_FLAGS = ['properties', 'details', 'folders', 'parts', 'size', 'drive', 'md5', 'checksumType'] as const;

/**
 * Which fields a describe call asks for, following DNAnexus: `fields` alone means only those (plus
 * id); `defaultFields: true` with `fields` adds the true ones to the defaults and drops the false
 * ones; legacy top-level booleans (`properties`, `details`, `folders`, `parts`, ...) add a field;
 * `io: false` drops input and output.
 */
export function fieldSelector(options: DescribeOptions | boolean | undefined, defaults: readonly string[]): (field: string) => boolean {
  const opts: DescribeOptions = typeof options === 'object' && options !== null ? options : {};
  const explicit = opts.fields ?? undefined;
  let selected: Set<string>;
  if (explicit && !opts.defaultFields) {
    selected = new Set([
      'id',
      ...Object.entries(explicit)
        .filter(([, on]) => on)
        .map(([name]) => name),
    ]);
  } else {
    selected = new Set(defaults);
    for (const [name, on] of Object.entries(explicit ?? {})) {
      if (on) selected.add(name);
      else selected.delete(name);
    }
  }
  for (const flag of LEGACY_FLAGS) {
    if (opts[flag] === true) selected.add(flag);
    if (opts[flag] === false && !explicit) selected.delete(flag);
  }
  if (opts.io === false) {
    selected.delete('input');
    selected.delete('output');
  }
  return (field) => selected.has(field);
}

/** Builds a describe object from lazily computed fields, computing only what was asked for. */
export function pickFields(want: (field: string) => boolean, fields: Record<string, () => unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, compute] of Object.entries(fields)) {
    if (want(name)) result[name] = compute();
  }
  return result;
}
