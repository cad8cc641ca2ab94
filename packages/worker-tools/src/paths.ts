import { isApiError, type PanxClient } from '@panx/client';
import { type JobEnvironment, requireContainer } from './environment.js';
import { ToolError } from './errors.js';
import { CONTAINER_ID, DATA_OBJECT_ID } from './links.js';

/**
 * Paths as dx reads them: `[project:][/]folder/.../name`. The project is an ID or a name; without
 * one, the path is relative to DX_CLI_WD in the default container (the workspace inside a job, the
 * project context outside). A data object ID names that object wherever it is. `\:` and `\/`
 * escape characters that belong to a name.
 */

export interface Context {
  client: PanxClient;
  environment: JobEnvironment;
}

/** A data object as find and describe report it. */
export interface ObjectInfo {
  id: string;
  project: string;
  class: string;
  name: string;
  folder: string;
  state?: string;
  size?: number;
  modified?: number;
  [field: string]: unknown;
}

export function toObjectInfo(value: unknown, fallback: { id: string; project?: string }): ObjectInfo {
  const record = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const text = (key: string, otherwise: string) => (typeof record[key] === 'string' ? (record[key] as string) : otherwise);
  return {
    ...record,
    id: text('id', fallback.id),
    project: text('project', fallback.project ?? ''),
    class: text('class', fallback.id.split('-')[0] ?? ''),
    name: text('name', fallback.id),
    folder: text('folder', '/'),
  };
}

/** Splits at the first colon that is not escaped; `projectSpec` is undefined when there is none. */
export function splitProjectPath(spec: string): { projectSpec?: string; path: string } {
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === '\\') {
      i++;
      continue;
    }
    if (spec[i] === ':') return { projectSpec: unescapeText(spec.slice(0, i)), path: spec.slice(i + 1) };
  }
  return { path: spec };
}

const unescapeText = (text: string) => text.replace(/\\(.)/g, '$1');

/** Splits a path at slashes that are not escaped. */
function segments(path: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '\\' && i + 1 < path.length) {
      current += path.slice(i, i + 2);
      i++;
    } else if (path[i] === '/') {
      parts.push(current);
      current = '';
    } else current += path[i];
  }
  parts.push(current);
  return parts;
}

/** Joins `path` onto `base`, resolving `.` and `..`: always absolute, no trailing slash, escapes removed. */
export function normalizePath(base: string, path: string): string {
  const out: string[] = [];
  for (const segment of segments(path.startsWith('/') ? path : `${base}/${path}`)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(unescapeText(segment));
  }
  return `/${out.join('/')}`;
}

export const parentOf = (path: string) => (path.lastIndexOf('/') <= 0 ? '/' : path.slice(0, path.lastIndexOf('/')));
export const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
export const joinPath = (folder: string, name: string) => (folder === '/' ? `/${name}` : `${folder}/${name}`);

/** Every page of a find route, following `next`. */
export async function collectPages<T>(fetchPage: (starting: unknown) => Promise<{ results: T[]; next?: unknown }>): Promise<T[]> {
  const all: T[] = [];
  let starting: unknown;
  for (;;) {
    const page = await fetchPage(starting);
    all.push(...page.results);
    if (page.next === undefined || page.next === null || !page.results.length) return all;
    starting = page.next;
  }
}

/** A project or container by ID, or a project by exact name. */
export async function resolveContainer(client: PanxClient, spec: string): Promise<string> {
  if (CONTAINER_ID.test(spec)) return spec;
  const found = await collectPages((starting) => client.call('system/findProjects', { name: spec, limit: 1000, ...(starting ? { starting } : {}) }));
  if (!found.length) throw new ToolError(`ResourceNotFound: no project named "${spec}"`);
  if (found.length > 1) throw new ToolError(`"${spec}" names ${found.length} projects (${found.map((p) => p.id).join(', ')}): use the project ID`);
  return (found[0] as { id: string }).id;
}

export interface Location {
  container: string;
  /** Absolute and normalized. */
  path: string;
}

export async function locate(ctx: Context, spec: string): Promise<Location> {
  const { projectSpec, path } = splitProjectPath(spec);
  if (projectSpec) return { container: await resolveContainer(ctx.client, projectSpec), path: normalizePath('/', path) };
  return { container: requireContainer(ctx.environment), path: normalizePath(ctx.environment.cwd, path) };
}

