/**
 * The per-page filter state of SPEC §3 ("Filters per page") and its reducer (SPEC §4 "Filter list per
 * page"), pure: `filtersReducer(state, action)` never mutates `state`.
 *
 * - initialise: creates an empty state for the page if missing, then merges in the given initial state;
 * - set / clear a value;
 * - open / close a filter (closing removes it from the opened list, and drops its value when undefined);
 * - clear all: no values, none opened;
 * - replace all values at once.
 * The scope filter (current folder by default, or the whole project) and the list's show/hide state
 * live beside them.
 */

export interface DateRange {
  after?: number;
  before?: number;
}
export interface PropertyCondition {
  key: string;
  /** Empty: the key exists with any value. */
  value: string;
}
export type FilterValue = string | string[] | DateRange | PropertyCondition[] | undefined;

export type Scope = 'folder' | 'project';
export const DEFAULT_SCOPE: Scope = 'folder';

export interface PageFilterState {
  filterValues: Readonly<Record<string, FilterValue>>;
  openedFilterIDs: readonly string[];
  filterParams: Readonly<Record<string, unknown>>;
  showList: boolean;
  scope: { selectedScope: Scope };
}

export type FiltersState = Readonly<Record<string, PageFilterState>>;

export type FilterAction =
  | { type: 'initialize'; pageId: string; initial?: Partial<PageFilterState> }
  | { type: 'set'; pageId: string; filterId: string; value: FilterValue }
  | { type: 'clear'; pageId: string; filterId: string }
  | { type: 'open'; pageId: string; filterId: string }
  | { type: 'close'; pageId: string; filterId: string }
  | { type: 'clearAll'; pageId: string }
  | { type: 'replaceAll'; pageId: string; values: Record<string, FilterValue> }
  | { type: 'setScope'; pageId: string; scope: Scope }
  | { type: 'setParams'; pageId: string; params: Record<string, unknown> }
  | { type: 'showList'; pageId: string; show: boolean };

export function emptyPageFilters(): PageFilterState {
  return { filterValues: {}, openedFilterIDs: [], filterParams: {}, showList: true, scope: { selectedScope: DEFAULT_SCOPE } };
}

export function pageFilters(state: FiltersState, pageId: string): PageFilterState {
  return state[pageId] ?? emptyPageFilters();
}

function update(state: FiltersState, pageId: string, change: (page: PageFilterState) => PageFilterState): FiltersState {
  return { ...state, [pageId]: change(pageFilters(state, pageId)) };
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _dropped, ...rest } = record;
  return rest;
}

export function filtersReducer(state: FiltersState, action: FilterAction): FiltersState {
  switch (action.type) {
    case 'initialize': {
      const current = state[action.pageId] ?? emptyPageFilters();
      const initial = action.initial ?? {};
      return {
        ...state,
        [action.pageId]: {
          ...current,
          ...initial,
          filterValues: { ...current.filterValues, ...(initial.filterValues ?? {}) },
          filterParams: { ...current.filterParams, ...(initial.filterParams ?? {}) },
          openedFilterIDs: [...new Set([...current.openedFilterIDs, ...(initial.openedFilterIDs ?? [])])],
          scope: { ...current.scope, ...(initial.scope ?? {}) },
        },
      };
    }
    case 'set':
      return update(state, action.pageId, (page) => ({ ...page, filterValues: { ...page.filterValues, [action.filterId]: action.value } }));
    case 'clear':
      return update(state, action.pageId, (page) => ({ ...page, filterValues: without(page.filterValues, action.filterId) }));
    case 'open':
      return update(state, action.pageId, (page) =>
        page.openedFilterIDs.includes(action.filterId) ? page : { ...page, openedFilterIDs: [...page.openedFilterIDs, action.filterId] },
      );
    case 'close':
      return update(state, action.pageId, (page) => ({
        ...page,
        openedFilterIDs: page.openedFilterIDs.filter((id) => id !== action.filterId),
        filterValues: page.filterValues[action.filterId] === undefined ? without(page.filterValues, action.filterId) : page.filterValues,
      }));
    case 'clearAll':
      return update(state, action.pageId, (page) => ({ ...page, filterValues: {}, openedFilterIDs: [] }));
    case 'replaceAll':
      return update(state, action.pageId, (page) => ({ ...page, filterValues: { ...action.values } }));
    case 'setScope':
      return update(state, action.pageId, (page) => ({ ...page, scope: { selectedScope: action.scope } }));
    case 'setParams':
      return update(state, action.pageId, (page) => ({ ...page, filterParams: { ...page.filterParams, ...action.params } }));
    case 'showList':
      return update(state, action.pageId, (page) => ({ ...page, showList: action.show }));
  }
}

/** A value that filters something: not undefined, not an empty string, list or range. */
export function isActiveValue(value: FilterValue): boolean {
  if (value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return value.after !== undefined || value.before !== undefined;
}

/** Ids of the filters that currently filter. */
export function activeFilterIds(page: PageFilterState): string[] {
  return Object.entries(page.filterValues)
    .filter(([, value]) => isActiveValue(value))
    .map(([id]) => id);
}

/**
 * SPEC §5: folders are filtered only when the name filter is the only one set. With no filter every
 * folder shows; with any other filter no folder does (folders have no class, state, tags or dates).
 */
export function folderFilterMode(page: PageFilterState, nameFilterId = 'name'): 'all' | 'by-name' | 'none' {
  const active = activeFilterIds(page).filter((id) => id !== `${nameFilterId}Mode`);
  if (active.length === 0) return 'all';
  if (active.length === 1 && active[0] === nameFilterId) return 'by-name';
  return 'none';
}
