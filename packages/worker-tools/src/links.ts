/** IDs and `$dnanexus_link`s as dxpy recognises them (dxpy/utils/resolver.py, dxpy/bindings/dxdataobject_functions.py). */

export const DATA_OBJECT_ID = /^(record|gtable|applet|file|workflow|database)-[0-9A-Za-z]{24}$/;
export const CONTAINER_ID = /^(project|container)-[0-9A-Za-z]{24}$/;
export const JOB_ID = /^job-[0-9A-Za-z]{24}$/;
export const LOCAL_JOB_ID = /^localjob-\d+$/;
export const ANALYSIS_ID = /^analysis-[0-9A-Za-z]{24}$/;
/** Any entity ID the API takes as a subject. */
export const ENTITY_ID = /^[a-z]+-[0-9A-Za-z]{24}$/;

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** dxpy's is_dxlink: `{"$dnanexus_link": "id"}` or `{"$dnanexus_link": {id | job, ...}}`. */
export function isDxLink(value: unknown): value is { $dnanexus_link: string | JsonObject } {
  if (!isObject(value) || !('$dnanexus_link' in value)) return false;
  const link = value.$dnanexus_link;
  return typeof link === 'string' || (isObject(link) && ('id' in link || 'job' in link));
}

/** The object ID and project of a data object link (undefined for JBORs and other values). */
export function linkTarget(value: unknown): { id: string; project?: string } | undefined {
  if (!isDxLink(value)) return undefined;
  const link = value.$dnanexus_link;
  if (typeof link === 'string') return { id: link };
  if (typeof link.id !== 'string') return undefined;
  return { id: link.id, ...(typeof link.project === 'string' ? { project: link.project } : {}) };
}

/** A link to a file (the only inputs the helpers download). */
export function fileLinkTarget(value: unknown): { id: string; project?: string } | undefined {
  const target = linkTarget(value);
  return target?.id.startsWith('file-') ? target : undefined;
}

export function dxLink(id: string, project?: string): JsonObject {
  return { $dnanexus_link: project ? { project, id } : id };
}

/** dxpy's split_unescaped: splits at characters not escaped by a backslash, and drops empty pieces. */
export function splitUnescaped(separator: string, text: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && i + 1 < text.length) {
      current += char + (text[i + 1] as string);
      i++;
    } else if (char === separator) {
      if (current) pieces.push(current);
      current = '';
    } else current += char;
  }
  if (current) pieces.push(current);
  return pieces;
}

/** Removes the backslashes of escaped characters (dxpy's unescape_name_str). */
export function unescapeName(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}
