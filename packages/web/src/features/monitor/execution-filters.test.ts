import { describe, expect, it } from 'vitest';
import { filtersReducer, pageFilters } from '../data/filters';
import { dayRange, dayValue, EXECUTIONS_PAGE_ID, findExecutionsInput, parseDay } from './execution-filters';

const withValues = (values: Record<string, unknown>) => {
  let state = filtersReducer({}, { type: 'initialize', pageId: EXECUTIONS_PAGE_ID });
  for (const [filterId, value] of Object.entries(values)) {
    state = filtersReducer(state, { type: 'set', pageId: EXECUTIONS_PAGE_ID, filterId, value: value as never });
  }
  return pageFilters(state, EXECUTIONS_PAGE_ID);
};

describe('findExecutionsInput', () => {
  it('asks for the project’s top-level executions with their describe when nothing filters', () => {
    const { input, problems } = findExecutionsInput('project-1', withValues({}), 200);
    expect(problems).toEqual([]);
    expect(input).toMatchObject({ project: 'project-1', includeSubjobs: false, parentAnalysis: null, limit: 200 });
    expect(input.describe).toMatchObject({ fields: { state: true, launchedBy: true, totalPrice: true } });
    expect(input.state).toBeUndefined();
  });

  it('turns every filter into the server’s terms', () => {
    const { input, problems } = findExecutionsInput(
      'project-1',
      withValues({
        state: ['running', 'failed'],
        name: 'align',
        executable: 'applet-0123456789abcdefghijklmn',
        launchedBy: 'user-ann',
        created: { after: 10, before: 20 },
        tags: ['a', 'b'],
      }),
      50,
    );
    expect(problems).toEqual([]);
    expect(input).toMatchObject({
      state: ['running', 'failed'],
      name: { regexp: 'align', flags: 'i' },
      executable: 'applet-0123456789abcdefghijklmn',
      launchedBy: 'user-ann',
      created: { after: 10, before: 20 },
      tags: { $and: ['a', 'b'] },
    });
    expect(findExecutionsInput('project-1', withValues({ tags: ['only'] }), 1).input.tags).toBe('only');
  });

  it('escapes a plain-text name and keeps a regular expression', () => {
    expect(findExecutionsInput('project-1', withValues({ name: 'a.b' }), 1).input.name).toEqual({ regexp: 'a\\.b', flags: 'i' });
    expect(findExecutionsInput('project-1', withValues({ name: '^a.b$', nameMode: 'regex' }), 1).input.name).toEqual({ regexp: '^a.b$', flags: 'i' });
  });

  it('names bad values instead of sending them', () => {
    const { input, problems } = findExecutionsInput(
      'project-1',
      withValues({ name: '(', nameMode: 'regex', executable: 'bwa', launchedBy: 'ann', created: { after: 20, before: 10 }, state: ['running', 'bogus'] }),
      1,
    );
    expect(problems.map((problem) => problem.filterId).sort()).toEqual(['created', 'executable', 'launchedBy', 'name', 'state']);
    expect(input).not.toHaveProperty('executable');
    expect(input).not.toHaveProperty('launchedBy');
    expect(input).not.toHaveProperty('created');
    expect(input.state).toEqual(['running']);
  });

  it('clearing all filters through the shared reducer gives the unfiltered query again', () => {
    let state = filtersReducer({}, { type: 'set', pageId: EXECUTIONS_PAGE_ID, filterId: 'state', value: ['done'] });
    state = filtersReducer(state, { type: 'clearAll', pageId: EXECUTIONS_PAGE_ID });
    expect(findExecutionsInput('project-1', pageFilters(state, EXECUTIONS_PAGE_ID), 1).input.state).toBeUndefined();
  });
});

describe('date range', () => {
  it('takes whole local days, both ends included, and rejects impossible dates', () => {
    const range = dayRange('2026-03-01', '2026-03-02');
    expect(range?.after).toBe(new Date(2026, 2, 1).getTime());
    expect(range?.before).toBe(new Date(2026, 2, 3).getTime() - 1);
    expect(dayRange('', '')).toBeUndefined();
    expect(dayRange('2026-02-30', '')).toBeUndefined();
    expect(parseDay('yesterday')).toBeUndefined();
    expect(dayValue(new Date(2026, 0, 5, 13).getTime())).toBe('2026-01-05');
    expect(dayValue(undefined)).toBe('');
  });
});
