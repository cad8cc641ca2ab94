import { isApiError, type PanxClient } from '@panx/client';
import { CliError } from './errors.js';
import { type Context, requireProject } from './session.js';

/**
 * Paths as `dx` reads them: `[project:][/]folder/.../name`. The project is an ID or a name; without
 * one, the path is relative to the current folder of the current project (`px cd`), and with one,
 * to that project's root. A bare data object ID (`file-xxxx`) names that object wherever it is.
 * `\:` escapes a colon that belongs to a name.
 */

export const DATA_OBJECT_ID = /^(file|record|applet|workflow|database)-[0-9A-Za-z]{24}$/;
export const CONTAINER_ID = /^(project|container)-[0-9A-Za-z]{24}$/;

/** A data object as the find and describe routes report it (default describe fields). */
export interface ObjectInfo {
  id: string;
  project: string;
  class: string;
  name: string;
  folder: string;
  state?: string;
  size?: number;
  modified?: number;
  created?: number;
  hidden?: boolean;
  tags?: string[];
  [field: string]: unknown;
}

export function toObjectInfo(value: unknown, fallback: { id: string; project: string }): ObjectInfo {
  const record = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const text = (key: string, otherwise: string) => (typeof record[key] === 'string' ? (record[key] as string) : otherwise);
  return {
    ...record,
    id: text('id', fallback.id),
    project: text('project', fallback.project),
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
    if (spec[i] === ':') return { projectSpec: unescapePath(spec.slice(0, i)), path: spec.slice(i + 1) };
  }
  return { path: spec };
}

