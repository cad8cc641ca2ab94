/**
 * Pure rules of the tool library and the tool selector (SPEC §3 "Tool", §6 allowed executables):
 * apps (one tool per app name, with its versions), applets and workflows as tools; grouping by the
 * runtime configuration's tool categories; search, category and class filters; favourites kept in
 * `sessionData.favorites.tools`; the project's allowed-executables rule (the rule itself in
 * lib/allowed-executables.ts, shared with the runner).
 */
import { allowedVersionsOf, isExecutableAllowed } from '../../lib/allowed-executables';
import { newestFirst } from '../../lib/versions';

export const TOOL_CLASSES = ['app', 'applet', 'workflow'] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** Apps in this category are never listed (SPEC §6). */
export const HIDDEN_APP_CATEGORY = 'hidden_app';
/** The group of tools in none of the configured categories. */
export const OTHER_CATEGORY = 'Other tools';

export interface AppVersion {
  /** The version's own id (`app-xxxx`): on DNAnexus every app version has one. */
  id: string;
  version: string;
  /** `default` marks the version that `app-name` resolves to. */
  aliases: string[];
  created: number;
  published: boolean;
}

export interface Tool {
  /** The id to run: the default (or newest) version of an app, the applet or workflow id. */
  id: string;
  class: ToolClass;
  name: string;
  title: string;
  summary: string;
  categories: string[];
  /** Apps: the version `id` is, and every version the user can see, newest first. */
  version?: string;
  versions: AppVersion[];
  /** Applets and workflows: the project (and folder) holding the copy listed. */
  project?: string;
  folder?: string;
  created: number;
  modified: number;
}

