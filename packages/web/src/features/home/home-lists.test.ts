import { describe, expect, it } from 'vitest';
import { favoriteProjectIds, favoriteProjects, type ProjectSummary, recentProjects, toggleFavoriteProject, toProjectSummary } from './home-lists';

const project = (id: string, name: string, modified?: number): ProjectSummary => ({
  id,
  name,
  level: 'ADMINISTER',
  modified,
  created: 1,
  region: undefined,
  billTo: undefined,
});

describe('home lists', () => {
  it('summarises a findProjects result, falling back to the id for the name', () => {
    expect(toProjectSummary({ id: 'project-1', level: 'VIEW', describe: { name: 'Genomes', modified: 5, region: 'aws:us-east-1' } })).toMatchObject({
      id: 'project-1',
      name: 'Genomes',
      level: 'VIEW',
      modified: 5,
      region: 'aws:us-east-1',
    });
    expect(toProjectSummary({ id: 'project-2', level: 'VIEW' }).name).toBe('project-2');
  });

  it('lists recent projects by modification time, then name', () => {
    const list = [project('a', 'b', 1), project('b', 'A', 3), project('c', 'a2', 3), project('d', 'z')];
    expect(recentProjects(list, 3).map((p) => p.id)).toEqual(['b', 'c', 'a']);
  });

  it('reads favourites from the session data and ignores malformed values', () => {
    expect(favoriteProjectIds({ favorites: { projects: ['p1', 3, 'p2'] } })).toEqual(['p1', 'p2']);
    expect(favoriteProjectIds({ favorites: 'x' })).toEqual([]);
    expect(favoriteProjectIds(undefined)).toEqual([]);
  });

  it('toggles a favourite and keeps the other favourite lists', () => {
    const data = { favorites: { projects: ['p1'], tools: ['app-x'] } };
    expect(toggleFavoriteProject(data, 'p2')).toEqual({ projects: ['p1', 'p2'], tools: ['app-x'] });
    expect(toggleFavoriteProject(data, 'p1')).toEqual({ projects: [], tools: ['app-x'] });
    expect(toggleFavoriteProject({}, 'p1')).toEqual({ projects: ['p1'] });
  });

  it('keeps only favourites that are still visible, in starred order', () => {
    const list = [project('p1', 'one'), project('p2', 'two')];
    expect(favoriteProjects(list, ['p2', 'gone', 'p1']).map((p) => p.id)).toEqual(['p2', 'p1']);
  });
});
