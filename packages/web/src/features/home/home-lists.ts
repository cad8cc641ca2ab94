/** Pure helpers of the home page: project summaries, recent and favourite lists (session data, SPEC §3). */

export interface ProjectSummary {
  id: string;
  name: string;
  level: string;
  modified: number | undefined;
  created: number | undefined;
  region: string | undefined;
  billTo: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** One result of `system/findProjects` with `describe` → a summary (tolerating missing fields). */
export function toProjectSummary(result: { id: string; level: string; describe?: unknown }): ProjectSummary {
  const describe = isRecord(result.describe) ? result.describe : {};
  return {
    id: result.id,
    name: str(describe.name) ?? result.id,
    level: result.level,
    modified: num(describe.modified),
    created: num(describe.created),
    region: str(describe.region),
    billTo: str(describe.billTo),
  };
}

/** Most recently modified first; ties by name. */
export function recentProjects(projects: readonly ProjectSummary[], count: number): ProjectSummary[] {
  return [...projects]
    .sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0) || a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }))
    .slice(0, count);
}

/** `sessionData.favorites.projects` (SPEC §3), ignoring anything malformed. */
export function favoriteProjectIds(sessionData: unknown): string[] {
  if (!isRecord(sessionData) || !isRecord(sessionData.favorites)) return [];
  const projects = sessionData.favorites.projects;
  return Array.isArray(projects) ? projects.filter((id): id is string => typeof id === 'string') : [];
}

/** The new `favorites` object of the session data with the project added or removed (other lists kept). */
export function toggleFavoriteProject(sessionData: unknown, projectId: string): Record<string, unknown> {
  const favorites = isRecord(sessionData) && isRecord(sessionData.favorites) ? sessionData.favorites : {};
  const current = favoriteProjectIds(sessionData);
  const projects = current.includes(projectId) ? current.filter((id) => id !== projectId) : [...current, projectId];
  return { ...favorites, projects };
}

/** Favourite projects the user can still see, in the order they were starred. */
export function favoriteProjects(projects: readonly ProjectSummary[], ids: readonly string[]): ProjectSummary[] {
  const byId = new Map(projects.map((project) => [project.id, project]));
  return ids.map((id) => byId.get(id)).filter((project): project is ProjectSummary => project !== undefined);
}
