/**
 * The project list state of SPEC §3 (sort column name ascending, page 0, 20 per page, checked rows, wide
 * mode, filter bar, detail panel), its filters (name as text or regex, tags, access level, billed to,
 * created and modified ranges) and the rows of one page. Pure.
 */
import { PROJECT_LIST_PAGE_SIZE } from '@panx/contract';
import type { DateRange } from '../data/filters';
import { type NameFilterMode, nameMatcher } from '../data/name-filter';

export const PROJECT_COLUMNS = ['name', 'tags', 'level', 'members', 'created', 'modified'] as const;
export type ProjectColumn = (typeof PROJECT_COLUMNS)[number];
export const PROJECT_COLUMN_LABELS: Record<ProjectColumn, string> = {
  name: 'Name',
  tags: 'Tags',
  level: 'Access',
  members: 'Members',
  created: 'Created',
  modified: 'Modified',
};

export interface ProjectRow {
  id: string;
  name: string;
  level: string;
  tags: string[];
  /** Members with explicit access (users and orgs). */
  members: number;
  created: number | undefined;
  modified: number | undefined;
  billTo: string | undefined;
  region: string | undefined;
  summary: string | undefined;
  containsPHI: boolean;
  dataUsage: number | undefined;
}

export interface ProjectListState {
  sortColumn: ProjectColumn;
  sortAsc: boolean;
  currentPage: number;
  perPage: number;
  checkedRows: string[];
  wideMode: boolean;
  showFilter: boolean;
  showEditor: boolean;
  /** The project whose details show in the side panel. */
  detailProject: string | undefined;
}

export function initialProjectListState(): ProjectListState {
  return {
    sortColumn: 'name',
    sortAsc: true,
    currentPage: 0,
    perPage: PROJECT_LIST_PAGE_SIZE,
    checkedRows: [],
    wideMode: false,
    showFilter: false,
    showEditor: false,
    detailProject: undefined,
  };
}

export type ProjectListAction =
  | { type: 'sort'; column: ProjectColumn }
  | { type: 'page'; page: number }
  | { type: 'perPage'; perPage: number }
  | { type: 'check'; id: string; checked: boolean }
  | { type: 'checkAll'; ids: string[]; checked: boolean }
  | { type: 'wideMode'; on: boolean }
  | { type: 'showFilter'; on: boolean }
  | { type: 'showEditor'; on: boolean }
  | { type: 'detail'; id: string | undefined }
  | { type: 'filtersChanged' };

export function projectListReducer(state: ProjectListState, action: ProjectListAction): ProjectListState {
  switch (action.type) {
    case 'sort':
      return state.sortColumn === action.column
        ? { ...state, sortAsc: !state.sortAsc, currentPage: 0 }
        : { ...state, sortColumn: action.column, sortAsc: true, currentPage: 0 };
    case 'page':
      return { ...state, currentPage: Math.max(0, Math.floor(action.page)) };
    case 'perPage':
      return { ...state, perPage: Math.max(1, action.perPage), currentPage: 0 };
    case 'check':
      return {
        ...state,
        checkedRows: action.checked ? [...new Set([...state.checkedRows, action.id])] : state.checkedRows.filter((id) => id !== action.id),
      };
    case 'checkAll':
      return {
        ...state,
        checkedRows: action.checked ? [...new Set([...state.checkedRows, ...action.ids])] : state.checkedRows.filter((id) => !action.ids.includes(id)),
      };
    case 'wideMode':
      return { ...state, wideMode: action.on };
    case 'showFilter':
      return { ...state, showFilter: action.on };
    case 'showEditor':
      return { ...state, showEditor: action.on };
    case 'detail':
      return { ...state, detailProject: action.id };
    case 'filtersChanged':
      return { ...state, currentPage: 0 };
  }
}

export interface ProjectFilters {
  name: string;
  nameMode: NameFilterMode;
  /** Every tag listed must be on the project. */
  tags: string[];
  /** Exact access level, or '' for any. */
  level: string;
  billTo: string;
  created: DateRange;
  modified: DateRange;
}

export const EMPTY_PROJECT_FILTERS: ProjectFilters = { name: '', nameMode: 'text', tags: [], level: '', billTo: '', created: {}, modified: {} };

function inRange(value: number | undefined, range: DateRange): boolean {
  if (range.after === undefined && range.before === undefined) return true;
  if (value === undefined) return false;
  return (range.after === undefined || value >= range.after) && (range.before === undefined || value <= range.before);
}

export function filterProjects(rows: readonly ProjectRow[], filters: ProjectFilters, log?: (message: string) => void): ProjectRow[] {
  const matches = nameMatcher(filters.name, filters.nameMode, log);
  const tags = filters.tags.map((tag) => tag.toLowerCase());
  return rows.filter(
    (row) =>
      matches(row.name) &&
      tags.every((tag) => row.tags.some((own) => own.toLowerCase() === tag)) &&
      (!filters.level || row.level === filters.level) &&
      (!filters.billTo || row.billTo === filters.billTo) &&
      inRange(row.created, filters.created) &&
      inRange(row.modified, filters.modified),
  );
}

const LEVEL_ORDER = ['NONE', 'VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER'];

function compare(a: ProjectRow, b: ProjectRow, column: ProjectColumn): number {
  switch (column) {
    case 'name':
      return a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
    case 'tags':
      return a.tags.join(',').localeCompare(b.tags.join(','), undefined, { sensitivity: 'base' });
    case 'level':
      return LEVEL_ORDER.indexOf(a.level) - LEVEL_ORDER.indexOf(b.level);
    case 'members':
      return a.members - b.members;
    case 'created':
      return (a.created ?? 0) - (b.created ?? 0);
    case 'modified':
      return (a.modified ?? 0) - (b.modified ?? 0);
  }
}

/** Sorted by the column (ties by name, then id, so the order is stable across reloads). */
export function sortProjects(rows: readonly ProjectRow[], column: ProjectColumn, ascending: boolean): ProjectRow[] {
  const direction = ascending ? 1 : -1;
  return [...rows].sort((a, b) => direction * compare(a, b, column) || compare(a, b, 'name') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/** The rows of the current page; a page past the end shows the last page. */
export function pageRows<T>(rows: readonly T[], page: number, perPage: number): { rows: T[]; page: number } {
  const last = pageCount(rows.length, perPage) - 1;
  const current = Math.min(Math.max(0, page), last);
  return { rows: rows.slice(current * perPage, (current + 1) * perPage), page: current };
}

/** `sessionData.favorites.projects` first: starred projects are listed before the others when asked. */
export function favouritesFirst(rows: readonly ProjectRow[], favourites: readonly string[]): ProjectRow[] {
  const starred = new Set(favourites);
  return [...rows.filter((row) => starred.has(row.id)), ...rows.filter((row) => !starred.has(row.id))];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A `system/findProjects` result with `describe` → a row. */
export function toProjectRow(result: { id: string; level: string; describe?: unknown }): ProjectRow {
  const d = isRecord(result.describe) ? result.describe : {};
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const str = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    id: result.id,
    name: str(d.name) ?? result.id,
    level: result.level,
    tags: Array.isArray(d.tags) ? d.tags.filter((tag): tag is string => typeof tag === 'string') : [],
    members: isRecord(d.permissions) ? Object.keys(d.permissions).length : 0,
    created: num(d.created),
    modified: num(d.modified),
    billTo: str(d.billTo),
    region: str(d.region),
    summary: str(d.summary),
    containsPHI: d.containsPHI === true,
    dataUsage: num(d.dataUsage),
  };
}
