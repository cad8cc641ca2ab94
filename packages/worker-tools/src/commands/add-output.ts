import { parseArgs } from '../args.js';
import { io } from '../io.js';
import { homeDir } from '../environment.js';
import { ToolError, UsageError } from '../errors.js';
import { jobOutputPath } from '../job-files.js';
import { ANALYSIS_ID, DATA_OBJECT_ID, isObject, JOB_ID, LOCAL_JOB_ID, splitUnescaped, unescapeName } from '../links.js';
import { updateOutputJson } from '../output-json.js';

const USAGE = `usage: dx-jobutil-add-output [-h] [--class [CLASSNAME]] [--array] name value

Reads and modifies job_output.json in your home directory (under a lock) to be a JSON hash with key
*name* and value *value*.

With --class auto (the default) the value becomes: a link for a data object ID (file-xxxx...), a
job-based object reference {"job", "field"} for <job ID>:<field>, an analysis reference for
<analysis ID>:<field>, the parsed value when it is JSON (number, boolean, hash...), else a string.
Other classes: int, float, string, boolean, hash, file, record, applet, workflow, jobref,
analysisref, and array:<class>. --array (or an array: class) appends to an array.
`;

const CLASSES = ['auto', 'int', 'float', 'string', 'boolean', 'hash', 'file', 'gtable', 'record', 'applet', 'workflow', 'jobref', 'analysisref'];

/** dx exits 3 when the value does not parse as the class. */
const parseFailure = (message: string) => new ToolError(message, 3);

function jobReference(value: string): unknown {
  const pieces = splitUnescaped(':', value);
  if (pieces.length === 2 && (JOB_ID.test(pieces[0] as string) || LOCAL_JOB_ID.test(pieces[0] as string))) {
    // The bare form {"job", "field"} (not wrapped in $dnanexus_link), as dx-jobutil-add-output writes it.
    return { job: pieces[0], field: unescapeName(pieces[1] as string) };
  }
  return undefined;
}

function analysisReference(value: string): unknown {
  const pieces = splitUnescaped(':', value);
  if (pieces.length === 2 && ANALYSIS_ID.test(pieces[0] as string)) return { $dnanexus_link: { analysis: pieces[0], field: pieces[1] } };
  return undefined;
}

function parseJson(value: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}

/** The value as dx-jobutil-add-output turns it into JSON for the class (without "array:"). */
export function outputValue(value: string, cls: string): unknown {
  switch (cls) {
    case 'auto': {
      if (DATA_OBJECT_ID.test(value)) return { $dnanexus_link: value };
      const reference = jobReference(value) ?? analysisReference(value);
      if (reference) return reference;
      const parsed = parseJson(value);
      return parsed.ok ? parsed.value : value;
    }
    case 'int': {
      if (!/^\s*[+-]?\d+(_\d+)*\s*$/.test(value)) throw parseFailure('Value could not be parsed as an int');
      const number = Number(value.trim().replaceAll('_', ''));
      if (!Number.isSafeInteger(number)) throw parseFailure('Value could not be parsed as an int (too large for JSON numbers)');
      return number;
    }
    case 'float': {
      const text = value.trim().replaceAll('_', '');
      const number = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
      if (!Number.isFinite(number)) throw parseFailure('Value could not be parsed as a float');
      return number;
    }
    case 'string':
      return value;
    case 'boolean': {
      const lower = value.toLowerCase();
      if (lower.startsWith('t') || value === '1') return true;
      if (lower.startsWith('f') || value === '0') return false;
      throw parseFailure('Value could not be parsed as a boolean');
    }
    case 'hash': {
      const parsed = parseJson(value);
      if (!parsed.ok) throw parseFailure('Value could not be parsed as a hash');
      return parsed.value;
    }
    case 'file':
    case 'gtable':
    case 'record':
    case 'applet':
    case 'workflow': {
      if (DATA_OBJECT_ID.test(value)) return { $dnanexus_link: value };
      const parsed = parseJson(value);
      if (!parsed.ok || !isObject(parsed.value) || parsed.value.$dnanexus_link === undefined || parsed.value.$dnanexus_link === null) {
        throw parseFailure('Value could not be parsed as a data object ID or hash with key "$dnanexus_link"');
      }
      return parsed.value;
    }
    case 'jobref': {
      const reference = jobReference(value);
      if (!reference) throw parseFailure('Value could not be parsed as a job-based object reference with format <job ID>:<job output field name>');
      return reference;
    }
    case 'analysisref': {
      const reference = analysisReference(value);
      if (!reference) throw parseFailure('Value could not be parsed as an analysis reference with format <analysis ID>:<analysis output field name>');
      return reference;
    }
    default:
      throw new UsageError(`argument --class: invalid choice: '${cls}'`);
  }
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, [
    { names: ['-h', '--help'], key: 'help', kind: 'flag' },
    { names: ['--class'], key: 'class', kind: 'value' },
    { names: ['--array'], key: 'array', kind: 'flag' },
    { names: ['-o', '--output'], key: 'output', kind: 'value' },
  ]);
  if (args.flag('help')) {
    io().stdout.write(USAGE);
    return 0;
  }
  if (args.positionals.length !== 2) throw new UsageError('usage: dx-jobutil-add-output [-h] [--class [CLASSNAME]] [--array] name value');
  const [name, text] = args.positionals as [string, string];
  let cls = args.value('class') ?? 'auto';
  let array = args.flag('array');
  if (cls.startsWith('array:')) {
    array = true;
    cls = cls.slice('array:'.length);
  }
  if (!CLASSES.includes(cls)) throw new UsageError(`argument --class: invalid choice: '${args.value('class')}'`);
  const value = outputValue(text, cls);
  const file = args.value('output') ?? jobOutputPath(homeDir());
  await updateOutputJson(
    file,
    (output) => {
      if (!array) return { ...output, [name]: value };
      const existing = output[name];
      if (existing === undefined) return { ...output, [name]: [value] };
      if (!Array.isArray(existing)) throw parseFailure(`Key ${name} was found in existing output but was not an array`);
      return { ...output, [name]: [...existing, value] };
    },
    { trailingNewline: true },
  );
  return 0;
}
