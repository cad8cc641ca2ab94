/**
 * Values typed into a stage's input (pure): text → the JSON a workflow binds, checked against the
 * input's class. Data objects are `file-xxxx`, `project-xxxx:file-xxxx`, or a path
 * `project-xxxx:/folder/name` that the caller resolves with system/resolveDataObjects.
 */
export type ParsedValue =
  | { ok: true; value: unknown }
  | { ok: 'resolve'; project: string; folder: string; name: string; element: boolean }
  | { ok: false; error: string };

const DATA_CLASSES = new Set(['file', 'record', 'applet', 'workflow', 'database']);
const OBJECT_ID = /^(file|record|applet|workflow|database)-[0-9A-Za-z]{24}$/;
const PROJECT_ID = /^(project|container)-[0-9A-Za-z]{24}$/;

export const isDataClass = (cls: string): boolean => DATA_CLASSES.has(cls.replace(/^array:/, ''));

function parseScalar(cls: string, text: string): ParsedValue {
  const value = text.trim();
  if (!value) return { ok: false, error: 'Enter a value' };
  switch (cls) {
    case 'int':
      return /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value))
        ? { ok: true, value: Number(value) }
        : { ok: false, error: `"${value}" is not a whole number` };
    case 'float': {
      const number = Number(value);
      return Number.isFinite(number) ? { ok: true, value: number } : { ok: false, error: `"${value}" is not a number` };
    }
    case 'boolean':
      if (/^(true|yes)$/i.test(value)) return { ok: true, value: true };
      if (/^(false|no)$/i.test(value)) return { ok: true, value: false };
      return { ok: false, error: 'Enter true or false' };
    case 'string':
      return { ok: true, value: text };
    case 'hash':
      try {
        const parsed: unknown = JSON.parse(value);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return { ok: true, value: parsed };
      } catch {
        // fall through
      }
      return { ok: false, error: 'Enter a JSON object, e.g. {"key": "value"}' };
    default:
      if (!DATA_CLASSES.has(cls)) return { ok: false, error: `Inputs of class ${cls} cannot be typed here` };
      return parseObjectRef(cls, value, false);
  }
}

function parseObjectRef(cls: string, value: string, element: boolean): ParsedValue {
  if (OBJECT_ID.test(value)) {
    return value.startsWith(`${cls}-`) ? { ok: true, value: { $dnanexus_link: value } } : { ok: false, error: `${value} is not a ${cls}` };
  }
  const colon = value.indexOf(':');
  const project = colon > 0 ? value.slice(0, colon) : '';
  const rest = colon > 0 ? value.slice(colon + 1) : '';
  if (PROJECT_ID.test(project) && OBJECT_ID.test(rest)) {
    return rest.startsWith(`${cls}-`) ? { ok: true, value: { $dnanexus_link: { project, id: rest } } } : { ok: false, error: `${rest} is not a ${cls}` };
  }
  if (PROJECT_ID.test(project) && rest.startsWith('/') && !rest.endsWith('/')) {
    const slash = rest.lastIndexOf('/');
    return { ok: 'resolve', project, folder: rest.slice(0, slash) || '/', name: rest.slice(slash + 1), element };
  }
  return { ok: false, error: `Enter a ${cls} ID (${cls}-xxxx), project-xxxx:${cls}-xxxx or project-xxxx:/folder/name` };
}

/** Text → the value to bind to an input of class `cls` (arrays: a JSON array, or values separated by commas or new lines). */
export function parseInputValue(cls: string, text: string, choices?: readonly unknown[]): ParsedValue {
  if (cls.startsWith('array:')) {
    const inner = cls.slice('array:'.length);
    const trimmed = text.trim();
    let items: string[];
    if (trimmed.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch {
        return { ok: false, error: 'The list is not valid JSON' };
      }
      if (!Array.isArray(parsed)) return { ok: false, error: 'Enter a list' };
      items = parsed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    } else {
      items = trimmed
        .split(/[,\n]/)
        .map((item) => item.trim())
        .filter(Boolean);
    }
    if (!items.length) return { ok: false, error: 'Enter at least one value' };
    const values: unknown[] = [];
    for (const [index, item] of items.entries()) {
      const parsed = DATA_CLASSES.has(inner) ? parseObjectRef(inner, item, true) : parseScalar(inner, item);
      if (parsed.ok === 'resolve') return { ok: false, error: `Item ${index + 1}: paths are resolved one at a time; use IDs in lists` };
      if (!parsed.ok) return { ok: false, error: `Item ${index + 1}: ${parsed.error}` };
      values.push(parsed.value);
    }
    return { ok: true, value: values };
  }
  const parsed = parseScalar(cls, text);
  if (parsed.ok === true && choices?.length && !choices.some((choice) => JSON.stringify(choice) === JSON.stringify(parsed.value))) {
    return { ok: false, error: `Choose one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}` };
  }
  return parsed;
}