function unescapePath(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/** Joins `path` onto `base` and removes `.`, `..` and empty segments: always absolute, no trailing slash. */
export function normalizePath(base: string, path: string): string {
  const segments: string[] = [];
  const joined = path.startsWith('/') ? path : `${base}/${path}`;
  for (const segment of joined.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(unescapePath(segment));
  }
  return `/${segments.join('/')}`;
}

export function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function joinPath(folder: string, name: string): string {
  return folder === '/' ? `/${name}` : `${folder}/${name}`;
}

/** Every page of a find route, following `next`. */
export async function collectPages<T>(
  fetchPage: (starting: unknown) => Promise<{ results: T[]; next?: unknown }>,
  max = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const all: T[] = [];
  let starting: unknown;
  for (;;) {
    const page = await fetchPage(starting);
    all.push(...page.results);
    if (page.next === undefined || page.next === null || all.length >= max || !page.results.length) return all;
    starting = page.next;
  }
}

export interface ProjectRef {
  id: string;
  name: string;
}

/** A project (or container) by ID or by exact name; a name shared by several projects is an error. */
export async function resolveProject(client: PanxClient, spec: string): Promise<ProjectRef> {
  if (CONTAINER_ID.test(spec)) {
    const described = await client.post(spec, 'describe', { fields: { name: true } });
    const name = (described as { name?: unknown }).name;
    return { id: spec, name: typeof name === 'string' ? name : spec };
  }
  const found = await collectPages((starting) =>
    client.call('system/findProjects', { name: spec, describe: { fields: { name: true } }, limit: 1000, ...(starting ? { starting } : {}) }),
  );
  if (!found.length) throw new CliError(`ResourceNotFound: no project named "${spec}" (see px find projects)`);
  if (found.length > 1) throw new CliError(`"${spec}" names ${found.length} projects (${found.map((p) => p.id).join(', ')}): use the project ID`);
  const [only] = found as [(typeof found)[number]];
  return { id: only.id, name: spec };
}

export interface Location {
  project: string;
  /** Known when the path named the project (or it is the current one). */
  projectName?: string;
  /** Absolute and normalized. */
  path: string;
  /** True when the project came from the path rather than from the session. */
  explicitProject: boolean;
}

/** Where a path points (project and absolute path), without asking whether anything is there. */
export async function locate(ctx: Context, spec: string): Promise<Location> {
  const { projectSpec, path } = splitProjectPath(spec);
  if (projectSpec) {
    const project = await resolveProject(ctx.client, projectSpec);
    return { project: project.id, projectName: project.name, path: normalizePath('/', path), explicitProject: true };
  }
  const project = requireProject(ctx.session);
  return { project, projectName: ctx.session.projectName, path: normalizePath(ctx.session.cwd ?? '/', path), explicitProject: false };
}

/** What a path names: a folder, data objects (by name or ID), both, or nothing. */
export interface Resolution extends Location {
  parent: string;
  name: string;
  parentExists: boolean;
  isFolder: boolean;
  objects: ObjectInfo[];
  /** The path was a data object ID. */
  byId: boolean;
}

/** Describes an object by ID: in the given project, else in the current one, else wherever the caller sees it. */
export async function describeObjectById(ctx: Context, id: string, project?: string, options: Record<string, unknown> = {}): Promise<ObjectInfo> {
  const hints: (string | undefined)[] = project ? [project] : ctx.session.project ? [ctx.session.project, undefined] : [undefined];
  let lastError: unknown;
  for (const hint of hints) {
    try {
      const described = await ctx.client.post(id, 'describe', { ...options, ...(hint ? { project: hint } : {}) });
      return toObjectInfo(described, { id, project: hint ?? '' });
    } catch (error) {
      lastError = error;
      if (!isApiError(error, 'ResourceNotFound') && !isApiError(error, 'PermissionDenied')) throw error;
    }
  }
  throw lastError;
}

export async function resolvePath(ctx: Context, spec: string, options: { glob?: boolean } = {}): Promise<Resolution> {
  const { projectSpec, path: rawPath } = splitProjectPath(spec);
  const idPart = rawPath.replace(/^\/+/, '');
  if (DATA_OBJECT_ID.test(idPart)) {
    const explicit = projectSpec ? await resolveProject(ctx.client, projectSpec) : undefined;
    const info = await describeObjectById(ctx, idPart, explicit?.id);
    return {
      project: info.project,
      projectName: explicit?.name,
      path: joinPath(info.folder, info.name),
      explicitProject: Boolean(explicit),
      parent: info.folder,
      name: info.name,
      parentExists: true,
      isFolder: false,
      objects: [info],
      byId: true,
    };
  }
  const location = await locate(ctx, spec);
  const base = { ...location, byId: false };
  if (location.path === '/') return { ...base, parent: '/', name: '', parentExists: true, isFolder: true, objects: [] };
  const parent = parentOf(location.path);
  const name = baseName(location.path);
  let folders: string[];
  try {
    const listing = await ctx.client.call('project-xxxx/listFolder', location.project, { folder: parent, only: 'folders', describe: false });
    folders = listing.folders.map((entry) => (typeof entry === 'string' ? entry : entry[0]));
  } catch (error) {
    if (isApiError(error, 'ResourceNotFound') && !(await projectExists(ctx, location.project))) throw error;
    if (isApiError(error, 'ResourceNotFound')) return { ...base, parent, name, parentExists: false, isFolder: false, objects: [] };
    throw error;
  }
  const glob = options.glob && /[*?]/.test(name);
  const objects = await collectPages((starting) =>
    ctx.client.call('system/findDataObjects', {
      name: glob ? { glob: name } : name,
      scope: { project: location.project, folder: parent, recurse: false },
      visibility: 'either',
      describe: true,
      limit: 1000,
      ...(starting ? { starting } : {}),
    }),
  );
  return {
    ...base,
    parent,
    name,
    parentExists: true,
    isFolder: folders.includes(location.path),
    objects: objects.map((hit) => toObjectInfo(hit.describe, hit)),
  };
}

async function projectExists(ctx: Context, project: string): Promise<boolean> {
  try {
    await ctx.client.call('project-xxxx/describe', project, { fields: { id: true } });
    return true;
  } catch (error) {
    if (isApiError(error, 'ResourceNotFound')) return false;
    throw error;
  }
}

/** `project:/path` for messages, with the project's name when known. */
export function displayPath(location: { project: string; projectName?: string; path: string }): string {
  return `${location.projectName ?? location.project}:${location.path}`;
}

/** The objects a path names, or an error saying nothing is there. */
export function requireObjects(resolution: Resolution, spec: string, options: { allowMany?: boolean } = {}): ObjectInfo[] {
  if (!resolution.objects.length) {
    if (resolution.isFolder) throw new CliError(`"${spec}" is a folder, not a data object`);
    throw new CliError(`ResourceNotFound: no data object "${spec}" in ${displayPath({ ...resolution, path: resolution.parent })}`);
  }
  if (resolution.objects.length > 1 && !options.allowMany) {
    throw new CliError(
      `"${spec}" names ${resolution.objects.length} objects (${resolution.objects.map((object) => object.id).join(', ')}): use an ID, or -a for all of them`,
    );
  }
  return resolution.objects;
}
