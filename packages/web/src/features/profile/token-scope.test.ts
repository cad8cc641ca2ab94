import { describe, expect, it } from 'vitest';
import { buildScope, describeScope, expiresFor, neverExpires } from './token-scope';

describe('API token helpers', () => {
  const now = Date.UTC(2026, 10, 21);

  it('computes the expiry of each choice', () => {
    expect(expiresFor('30', now)).toBe(now + 30 * 86_400_000);
    expect(expiresFor('365', now)).toBe(now + 365 * 86_400_000);
    expect(expiresFor('never', now)).toBeUndefined();
  });

  it('recognises tokens that never expire', () => {
    expect(neverExpires({ created: now, expires: now + 100 * 365 * 86_400_000 })).toBe(true);
    expect(neverExpires({ created: now, expires: now + 365 * 86_400_000 })).toBe(false);
  });

  it('builds no scope for all projects', () => {
    expect(buildScope('all', [{ project: 'project-1', level: 'VIEW' }])).toEqual({ ok: true, scope: undefined });
  });

  it('builds a project scope', () => {
    expect(
      buildScope('projects', [
        { project: 'project-1', level: 'VIEW' },
        { project: 'project-2', level: 'CONTRIBUTE' },
      ]),
    ).toEqual({ ok: true, scope: { projects: { 'project-1': 'VIEW', 'project-2': 'CONTRIBUTE' } } });
  });

  it.each([
    [[], 'Choose at least one project'],
    [[{ project: null, level: 'VIEW' as const }], 'Choose a project in every row'],
    [
      [
        { project: 'project-1', level: 'VIEW' as const },
        { project: 'project-1', level: 'UPLOAD' as const },
      ],
      'only once',
    ],
  ])('rejects %j', (rows, message) => {
    const result = buildScope('projects', rows);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  it('describes scopes with project names', () => {
    const names = new Map([['project-1', 'Genomes']]);
    expect(describeScope(null, names)).toBe('All projects');
    expect(describeScope({ projects: { 'project-1': 'VIEW', 'project-9': 'UPLOAD' } }, names)).toBe('Genomes (VIEW), project-9 (UPLOAD)');
    expect(describeScope({ projects: {} }, names)).toBe('No projects');
  });
});