/** What a tool selector hands back to its caller. */
export interface SelectedTool {
  id: string;
  class: ToolClass;
  name: string;
  title: string;
  /** Apps only: the chosen version (its id is `id`). */
  version?: string;
  /** Applets and workflows: the project holding them. */
  project?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** The version `app-name` stands for: the one tagged `default`, else the newest published, else the newest. */
export function defaultVersion(versions: readonly AppVersion[]): AppVersion | undefined {
  return versions.find((v) => v.aliases.includes('default')) ?? versions.find((v) => v.published) ?? versions[0];
}

/**
 * Apps from `system/findApps` with `allVersions` and `describe`: one tool per app name, its versions
 * newest first, described by its default version. Apps in `hidden_app` are left out.
 */
export function appsToTools(results: readonly { id: string; describe?: unknown }[]): Tool[] {
  const byName = new Map<string, { id: string; d: Record<string, unknown> }[]>();
  for (const result of results) {
    const d = isRecord(result.describe) ? result.describe : {};
    const name = str(d.name) || result.id;
    byName.set(name, [...(byName.get(name) ?? []), { id: result.id, d }]);
  }
  const tools: Tool[] = [];
  for (const [name, rows] of byName) {
    const versions: AppVersion[] = newestFirst(
      rows.map(({ id, d }) => ({ id, version: str(d.version), aliases: strings(d.aliases), created: num(d.created), published: num(d.published) > 0 })),
    );
    const chosen = defaultVersion(versions);
    const d = rows.find((row) => row.id === chosen?.id)?.d ?? {};
    const categories = strings(d.categories);
    if (categories.includes(HIDDEN_APP_CATEGORY)) continue;
    tools.push({
      id: chosen?.id ?? '',
      class: 'app',
      name,
      title: str(d.title) || name,
      summary: str(d.summary),
      categories,
      version: chosen?.version,
      versions,
      created: num(d.created),
      modified: num(d.modified),
    });
  }
  return tools;
}

/**
 * Applets and workflows from `system/findDataObjects` with `describe`: one tool per object id (a copy
 * in several projects is listed once, from the first project found).
 */
export function dataObjectsToTools(results: readonly { id: string; project: string; describe?: unknown }[]): Tool[] {
  const seen = new Map<string, Tool>();
  for (const result of results) {
    if (seen.has(result.id)) continue;
    const d = isRecord(result.describe) ? result.describe : {};
    const cls = str(d.class) || result.id.split('-')[0];
    if (cls !== 'applet' && cls !== 'workflow') continue;
    const name = str(d.name) || result.id;
    seen.set(result.id, {
      id: result.id,
      class: cls,
      name,
      title: str(d.title) || name,
      summary: str(d.summary),
      categories: strings(d.categories).filter((category) => category !== HIDDEN_APP_CATEGORY),
      versions: [],
      project: str(d.project) || result.project,
      folder: str(d.folder) || undefined,
      created: num(d.created),
      modified: num(d.modified),
    });
  }
  return [...seen.values()];
}

/** By title, then name, case-insensitively. */
export function sortTools(tools: readonly Tool[]): Tool[] {
  return [...tools].sort(
    (a, b) => a.title.localeCompare(b.title, undefined, { sensitivity: 'base' }) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
  );
}

// ---------------------------------------------------------------------------------------------------
// Favourites: sessionData.favorites.tools (SPEC §3 session data: favorites of the projects and tools lists)

/** The favourite key of a tool: `app-name` for apps (every version), the object id for applets and workflows. */
export function favouriteKey(tool: Pick<Tool, 'class' | 'id' | 'name'>): string {
  return tool.class === 'app' ? `app-${tool.name}` : tool.id;
}

/** `sessionData.favorites.tools`, ignoring anything malformed. */
export function favouriteToolKeys(sessionData: unknown): string[] {
  if (!isRecord(sessionData) || !isRecord(sessionData.favorites)) return [];
  return strings(sessionData.favorites.tools);
}

/** The new `favorites` object of the session data with the tool added or removed (the projects list kept). */
export function toggleFavouriteTool(sessionData: unknown, key: string): Record<string, unknown> {
  const favorites = isRecord(sessionData) && isRecord(sessionData.favorites) ? sessionData.favorites : {};
  const current = favouriteToolKeys(sessionData);
  const tools = current.includes(key) ? current.filter((k) => k !== key) : [...current, key];
  return { ...favorites, tools };
}

// ---------------------------------------------------------------------------------------------------
// Allowed executables (SPEC §6)

/**
 * The app versions a project allows. `allowed` is the project's `allowedExecutables` (null or absent:
 * no restriction). A version is allowed when its id, `app-name` (every version) or `app-name/version`
 * is listed.
 */
export function allowedAppVersions(tool: Pick<Tool, 'name' | 'versions'>, allowed: readonly string[] | null | undefined): AppVersion[] {
  return allowedVersionsOf(allowed, tool.name, tool.versions);
}

/** Whether a project with this `allowedExecutables` offers the tool: its id or class-name combination is listed (apps: one of their versions). */
export function isToolAllowed(tool: Tool, allowed: readonly string[] | null | undefined): boolean {
  if (tool.class === 'app') return allowedAppVersions(tool, allowed).length > 0;
  return isExecutableAllowed(allowed, { id: tool.id, class: tool.class, name: tool.name });
}

/**
 * The version to select: the wanted one when allowed, otherwise the first allowed one (SPEC §6; the
 * versions are newest first, and the default version comes before the others).
 */
export function pickAllowedVersion(versions: readonly AppVersion[], wanted: string | undefined): AppVersion | undefined {
  const exact = versions.find((v) => v.version === wanted || v.id === wanted);
  return exact ?? defaultVersion(versions);
}

/** The tools a project offers, app versions narrowed to the allowed ones (and `id`/`version` moved to an allowed one). */
export function offeredTools(tools: readonly Tool[], allowed: readonly string[] | null | undefined): Tool[] {
  if (!allowed) return [...tools];
  const offered: Tool[] = [];
  for (const tool of tools) {
    if (!isToolAllowed(tool, allowed)) continue;
    if (tool.class !== 'app') {
      offered.push(tool);
      continue;
    }
    const versions = allowedAppVersions(tool, allowed);
    const chosen = pickAllowedVersion(versions, tool.version);
    offered.push({ ...tool, versions, id: chosen?.id ?? tool.id, version: chosen?.version ?? tool.version });
  }
  return offered;
}

// ---------------------------------------------------------------------------------------------------
// Filters and grouping

export interface ToolFilters {
  /** Words of the title (also matched against the name), case-insensitive. */
  text: string;
  category: string | null;
  toolClass: ToolClass | null;
  favouritesOnly: boolean;
}

export const EMPTY_TOOL_FILTERS: ToolFilters = { text: '', category: null, toolClass: null, favouritesOnly: false };

/** Whether a tool is in a category group (tools in no configured category are in OTHER_CATEGORY). */
export function inCategory(tool: Tool, category: string, configured: readonly string[]): boolean {
  if (category === OTHER_CATEGORY) return !tool.categories.some((c) => configured.includes(c));
  return tool.categories.includes(category);
}

/** Every word of the search text must appear in the title or the name (`bwa_mem`). */
export function matchesText(tool: Tool, text: string): boolean {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = `${tool.title}\n${tool.name}`.toLowerCase();
  return words.every((word) => haystack.includes(word));
}

export function filterTools(tools: readonly Tool[], filters: ToolFilters, favourites: readonly string[], configured: readonly string[]): Tool[] {
  const starred = new Set(favourites);
  return tools.filter(
    (tool) =>
      matchesText(tool, filters.text) &&
      (filters.toolClass === null || tool.class === filters.toolClass) &&
      (filters.category === null || inCategory(tool, filters.category, configured)) &&
      (!filters.favouritesOnly || starred.has(favouriteKey(tool))),
  );
}

/**
 * The categories tools are grouped by: the runtime configuration's `toolCategories` when set, otherwise
 * the categories the tools carry (sorted). `hidden_app` is never one of them.
 */
export function categoryList(configured: readonly string[], tools: readonly Tool[]): string[] {
  const base = configured.length > 0 ? [...configured] : [...new Set(tools.flatMap((tool) => tool.categories))].sort((a, b) => a.localeCompare(b));
  return base.filter((category) => category !== HIDDEN_APP_CATEGORY && category !== OTHER_CATEGORY);
}

export interface ToolGroup {
  category: string;
  tools: Tool[];
}

/**
 * Tools grouped by category, in the order of `categories` (a tool in two categories appears in both),
 * then OTHER_CATEGORY for the tools in none; empty groups are left out; each group sorted by title.
 */
export function groupTools(tools: readonly Tool[], categories: readonly string[]): ToolGroup[] {
  const groups: ToolGroup[] = categories.map((category) => ({ category, tools: sortTools(tools.filter((tool) => tool.categories.includes(category))) }));
  const other = sortTools(tools.filter((tool) => !tool.categories.some((c) => categories.includes(c))));
  groups.push({ category: OTHER_CATEGORY, tools: other });
  return groups.filter((group) => group.tools.length > 0);
}

// ---------------------------------------------------------------------------------------------------
// Paths

const TOOL_ID = /^(app|applet|workflow|globalworkflow)-/;

/** `/panx/tool/{class}/{id}`, or `/panx/projects/{project}/{id}` in a project's context. */
export function toolDetailsPath(tool: Pick<Tool, 'class' | 'id'>, project?: string): string {
  return project ? `/panx/projects/${encodeURIComponent(project)}/${encodeURIComponent(tool.id)}` : `/panx/tool/${tool.class}/${encodeURIComponent(tool.id)}`;
}

/** `/panx/tools/run/{id}`, or `/panx/projects/{project}/run/{id}` in a project's context. */
export function toolRunPath(toolId: string, project?: string): string {
  return project ? `/panx/projects/${encodeURIComponent(project)}/run/${encodeURIComponent(toolId)}` : `/panx/tools/run/${encodeURIComponent(toolId)}`;
}

/** The class a tool id names (`app-…`, `applet-…`, `workflow-…`), or undefined for anything else. */
export function toolClassOf(id: string): ToolClass | undefined {
  const match = TOOL_ID.exec(id);
  const prefix = match?.[1];
  return prefix === 'app' || prefix === 'applet' || prefix === 'workflow' ? prefix : undefined;
}

export const CLASS_LABEL: Record<ToolClass, string> = { app: 'App', applet: 'Applet', workflow: 'Workflow' };

// ---------------------------------------------------------------------------------------------------
// The library's filters in the query string (`?q=…&category=…&class=…&favourites=1`), so a reload or a shared link keeps them

export function filtersFromSearch(search: URLSearchParams): ToolFilters {
  const cls = search.get('class');
  return {
    text: search.get('q') ?? '',
    category: search.get('category') || null,
    toolClass: cls === 'app' || cls === 'applet' || cls === 'workflow' ? cls : null,
    favouritesOnly: search.get('favourites') === '1',
  };
}

export function filtersToSearch(filters: ToolFilters): URLSearchParams {
  const search = new URLSearchParams();
  if (filters.text) search.set('q', filters.text);
  if (filters.category) search.set('category', filters.category);
  if (filters.toolClass) search.set('class', filters.toolClass);
  if (filters.favouritesOnly) search.set('favourites', '1');
  return search;
}
