/**
 * The input variables of a bash entry point, as DNAnexus defines them (dxpy's file_load_utils
 * gen_bash_vars, which dx-print-bash-vars prints): every input that is not a file is `X=<value>`
 * (strings as they are, anything else as Python's json.dumps), arrays `X=( a b )`; every file input
 * (and array of files) defines the arrays `X` (its links), `X_name`, `X_prefix` and `X_path`
 * (`$HOME/in/X/<name>`, or `$HOME/in/X/<i>/<name>` with `i` zero-padded for arrays). Non-file
 * variables come first; names already in the environment are skipped.
 */

interface SpecItem {
  name: string;
  patterns?: unknown;
}

const FILE_ID = /^file-[0-9A-Za-z]{24}$/;

function fileIdOf(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const link = (value as Record<string, unknown>).$dnanexus_link;
  if (typeof link === 'string') return FILE_ID.test(link) ? link : undefined;
  if (link && typeof link === 'object' && typeof (link as { id?: unknown }).id === 'string') {
    const id = (link as { id: string }).id;
    return FILE_ID.test(id) ? id : undefined;
  }
  return undefined;
}

/** Python's pipes.quote / shlex.quote. */
export function shellQuote(text: string): string {
  if (text === '') return "''";
  if (!/[^\w@%+=:,./-]/.test(text)) return text;
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}

/** Python's json.dumps with its default separators and ensure_ascii. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${pythonJson(key)}: ${pythonJson(item)}`)
    .join(', ')}}`;
}

/** Python's fnmatch for the `*` and `?` patterns inputSpecs use. */
function fnmatch(name: string, pattern: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`, 's').test(name);
}

/** os.path.splitext of a base name. */
function splitext(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.slice(0, dot).replace(/\./g, '') === '') return [name, ''];
  return [name.slice(0, dot), name.slice(dot)];
}

/** The name without what a matching pattern's `*` leaves out (shortest), else without its extension (and .gz). */
export function filePrefix(name: string, patterns: readonly string[]): string {
  let best: string | undefined;
  for (const pattern of patterns) {
    if (!pattern.includes('*') || !fnmatch(name, pattern)) continue;
    const right = pattern.slice(pattern.lastIndexOf('*') + 1);
    const candidate = name.slice(0, name.length - right.length);
    if (best === undefined || candidate.length < best.length) best = candidate;
  }
  if (best !== undefined) return best;
  let [stem, ext] = splitext(name);
  if (ext === '.gz') [stem] = splitext(stem);
  return stem;
}

function patternsOf(item: SpecItem | undefined): string[] {
  const patterns = item?.patterns;
  if (Array.isArray(patterns)) return patterns.filter((p): p is string => typeof p === 'string');
  if (patterns && typeof patterns === 'object' && Array.isArray((patterns as { name?: unknown }).name)) {
    return ((patterns as { name: unknown[] }).name ?? []).filter((p): p is string => typeof p === 'string');
  }
  return [];
}

export interface BashVarsInput {
  input: Record<string, unknown>;
  /** The inputSpec (for patterns); only the main entry point has one. */
  inputSpec: readonly SpecItem[] | null | undefined;
  fileNames: ReadonlyMap<string, string>;
  home: string;
  /** Names already defined in the job's environment. */
  environment: Readonly<Record<string, string | undefined>>;
}

/** The lines of the variables file, and the names skipped because they collide. */
export function bashVars({ input, inputSpec, fileNames, home, environment }: BashVarsInput): { lines: string[]; skipped: string[] } {
  const defined = new Map<string, string>();
  const skipped: string[] = [];
  const define = (name: string, value: string) => {
    if (name in environment || defined.has(name)) skipped.push(name);
    else defined.set(name, value);
  };
  const element = (value: unknown) => shellQuote(typeof value === 'string' ? value : pythonJson(value));
  const array = (values: readonly unknown[]) => `( ${values.map(element).join(' ')} )`;

  const files = new Map<string, { link: unknown; name: string; path: string }[]>();
  for (const [key, value] of Object.entries(input)) {
    const entries: { link: unknown; name: string; path: string }[] = [];
    const add = (item: unknown, subdir: string | undefined) => {
      const id = fileIdOf(item);
      if (!id) return;
      const name = (fileNames.get(id) ?? id).replace(/\//g, '%2F');
      entries.push({ link: { $dnanexus_link: id }, name, path: [home, 'in', key, ...(subdir === undefined ? [] : [subdir]), name].join('/') });
    };
    if (Array.isArray(value)) {
      const digits = String(Math.max(0, value.length - 1)).length;
      for (const [index, item] of value.entries()) add(item, String(index).padStart(digits, '0'));
    } else add(value, undefined);
    if (entries.length) files.set(key, entries);
  }
  for (const [key, value] of Object.entries(input)) {
    if (!files.has(key)) define(key, Array.isArray(value) ? array(value) : element(value));
  }
  for (const [key, entries] of files) {
    const patterns = patternsOf(inputSpec?.find((item) => item.name === key));
    define(key, array(entries.map((entry) => entry.link)));
    define(`${key}_name`, array(entries.map((entry) => entry.name)));
    define(`${key}_prefix`, array(entries.map((entry) => filePrefix(entry.name, patterns))));
    define(`${key}_path`, array(entries.map((entry) => entry.path)));
  }
  return { lines: [...defined].map(([name, value]) => `export ${name}=${value}`), skipped };
}

/** The file ids an input links to (to look their names up). */
export function fileIdsIn(input: Record<string, unknown>): string[] {
  return Object.values(input).flatMap((value) => (Array.isArray(value) ? value : [value]).map(fileIdOf).filter((id): id is string => id !== undefined));
}
