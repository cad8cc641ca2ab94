/**
 * Data table options (SPEC §3): columns to show, page size (50), column sizes, columns hidden for
 * objects, and the sort order (a list of column id plus descending flag); and the order of the data
 * browser's rows under them (folders first). Pure.
 */
import { TABLE_PAGE_SIZE } from '@panx/contract';

export const DATA_COLUMNS = ['name', 'class', 'state', 'level', 'size', 'tags', 'created', 'modified'] as const;
export type DataColumn = (typeof DATA_COLUMNS)[number];

export const DATA_COLUMN_LABELS: Record<DataColumn, string> = {
  name: 'Name',
  class: 'Type',
  state: 'State',
  level: 'Access',
  size: 'Size',
  tags: 'Tags',
  created: 'Created',
  modified: 'Modified',
};

export interface SortEntry {
  id: DataColumn;
  desc: boolean;
}

export interface DataTableOptions {
  columnsToShow: DataColumn[];
  pageSize: number;
  sizeColumns: Partial<Record<DataColumn, number>>;
  columnsToHideObject: DataColumn[];
  sortOrder: SortEntry[];
}

/** The detail columns of SPEC §3 (name with icon, class, access, size, created) plus state and modified. */
export function defaultDataTableOptions(): DataTableOptions {
  return {
    columnsToShow: ['name', 'class', 'state', 'size', 'tags', 'created', 'modified'],
    pageSize: TABLE_PAGE_SIZE,
    sizeColumns: {},
    columnsToHideObject: [],
    sortOrder: [],
  };
}

export function toggleColumn(options: DataTableOptions, column: DataColumn): DataTableOptions {
  if (column === 'name') return options; // the name always shows
  const shown = options.columnsToShow.includes(column);
  return {
    ...options,
    columnsToShow: shown ? options.columnsToShow.filter((c) => c !== column) : DATA_COLUMNS.filter((c) => c === column || options.columnsToShow.includes(c)),
  };
}

export function setColumnSize(options: DataTableOptions, column: DataColumn, size: number): DataTableOptions {
  return { ...options, sizeColumns: { ...options.sizeColumns, [column]: Math.max(60, Math.min(1200, Math.round(size))) } };
}

/** Clicking a header: ascending, then descending, then unsorted (the server's order). */
export function cycleSort(options: DataTableOptions, column: DataColumn): DataTableOptions {
  const current = options.sortOrder.find((entry) => entry.id === column);
  const sortOrder: SortEntry[] = !current ? [{ id: column, desc: false }] : !current.desc ? [{ id: column, desc: true }] : [];
  return { ...options, sortOrder };
}

export function parseTableOptions(text: string | null): DataTableOptions {
  const defaults = defaultDataTableOptions();
  if (!text) return defaults;
  try {
    const parsed = JSON.parse(text) as Partial<DataTableOptions>;
    const isColumn = (value: unknown): value is DataColumn => typeof value === 'string' && (DATA_COLUMNS as readonly string[]).includes(value);
    const columns = Array.isArray(parsed.columnsToShow) ? parsed.columnsToShow.filter(isColumn) : defaults.columnsToShow;
    return {
      ...defaults,
      columnsToShow: columns.includes('name') ? columns : ['name', ...columns],
      sizeColumns:
        typeof parsed.sizeColumns === 'object' && parsed.sizeColumns !== null
          ? Object.fromEntries(Object.entries(parsed.sizeColumns).filter(([key, value]) => isColumn(key) && typeof value === 'number'))
          : {},
      sortOrder: Array.isArray(parsed.sortOrder)
        ? parsed.sortOrder.filter((entry): entry is SortEntry => isColumn(entry?.id) && typeof entry?.desc === 'boolean').slice(0, 1)
        : [],
    };
  } catch {
    return defaults;
  }
}

export interface BrowserRow {
  id: string;
  kind: 'folder' | 'object';
  name: string;
  class: string;
  state?: string;
  size?: number;
  tags: string[];
  created?: number;
  modified?: number;
  folder: string;
  hidden: boolean;
  media?: string;
  project: string;
  properties?: Record<string, string>;
  types: string[];
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

function compareBy(a: BrowserRow, b: BrowserRow, column: DataColumn): number {
  switch (column) {
    case 'name':
      return collator.compare(a.name, b.name);
    case 'class':
      return a.class.localeCompare(b.class);
    case 'state':
      return (a.state ?? '').localeCompare(b.state ?? '');
    case 'level':
      return 0;
    case 'size':
      return (a.size ?? -1) - (b.size ?? -1);
    case 'tags':
      return a.tags.join(',').localeCompare(b.tags.join(','));
    case 'created':
      return (a.created ?? 0) - (b.created ?? 0);
    case 'modified':
      return (a.modified ?? 0) - (b.modified ?? 0);
  }
}

/** Folders first (by name), then objects by the sort order; unsorted keeps the given order. */
export function sortRows(rows: readonly BrowserRow[], sortOrder: readonly SortEntry[]): BrowserRow[] {
  const folders = rows.filter((row) => row.kind === 'folder').sort((a, b) => compareBy(a, b, 'name'));
  const objects = rows.filter((row) => row.kind === 'object');
  const entry = sortOrder[0];
  if (entry) {
    const direction = entry.desc ? -1 : 1;
    objects.sort((a, b) => direction * compareBy(a, b, entry.id) || compareBy(a, b, 'name') || (a.id < b.id ? -1 : 1));
  }
  return [...folders, ...objects];
}
