import { randomBytes } from 'node:crypto';
import { io, localPath, readStdin } from '../io.js';
import fs from 'node:fs';
import { isApiError } from '@panx/client';
import { parseArgs } from '../args.js';
import { connect, readEnvironment } from '../environment.js';
import { ToolError, UsageError } from '../errors.js';
import { DATA_OBJECT_ID, isObject, JOB_ID, type JsonObject, LOCAL_JOB_ID, splitUnescaped } from '../links.js';
import { baseName, type Context, describeById, normalizePath, parentOf, resolveContainer, resolvePath, requireOne, splitProjectPath } from '../paths.js';

const USAGE = `usage: dx-jobutil-new-job [-h] [-i INPUT] [-j INPUT_JSON] [-f FILENAME] [--instance-type TYPE]
                          [--property KEY=VALUE] [--tag TAG] [--extra-args JSON] [--name NAME]
                          [--depends-on [JOB_OR_OBJECT_ID ...]] [--test] function

Creates a new job (a subjob of this one, sharing its workspace) to run the named function with the
specified input, and prints its ID.

  -i, --input NAME[:CLASS]=VALUE   An input; without a class, job-xxxx:field is a job-based reference,
                                   JSON (hash, list, number) is parsed, a data object ID becomes a link,
                                   a name of a data object in the workspace becomes a link, anything
                                   else a string. Repeat a name for an array.
  -j, --input-json JSON            The full input JSON
  -f, --input-json-file FILE       Load the input JSON from FILE ("-" for stdin)
  --instance-type TYPE             Instance type of the new job (or JSON {"entry point": "type"})
  --depends-on ID ...              Jobs and data objects that must be done or closed first
  --name NAME                      Name of the new job
  --property KEY=VALUE, --tag TAG  Properties and tags of the new job (repeatable)
  --extra-args JSON                Fields merged into the /job/new request
  --test                           Print the /job/new request instead of sending it
`;

const SCALAR_CLASSES = ['boolean', 'string', 'float', 'int', 'hash', 'job', 'app'];
const OBJECT_CLASSES = ['file', 'record', 'applet', 'workflow', 'database'];

function parseBool(value: string): boolean {
  const lower = value.toLowerCase();
  if (value.length) {
    if ('true'.startsWith(lower) || value === '1') return true;
    if ('false'.startsWith(lower) || value === '0') return false;
  }
  throw new ToolError(`Could not resolve "${value}" to a boolean`);
}

/** A JBOR for "job-xxxx:field" or "job-xxxx:field.N" (index N of an array output). */
function jobReference(value: string): JsonObject | undefined {
  const pieces = splitUnescaped(':', value);
  if (pieces.length !== 2 || !(JOB_ID.test(pieces[0] as string) || LOCAL_JOB_ID.test(pieces[0] as string))) return undefined;
  const [job, field] = pieces as [string, string];
  const dot = field.lastIndexOf('.');
  if (dot > 0 && /^\d+$/.test(field.slice(dot + 1))) return { $dnanexus_link: { job, field: field.slice(0, dot), index: Number(field.slice(dot + 1)) } };
  return { $dnanexus_link: { job, field } };
}

/** A value of a known scalar class, as dx's ExecutableInputs parses it. */
function scalar(cls: string, value: string): unknown {
  switch (cls) {
    case 'boolean':
      return parseBool(value);
    case 'string':
      return value;
    case 'float': {
      const number = Number(value.trim());
      if (!value.trim() || !Number.isFinite(number)) throw new ToolError(`could not parse "${value}" as float`);
      return number;
    }
    case 'int': {
      if (!/^\s*[+-]?\d+\s*$/.test(value)) throw new ToolError(`could not parse "${value}" as int`);
      return Number(value);
    }
    case 'hash':
      return JSON.parse(value);
    default:
      return { $dnanexus_link: value };
  }
}

interface Pending {
  name: string;
  value: string;
  /** A data object class the value must resolve to; undefined: resolve if it names something, else keep the string. */
  cls?: string;
  /** Where the resolved value goes. */
  put: (value: unknown) => void;
}

