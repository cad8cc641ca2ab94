/**
 * Text exactly as dxpy writes it: Python's `json.dumps` (", " and ": " separators, `ensure_ascii`,
 * float `repr`) and `shlex.quote`. The helpers' files and `dx-print-bash-vars` are compared byte for
 * byte by scripts written against DNAnexus, so the small differences from `JSON.stringify` matter.
 *
 * JSON.parse cannot tell `1.0` from `1`; a number is written as a float (`1.0`) only when the caller
 * says so (`float: true`, used for inputs of class float), and as an integer otherwise.
 */

export interface PythonJsonOptions {
  /** `indent=N` of json.dumps: newlines and N spaces per level, "," between items. */
  indent?: number;
  /** Write integer-valued numbers as floats (`3.0`), for values of class float. */
  float?: boolean;
}

/** Python's repr() of a float: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return 'Infinity';
  if (value === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const power = Math.abs(exponent).toString().padStart(2, '0');
    return `${sign}${body}e${exponent < 0 ? '-' : '+'}${power}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
}

function pythonNumber(value: number, float: boolean): string {
  if (!float && Number.isSafeInteger(value)) return String(value);
  if (!float && Number.isInteger(value)) return BigInt(value).toString();
  return pythonFloatRepr(value);
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A JSON string literal with `ensure_ascii`: everything outside space..~ is escaped. */
export function pythonJsonString(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const code = text.charCodeAt(i);
    const short = SHORT_ESCAPES[char];
    if (short) out += short;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** `json.dumps(value)` (or with `indent`) as Python 3 writes it. */
export function pythonJson(value: unknown, options: PythonJsonOptions = {}): string {
  const { indent } = options;
  const write = (item: unknown, level: number): string => {
    if (item === null || item === undefined) return 'null';
    if (typeof item === 'boolean') return item ? 'true' : 'false';
    if (typeof item === 'number') return pythonNumber(item, Boolean(options.float));
    if (typeof item === 'string') return pythonJsonString(item);
    const entries: string[] = Array.isArray(item)
      ? item.map((element) => write(element, level + 1))
      : Object.entries(item as Record<string, unknown>).map(([key, element]) => `${pythonJsonString(key)}: ${write(element, level + 1)}`);
    const [open, close] = Array.isArray(item) ? ['[', ']'] : ['{', '}'];
    if (!entries.length) return `${open}${close}`;
    if (indent === undefined) return `${open}${entries.join(', ')}${close}`;
    const inner = `\n${' '.repeat(indent * (level + 1))}`;
    return `${open}${inner}${entries.join(`,${inner}`)}\n${' '.repeat(indent * level)}${close}`;
  };
  return write(value, 0);
}

/** `shlex.quote`: unchanged when only safe characters are used, otherwise single-quoted. */
export function shellQuote(text: string): string {
  if (text === '') return "''";
  if (!/[^\w@%+=:,./-]/.test(text)) return text;
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}
