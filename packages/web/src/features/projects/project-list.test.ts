import { describe, expect, it } from 'vitest';
import {
  EMPTY_PROJECT_FILTERS,
  filterProjects,
  initialProjectListState,
  type ProjectRow,
  pageRows,
  projectListReducer,
  sortProjects,
  toProjectRow,
} from './project-list';

const row = (id: string, name: string, extra: Partial<ProjectRow> = {}): ProjectRow => ({
  id,
  name,
  level: 'VIEW',
  tags: [],
  members: 1,
  created: 1,
  modified: 1,
  billTo: 'user-alice',
  region: 'aws:us-east-1',
  summary: '',
  containsPHI: false,
  dataUsage: 0,
  ...extra,
});

describe('project list state (SPEC §3)', () => {
  it('starts sorted by name ascending, page 0, 20 per page', () => {
    expect(initialProjectListState()).toMatchObject({ sortColumn: 'name', sortAsc: true, currentPage: 0, perPage: 20, checkedRows: [] });
  });

  it('flips the direction on the same column, starts ascending on another, and goes back to page 0', () => {
    let state = projectListReducer(initialProjectListState(), { type: 'page', page: 3 });
    state = projectListReducer(state, { type: 'sort', column: 'name' });
    expect(state).toMatchObject({ sortColumn: 'name', sortAsc: false, currentPage: 0 });
    state = projectListReducer(state, { type: 'sort', column: 'modified' });
    expect(state).toMatchObject({ sortColumn: 'modified', sortAsc: true });
  });

  it('checks and unchecks rows', () => {
    let state = projectListReducer(initialProjectListState(), { type: 'checkAll', ids: ['a', 'b'], checked: true });
    state = projectListReducer(state, { type: 'check', id: 'a', checked: false });
    expect(state.checkedRows).toEqual(['b']);
  });

  it('filters by name (text or regex), tags, level, billTo and dates', () => {
    const rows = [
      row('p1', 'Exomes 2026', { tags: ['WGS', 'cohort'], level: 'ADMINISTER', created: 100 }),
      row('p2', 'exome pilot', { billTo: 'org-acme', created: 200 }),
      row('p3', 'Genomes', { tags: ['wgs'], created: 300 }),
    ];
    const ids = (filters: Partial<typeof EMPTY_PROJECT_FILTERS>) => filterProjects(rows, { ...EMPTY_PROJECT_FILTERS, ...filters }, () => {}).map((r) => r.id);
    expect(ids({ name: 'EXOME' })).toEqual(['p1', 'p2']);
    expect(ids({ name: '^exome ', nameMode: 'regex' })).toEqual(['p2']);
    expect(ids({ name: '(', nameMode: 'regex' })).toEqual([]);
    expect(ids({ tags: ['wgs'] })).toEqual(['p1', 'p3']);
    expect(ids({ tags: ['wgs', 'cohort'] })).toEqual(['p1']);
    expect(ids({ level: 'ADMINISTER' })).toEqual(['p1']);
    expect(ids({ billTo: 'org-acme' })).toEqual(['p2']);
    expect(ids({ created: { after: 150, before: 300 } })).toEqual(['p2', 'p3']);
  });

  it('sorts by each column with stable ties, and pages', () => {
    const rows = [row('b', 'beta', { members: 3 }), row('a', 'Alpha', { members: 3 }), row('c', 'gamma 10'), row('d', 'gamma 9')];
    expect(sortProjects(rows, 'name', true).map((r) => r.id)).toEqual(['a', 'b', 'd', 'c']);
    expect(sortProjects(rows, 'members', false).map((r) => r.id)).toEqual(['a', 'b', 'd', 'c']);
    expect(pageRows([1, 2, 3, 4, 5], 1, 2)).toEqual({ rows: [3, 4], page: 1 });
    expect(pageRows([1, 2, 3], 9, 2)).toEqual({ rows: [3], page: 1 });
    expect(pageRows([], 0, 20)).toEqual({ rows: [], page: 0 });
  });

  it('reads findProjects results', () => {
    expect(
      toProjectRow({
        id: 'project-1',
        level: 'ADMINISTER',
        describe: { name: 'X', tags: ['t', 3], permissions: { 'user-a': 'ADMINISTER', 'user-b': 'VIEW' } },
      }),
    ).toMatchObject({ name: 'X', tags: ['t'], members: 2 });
    expect(toProjectRow({ id: 'project-2', level: 'VIEW' }).name).toBe('project-2');
  });
});