/** Resolves a name or path to a data object link, with its project (or by ID, without one), as dx run does. */
async function resolveObject(ctx: Context, value: string, cls: string | undefined): Promise<unknown> {
  const { path } = splitProjectPath(value);
  if (DATA_OBJECT_ID.test(path.replace(/^\/+/, ''))) {
    const id = path.replace(/^\/+/, '');
    if (cls) {
      const info = await describeById(ctx, id);
      if (info.class !== cls) throw new ToolError(`${id} is a ${info.class} but an object of class ${cls} was expected`);
    }
    return { $dnanexus_link: id };
  }
  if (!cls) {
    // Plain words (modes, labels...) are kept as strings when nothing in the container has that name.
    let matches: { project: string; id: string }[];
    try {
      const { projectSpec } = splitProjectPath(value);
      const container = projectSpec ? await resolveContainer(ctx.client, projectSpec) : ctx.environment.defaultContainer;
      const full = normalizePath(projectSpec ? '/' : ctx.environment.cwd, path);
      if (!container || full === '/') return value;
      const found = (await ctx.client.call('system/resolveDataObjects', {
        project: container,
        objects: [{ name: baseName(full), folder: parentOf(full) }],
      })) as { results: { project: string; id: string }[][] };
      matches = found.results[0] ?? [];
    } catch (error) {
      if (error instanceof ToolError || isApiError(error)) return value;
      throw error;
    }
    if (matches.length > 1) throw new ToolError(`"${value}" names ${matches.length} data objects: give an ID`);
    const [match] = matches;
    return match ? { $dnanexus_link: { project: match.project, id: match.id } } : value;
  }
  const object = requireOne(await resolvePath(ctx, value), value, cls);
  return { $dnanexus_link: { project: object.project, id: object.id } };
}

/** The `input` of /job/new from -i, -j and -f, as dx's ExecutableInputs builds it without an input spec. */
async function buildInput(ctx: () => Context, specs: string[], json: string | undefined, jsonFile: string | undefined): Promise<JsonObject> {
  const input: JsonObject = {};
  const merge = (text: string, source: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ToolError(`Error while parsing input JSON${source}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!isObject(parsed)) throw new ToolError(`Error while parsing input JSON${source}: not a JSON object`);
    Object.assign(input, parsed);
  };
  if (jsonFile !== undefined) merge(jsonFile === '-' ? await readStdin() : fs.readFileSync(localPath(jsonFile), 'utf8'), ` file ${jsonFile}`);
  if (json !== undefined) merge(json, '');

  // Without a spec every value is collected in a list; single values are unwrapped at the end.
  const collected = new Map<string, unknown[]>();
  const arrays = new Set<string>();
  const pending: Pending[] = [];
  for (const spec of specs) {
    const cut = spec.indexOf('=');
    if (cut <= 0) throw new UsageError(`an input must be given as NAME=VALUE, got "${spec}"`);
    let name = spec.slice(0, cut);
    const value = spec.slice(cut + 1);
    let cls: string | undefined;
    if (name.includes(':')) [name, cls] = [name.slice(0, name.indexOf(':')), name.slice(name.indexOf(':') + 1)];
    const base = cls?.replace(/^array:/, '');
    if (cls?.startsWith('array:') || cls === 'array') arrays.add(name);
    const list = collected.get(name) ?? [];
    collected.set(name, list);
    const slot = list.length;
    list.push(undefined);
    const put = (resolved: unknown) => {
      list[slot] = resolved;
    };
    const reference = jobReference(value);
    if (reference) put(reference);
    else if (base === undefined || base === 'array') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        parsed = undefined;
      }
      if (parsed !== null && (typeof parsed === 'number' || typeof parsed === 'object')) put(parsed);
      else pending.push({ name, value, put });
    } else if (SCALAR_CLASSES.includes(base)) {
      try {
        put(scalar(base, value));
      } catch (error) {
        throw new ToolError(
          `Value provided for input field "${name}" could not be parsed as ${cls}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    } else if (OBJECT_CLASSES.includes(base)) pending.push({ name, value, cls: base, put });
    else throw new UsageError(`unknown input class "${cls}" for ${name}`);
  }
  for (const item of pending) item.put(await resolveObject(ctx(), item.value, item.cls));
  for (const [name, values] of collected) input[name] = values.length === 1 && !arrays.has(name) ? values[0] : values;
  return input;
}