/** Describes a data object by ID: in the given container, else in the default one, else wherever the caller sees it. */
export async function describeById(ctx: Context, id: string, container?: string, options: Record<string, unknown> = {}): Promise<ObjectInfo> {
  const hints = [...new Set(container ? [container] : [ctx.environment.defaultContainer, undefined])];
  let lastError: unknown;
  for (const hint of hints) {
    try {
      const described = await ctx.client.post(id, 'describe', { ...options, ...(hint ? { project: hint } : {}) });
      return toObjectInfo(described, { id, project: hint });
    } catch (error) {
      lastError = error;
      if (!isApiError(error, 'ResourceNotFound') && !isApiError(error, 'PermissionDenied')) throw error;
    }
  }
  throw lastError;
}

export interface Resolution extends Location {
  parent: string;
  name: string;
  /** The path is a folder. */
  isFolder: boolean;
  /** The data objects it names (by ID, or by name in its parent folder). */
  objects: ObjectInfo[];
}

async function folderExists(ctx: Context, container: string, folder: string): Promise<{ exists: boolean; subfolders: string[] }> {
  try {
    const listing = (await ctx.client.post(container, 'listFolder', { folder, only: 'folders', describe: false })) as { folders?: unknown[] };
    return { exists: true, subfolders: (listing.folders ?? []).map((entry) => (Array.isArray(entry) ? String(entry[0]) : String(entry))) };
  } catch (error) {
    if (isApiError(error, 'ResourceNotFound')) return { exists: false, subfolders: [] };
    throw error;
  }
}

/** What a path names: a folder, data objects (by name, a glob with `glob`, or ID), or nothing. */
export async function resolvePath(
  ctx: Context,
  spec: string,
  options: { glob?: boolean; describe?: Record<string, unknown> | boolean } = {},
): Promise<Resolution> {
  const { projectSpec, path: rawPath } = splitProjectPath(spec);
  const idPart = rawPath.replace(/^\/+/, '');
  if (DATA_OBJECT_ID.test(idPart)) {
    const container = projectSpec ? await resolveContainer(ctx.client, projectSpec) : undefined;
    const info = await describeById(ctx, idPart, container);
    return { container: info.project, path: joinPath(info.folder, info.name), parent: info.folder, name: info.name, isFolder: false, objects: [info] };
  }
  const location = await locate(ctx, spec);
  if (location.path === '/') return { ...location, parent: '/', name: '', isFolder: true, objects: [] };
  const parent = parentOf(location.path);
  const name = baseName(location.path);
  const listing = await folderExists(ctx, location.container, parent);
  if (!listing.exists) return { ...location, parent, name, isFolder: false, objects: [] };
  const glob = options.glob && /[*?]/.test(name);
  const hits = await collectPages((starting) =>
    ctx.client.call('system/findDataObjects', {
      name: glob ? { glob: name } : name,
      scope: { project: location.container, folder: parent, recurse: false },
      visibility: 'either',
      describe: options.describe ?? true,
      limit: 1000,
      ...(starting ? { starting } : {}),
    }),
  );
  return {
    ...location,
    parent,
    name,
    isFolder: listing.subfolders.includes(location.path),
    objects: hits.map((hit) => toObjectInfo(hit.describe, hit)),
  };
}

/** The one data object a path names, or an error saying what is there instead. */
export function requireOne(resolution: Resolution, spec: string, cls?: string): ObjectInfo {
  if (!resolution.objects.length) {
    if (resolution.isFolder) throw new ToolError(`"${spec}" is a folder, not a data object`);
    throw new ToolError(`ResourceNotFound: no data object "${spec}" in ${resolution.container}:${resolution.parent}`);
  }
  if (resolution.objects.length > 1) {
    throw new ToolError(`"${spec}" names ${resolution.objects.length} objects (${resolution.objects.map((object) => object.id).join(', ')}): use an ID`);
  }
  const [object] = resolution.objects as [ObjectInfo];
  if (cls && object.class !== cls) throw new ToolError(`${object.id} is a ${object.class}, not a ${cls}`);
  return object;
}
