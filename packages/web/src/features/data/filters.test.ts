import { describe, expect, it } from 'vitest';
import { emptyPageFilters, type FiltersState, filtersReducer, folderFilterMode, pageFilters } from './filters';

const P = 'data-manager';

describe('filter list per page (SPEC §4)', () => {
  it('initialise creates an empty state if missing and merges the initial state', () => {
    let state: FiltersState = filtersReducer({}, { type: 'initialize', pageId: P });
    expect(state[P]).toEqual(emptyPageFilters());
    expect(state[P]?.scope.selectedScope).toBe('folder');
    state = filtersReducer(state, { type: 'set', pageId: P, filterId: 'class', value: 'file' });
    state = filtersReducer(state, { type: 'initialize', pageId: P, initial: { filterValues: { name: 'x' }, openedFilterIDs: ['name'] } });
    expect(state[P]?.filterValues).toEqual({ class: 'file', name: 'x' });
    expect(state[P]?.openedFilterIDs).toEqual(['name']);
  });

  it('sets and clears values without touching other pages', () => {
    const other = filtersReducer({}, { type: 'set', pageId: 'other', filterId: 'name', value: 'keep' });
    const set = filtersReducer(other, { type: 'set', pageId: P, filterId: 'name', value: 'reads' });
    expect(pageFilters(set, P).filterValues).toEqual({ name: 'reads' });
    const cleared = filtersReducer(set, { type: 'clear', pageId: P, filterId: 'name' });
    expect(pageFilters(cleared, P).filterValues).toEqual({});
    expect(pageFilters(cleared, 'other').filterValues).toEqual({ name: 'keep' });
    expect(pageFilters(set, P).filterValues).toEqual({ name: 'reads' });
  });

  it('opens once; closing removes it from the opened list and drops its value only when undefined', () => {
    let state = filtersReducer({}, { type: 'open', pageId: P, filterId: 'tags' });
    state = filtersReducer(state, { type: 'open', pageId: P, filterId: 'tags' });
    state = filtersReducer(state, { type: 'open', pageId: P, filterId: 'class' });
    expect(pageFilters(state, P).openedFilterIDs).toEqual(['tags', 'class']);
    state = filtersReducer(state, { type: 'set', pageId: P, filterId: 'tags', value: undefined });
    state = filtersReducer(state, { type: 'set', pageId: P, filterId: 'class', value: 'file' });
    state = filtersReducer(state, { type: 'close', pageId: P, filterId: 'tags' });
    state = filtersReducer(state, { type: 'close', pageId: P, filterId: 'class' });
    expect(pageFilters(state, P).openedFilterIDs).toEqual([]);
    expect(pageFilters(state, P).filterValues).toEqual({ class: 'file' });
  });

  it('clear all resets to no values and none opened; replace all sets every value at once', () => {
    let state = filtersReducer({}, { type: 'set', pageId: P, filterId: 'name', value: 'a' });
    state = filtersReducer(state, { type: 'open', pageId: P, filterId: 'name' });
    state = filtersReducer(state, { type: 'setScope', pageId: P, scope: 'project' });
    state = filtersReducer(state, { type: 'clearAll', pageId: P });
    expect(pageFilters(state, P)).toMatchObject({ filterValues: {}, openedFilterIDs: [], scope: { selectedScope: 'project' } });
    state = filtersReducer(state, { type: 'replaceAll', pageId: P, values: { class: 'record', tags: ['x'] } });
    expect(pageFilters(state, P).filterValues).toEqual({ class: 'record', tags: ['x'] });
  });

  it('filters folders only when the name filter is the only one set (SPEC §5)', () => {
    const page = (values: Record<string, string | string[]>) => ({ ...emptyPageFilters(), filterValues: values });
    expect(folderFilterMode(page({}))).toBe('all');
    expect(folderFilterMode(page({ name: '', tags: [] }))).toBe('all');
    expect(folderFilterMode(page({ name: 'reads', nameMode: 'regex' }))).toBe('by-name');
    expect(folderFilterMode(page({ name: 'reads', class: 'file' }))).toBe('none');
    expect(folderFilterMode(page({ class: 'file' }))).toBe('none');
  });
});