/** `--instance-type T` → {"<function>": {instanceType: T}}; JSON {"entry": "T"} sets several entry points. */
function systemRequirements(fn: string, value: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { [fn]: { instanceType: value } };
  }
  if (!isObject(parsed)) return { [fn]: { instanceType: value } };
  return Object.fromEntries(Object.entries(parsed).map(([entry, type]) => [entry, isObject(type) ? type : { instanceType: type }]));
}

function deepMerge(target: JsonObject, extra: JsonObject): JsonObject {
  for (const [key, value] of Object.entries(extra)) {
    const current = target[key];
    target[key] = isObject(current) && isObject(value) ? deepMerge({ ...current }, value) : value;
  }
  return target;
}

/** dxpy's nonce: 64 hex characters and the time. */
export const newNonce = () => `${randomBytes(32).toString('hex')}${(Date.now() / 1000).toFixed(6)}`;

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, [
    { names: ['-h', '--help'], key: 'help', kind: 'flag' },
    { names: ['-i', '--input'], key: 'input', kind: 'list' },
    { names: ['-j', '--input-json'], key: 'inputJson', kind: 'value' },
    { names: ['-f', '--input-json-file'], key: 'inputJsonFile', kind: 'value' },
    { names: ['--instance-type'], key: 'instanceType', kind: 'value' },
    { names: ['--depends-on'], key: 'dependsOn', kind: 'rest' },
    { names: ['--name'], key: 'name', kind: 'value' },
    { names: ['--property'], key: 'property', kind: 'list' },
    { names: ['--tag'], key: 'tag', kind: 'list' },
    { names: ['--extra-args'], key: 'extraArgs', kind: 'value' },
    { names: ['--test'], key: 'test', kind: 'flag' },
  ]);
  if (args.flag('help')) {
    io().stdout.write(USAGE);
    return 0;
  }
  if (args.positionals.length !== 1) throw new UsageError('usage: dx-jobutil-new-job [options] function (see --help)');
  const fn = args.positionals[0] as string;
  const environment = readEnvironment();
  let context: Context | undefined;
  const ctx = () => {
    context ??= { client: connect(environment, 'dx-jobutil-new-job'), environment };
    return context;
  };
  const body: JsonObject = { function: fn };
  const name = args.value('name');
  if (name !== undefined) body.name = name;
  if (args.has('dependsOn')) body.dependsOn = args.list('dependsOn');
  const instanceType = args.value('instanceType');
  if (instanceType !== undefined) body.systemRequirements = systemRequirements(fn, instanceType);
  if (args.has('property')) {
    const properties: Record<string, string> = {};
    for (const pair of args.list('property')) {
      const cut = pair.indexOf('=');
      if (cut <= 0) throw new UsageError(`--property "${pair}" is not KEY=VALUE`);
      properties[pair.slice(0, cut)] = pair.slice(cut + 1);
    }
    body.properties = properties;
  }
  if (args.has('tag')) body.tags = args.list('tag');
  const extra = args.value('extraArgs');
  if (extra !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(extra);
    } catch {
      parsed = undefined;
    }
    if (!isObject(parsed)) throw new UsageError('--extra-args must be a JSON object');
    deepMerge(body, parsed);
  }
  body.input = await buildInput(ctx, args.list('input'), args.value('inputJson'), args.value('inputJsonFile'));
  if (args.flag('test')) {
    io().stdout.write(`${JSON.stringify(body)}\n`);
    return 0;
  }
  if (!environment.jobId) throw new ToolError('DX_JOB_ID is not set: new jobs can only be started from inside a job');
  const { id } = (await ctx().client.post('job', 'new', { ...body, nonce: newNonce() })) as { id: string };
  io().stdout.write(`${id}\n`);
  return 0;
}
