import path from 'node:path';
import { type IoSpecItem, type JobInput, planInputFiles, unixFileName } from './job-files.js';
import { dxLink } from './links.js';
import { pythonJson, shellQuote } from './python-format.js';

/**
 * The bash variables of a job's input, exactly as DNAnexus defines them before running a bash entry
 * point (dxpy/utils/file_load_utils.py gen_bash_vars, printed by dx-print-bash-vars):
 *
 * - every input that is not a file: `X=<value>`, strings as they are and anything else as Python's
 *   json.dumps, shell-quoted; arrays as `X=( a b )`;
 * - every file input, and arrays of files: `X`, `X_name`, `X_prefix` and `X_path`, always as bash
 *   arrays (`X=( '{"$dnanexus_link": "file-…"}' )`; `$X` is the first element), where `X_path` is
 *   `<home>/in/X/<name>` (arrays: `<home>/in/X/<i>/<name>`) and `X_prefix` is the name without
 *   the part a `*` of an inputSpec `patterns` entry matched (shortest such prefix), or else without its
 *   last extension (and `.gz` before it);
 * - non-file variables come first, in input order, then the four variables of each file input;
 * - a name already in the environment, or defined earlier, is skipped (DNAnexus warns on stderr).
 */

export interface BashVar {
  name: string;
  /** The right-hand side, already shell-quoted: `name=value` is valid bash. */
  value: string;
}

export interface BashVarsOptions {
  /** The job's home; `X_path` values are `<home>/in/...`. */
  home: string;
  /** The name of every file the input links to, by file ID (from a describe; see describeInputFile). */
  fileNames: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  /** The variables of the environment the file will be sourced in; inputs with these names are skipped. */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Called with each skipped name (dx-print-bash-vars warns on stderr). */
  onCollision?: (name: string) => void;
}

/** Python's fnmatch.fnmatch (POSIX, case-sensitive): `*`, `?`, `[seq]`, `[!seq]`. */
export function fnmatch(name: string, pattern: string): boolean {
  let regex = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '*') regex += '.*';
    else if (char === '?') regex += '.';
    else if (char === '[') {
      const end = pattern.indexOf(']', pattern[i + 1] === '!' ? i + 3 : i + 2);
      if (end < 0) regex += '\\[';
      else {
        let set = pattern.slice(i + 1, end).replaceAll('\\', '\\\\');
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        else if (set.startsWith('^')) set = `\\${set}`;
        regex += `[${set}]`;
        i = end;
      }
    } else regex += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${regex}$`, 's').test(name);
}

/** Python's os.path.splitext on a base name: leading dots do not start an extension. */
export function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || /^\.+$/.test(name.slice(0, dot + 1))) return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** The `X_prefix` of a file name, given the input's patterns. */
export function filePrefix(name: string, patterns: readonly string[] | undefined): string {
  let best: string | undefined;
  for (const pattern of patterns ?? []) {
    if (!fnmatch(name, pattern)) continue;
    // As dxpy: cut the text after the last "*" (nothing, when the pattern ends with "*").
    const right = pattern.slice(pattern.lastIndexOf('*') + 1);
    const prefix = right.length ? name.slice(0, name.length - right.length) : '';
    if (best === undefined || prefix.length < best.length) best = prefix;
  }
  if (best !== undefined) return best;
  let [stem, extension] = splitExtension(name);
  if (extension === '.gz') [stem] = splitExtension(stem);
  return stem;
}

/** The usable patterns of each input (those with a `*`; pattern objects are ignored, as by dxpy). */
function patternsBySpec(inputSpec: readonly IoSpecItem[] | undefined): Map<string, string[]> {
  const patterns = new Map<string, string[]>();
  for (const item of inputSpec ?? []) {
    if (!Array.isArray(item.patterns)) continue;
    patterns.set(
      item.name,
      item.patterns.filter((pattern): pattern is string => typeof pattern === 'string' && pattern.includes('*')),
    );
  }
  return patterns;
}

function isFloatClass(inputSpec: readonly IoSpecItem[] | undefined, name: string): boolean {
  const cls = inputSpec?.find((item) => item.name === name)?.class;
  return cls === 'float' || cls === 'array:float';
}

function element(value: unknown, float: boolean): string {
  return shellQuote(typeof value === 'string' ? value : pythonJson(value, { float }));
}

function bashValue(value: unknown, float = false): string {
  if (Array.isArray(value)) return `( ${value.map((item) => element(item, float)).join(' ')} )`;
  return element(value, float);
}

/**
 * The variables for `input` (the job's job_input.json). `inputSpec` is the executable's inputSpec
 * for the `main` entry point (its `patterns` shape `X_prefix`, its float classes keep `1.0` a float);
 * pass undefined for subjobs, as DNAnexus applies no spec there.
 */
export function bashVarsFor(input: JobInput, inputSpec: readonly IoSpecItem[] | undefined, options: BashVarsOptions): BashVar[] {
  const names = options.fileNames;
  const nameOf = (id: string): string => {
    const name = names instanceof Map ? names.get(id) : (names as Record<string, string>)[id];
    if (name === undefined) throw new Error(`bashVarsFor: no name given for ${id}`);
    return unixFileName(name);
  };
  const { files } = planInputFiles(input);
  const fileInputs = new Map<string, { links: string[]; names: string[]; prefixes: string[]; paths: string[] }>();
  const patterns = patternsBySpec(inputSpec);
  for (const file of files) {
    const name = nameOf(file.id);
    let entry = fileInputs.get(file.input);
    if (!entry) {
      entry = { links: [], names: [], prefixes: [], paths: [] };
      fileInputs.set(file.input, entry);
    }
    entry.links.push(shellQuote(pythonJson(dxLink(file.id))));
    entry.names.push(shellQuote(name));
    entry.prefixes.push(shellQuote(filePrefix(name, patterns.get(file.input))));
    entry.paths.push(shellQuote(path.join(options.home, 'in', file.dir, name)));
  }

  const vars: BashVar[] = [];
  const defined = new Set<string>();
  const define = (name: string, value: string) => {
    if (defined.has(name) || (options.environment && Object.hasOwn(options.environment, name))) {
      options.onCollision?.(name);
      return;
    }
    defined.add(name);
    vars.push({ name, value });
  };
  const array = (items: string[]) => `( ${items.join(' ')} )`;
  // Non-file inputs first, so that on a name collision the file variables are the ones dropped.
  for (const [name, value] of Object.entries(input)) if (!fileInputs.has(name)) define(name, bashValue(value, isFloatClass(inputSpec, name)));
  for (const [name, entry] of fileInputs) {
    define(name, array(entry.links));
    define(`${name}_name`, array(entry.names));
    define(`${name}_prefix`, array(entry.prefixes));
    define(`${name}_path`, array(entry.paths));
  }
  return vars;
}

/** Variables at or over this length make dx-print-bash-vars print a warning first. */
export const LONG_BASH_VAR = 16 * 1024;

/**
 * The vars as text: `export X=...` lines as dx-print-bash-vars prints them (with an `echo` warning
 * before very long ones), or, with `export: false`, plain `X=...` lines as the local emulator writes
 * its `environment` file.
 */
export function formatBashVars(vars: readonly BashVar[], options: { export?: boolean } = {}): string {
  const exported = options.export ?? true;
  let text = '';
  for (const { name, value } of vars) {
    const length = [...value].length;
    if (exported && length >= LONG_BASH_VAR) text += `echo "warning: variable ${name} is long (${length} bytes)"\n`;
    text += `${exported ? 'export ' : ''}${name}=${value}\n`;
  }
  return text;
}
