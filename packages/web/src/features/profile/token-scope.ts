/** Pure helpers of API-token management: expiry choices, project scopes, how a token is described. */

export const GRANTABLE_LEVELS = ['VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER'] as const;
export type GrantableLevel = (typeof GRANTABLE_LEVELS)[number];

export const EXPIRY_CHOICES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
  { value: 'never', label: 'Never' },
] as const;
export type ExpiryChoice = (typeof EXPIRY_CHOICES)[number]['value'];

const DAY_MS = 86_400_000;
/** Tokens that outlive this are shown as never expiring (the server gives them a hundred years). */
const NEVER_THRESHOLD_MS = 50 * 365 * DAY_MS;

/** The `expires` to send for a choice: undefined (the server's default, no expiry) for `never`. */
export function expiresFor(choice: ExpiryChoice, now: number): number | undefined {
  return choice === 'never' ? undefined : now + Number(choice) * DAY_MS;
}

export function neverExpires(token: { created: number; expires: number }): boolean {
  return token.expires - token.created >= NEVER_THRESHOLD_MS;
}

export interface ScopeRow {
  project: string | null;
  level: GrantableLevel;
}

export type TokenScope = { projects: Record<string, GrantableLevel> };

/**
 * The `scope` of system/newAuthToken: nothing for all projects, or one level per chosen project. A row
 * without a project or a project chosen twice is an error the form shows.
 */
export function buildScope(mode: 'all' | 'projects', rows: readonly ScopeRow[]): { ok: true; scope: TokenScope | undefined } | { ok: false; error: string } {
  if (mode === 'all') return { ok: true, scope: undefined };
  if (rows.length === 0) return { ok: false, error: 'Choose at least one project, or give the token access to all your projects.' };
  const projects: Record<string, GrantableLevel> = {};
  for (const row of rows) {
    if (!row.project) return { ok: false, error: 'Choose a project in every row, or remove the empty row.' };
    if (projects[row.project]) return { ok: false, error: 'Each project can be listed only once.' };
    projects[row.project] = row.level;
  }
  return { ok: true, scope: { projects } };
}

/** `All projects`, or `Genomes (VIEW), Exomes (CONTRIBUTE)` with names where known. */
export function describeScope(scope: unknown, names: ReadonlyMap<string, string>): string {
  if (typeof scope !== 'object' || scope === null) return 'All projects';
  const projects = (scope as { projects?: unknown }).projects;
  if (typeof projects !== 'object' || projects === null) return 'All projects';
  const entries = Object.entries(projects as Record<string, unknown>);
  if (entries.length === 0) return 'No projects';
  return entries.map(([id, level]) => `${names.get(id) ?? id} (${String(level)})`).join(', ');
}
