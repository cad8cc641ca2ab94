import { Checkbox, Menu, Text, UnstyledButton } from '@mantine/core';
import { columnSizingFeature, columnVisibilityFeature, createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import type { Row } from '@tanstack/react-table';
import { formatDate } from '../../lib/format';
import { formatBytes } from '../viewer/formats';
import classes from './DataPage.module.css';
import { FileIcon, FolderIcon } from './icons';
import { type BrowserRow, DATA_COLUMN_LABELS, DATA_COLUMNS, type DataColumn, type DataTableOptions } from './table-options';

const features = tableFeatures({ columnVisibilityFeature, columnSizingFeature });
const helper = createColumnHelper<typeof features, BrowserRow>();
export const ROW_HEIGHT = 40;

export interface RowHandlers {
  selected: ReadonlySet<string>;
  /** Set by the table: opens the one shared actions menu beside the clicked button. */
  openMenu?: (row: BrowserRow, anchor: HTMLElement) => void;
  onSelect: (row: BrowserRow, on: boolean) => void;
  onOpen: (row: BrowserRow) => void;
  menu: (row: BrowserRow) => ReactNode;
  language: string;
}

const DEFAULT_SIZES: Record<DataColumn, number> = {
  name: 260,
  class: 76,
  state: 84,
  level: 90,
  size: 90,
  tags: 120,
  created: 112,
  modified: 112,
};

function buildColumns(handlers: RowHandlers, options: DataTableOptions) {
  const size = (column: DataColumn) => options.sizeColumns[column] ?? DEFAULT_SIZES[column];
  return helper.columns([
    helper.display({
      id: 'select',
      size: 40,
      header: () => null,
      cell: ({ row }) => (
        <input
          type="checkbox"
          className={classes.check}
          aria-label={`Select ${row.original.name}`}
          checked={handlers.selected.has(row.original.id)}
          onChange={(event) => handlers.onSelect(row.original, event.currentTarget.checked)}
        />
      ),
    }),
    helper.accessor('name', {
      header: DATA_COLUMN_LABELS.name,
      size: size('name'),
      cell: ({ row }) => (
        <UnstyledButton className={classes.nameButton} onClick={() => handlers.onOpen(row.original)} title={row.original.name}>
          <span className={classes.icon}>{row.original.kind === 'folder' ? <FolderIcon /> : <FileIcon kind={row.original.class} />}</span>
          <span className={classes.ellipsis}>{row.original.name}</span>
          {row.original.hidden && <span className={`${classes.pill} ${classes.pillGray}`}>hidden</span>}
        </UnstyledButton>
      ),
    }),
    helper.accessor('class', { header: DATA_COLUMN_LABELS.class, size: size('class'), cell: ({ getValue }) => getValue() }),
    helper.accessor('state', {
      header: DATA_COLUMN_LABELS.state,
      size: size('state'),
      cell: ({ getValue }) =>
        getValue() ? (
          <span className={`${classes.pill} ${getValue() === 'closed' ? classes.pillGreen : getValue() === 'open' ? classes.pillYellow : classes.pillGray}`}>
            {getValue()}
          </span>
        ) : null,
    }),
    helper.display({ id: 'level', header: DATA_COLUMN_LABELS.level, size: size('level'), cell: () => null }),
    helper.accessor('size', {
      header: DATA_COLUMN_LABELS.size,
      size: size('size'),
      cell: ({ row }) => (row.original.kind === 'folder' ? '' : formatBytes(row.original.size)),
    }),
    helper.accessor('tags', {
      header: DATA_COLUMN_LABELS.tags,
      size: size('tags'),
      cell: ({ getValue }) => (
        <span className={classes.ellipsis}>
          {getValue().map((tag) => (
            <span key={tag} className={`${classes.pill} ${classes.tag}`}>
              {tag}
            </span>
          ))}
        </span>
      ),
    }),
    helper.accessor('created', {
      header: DATA_COLUMN_LABELS.created,
      size: size('created'),
      cell: ({ row }) => (row.original.kind === 'folder' ? '' : formatDate(row.original.created, handlers.language)),
    }),
    helper.accessor('modified', {
      header: DATA_COLUMN_LABELS.modified,
      size: size('modified'),
      cell: ({ row }) => (row.original.kind === 'folder' ? '' : formatDate(row.original.modified, handlers.language)),
    }),
    helper.display({
      id: 'actions',
      size: 48,
      header: () => null,
      cell: ({ row }) => (
        <button
          type="button"
          className={classes.rowMenu}
          aria-label={`Actions for ${row.original.name}`}
          aria-haspopup="menu"
          onClick={(event) => handlers.openMenu?.(row.original, event.currentTarget)}
        >
          ⋯
        </button>
      ),
    }),
  ]);
}

/**
 * The object table: TanStack Table for the columns, TanStack Virtual for the rows, so that only the
 * rows in view (plus a few) are in the DOM whatever the folder holds. Nearing the end of what is loaded
 * asks for the next page.
 */
export function ObjectTable({
  rows,
  options,
  handlers,
  narrow,
  hasMore,
  loadingMore,
  onNeedMore,
  onSort,
  allSelected,
  onSelectAll,
  empty,
}: {
  rows: BrowserRow[];
  options: DataTableOptions;
  handlers: RowHandlers;
  narrow: boolean;
  hasMore: boolean;
  loadingMore: boolean;
  onNeedMore: () => void;
  onSort: (column: DataColumn) => void;
  allSelected: boolean;
  onSelectAll: (on: boolean) => void;
  empty: ReactNode;
}) {
  const [menu, setMenu] = useState<{ row: BrowserRow; x: number; y: number }>();
  const withMenu = useMemo<RowHandlers>(
    () => ({
      ...handlers,
      openMenu: (row, anchor) => {
        const box = anchor.getBoundingClientRect();
        setMenu({ row, x: box.right, y: box.bottom });
      },
    }),
    [handlers],
  );
  const columns = useMemo(() => buildColumns(withMenu, options), [withMenu, options]);
  const columnVisibility = useMemo(() => {
    const visible = narrow ? new Set<string>(['name', 'size']) : new Set<string>(options.columnsToShow);
    return Object.fromEntries(DATA_COLUMNS.map((column) => [column, visible.has(column)]));
  }, [narrow, options.columnsToShow]);
  const table = useTable({ features, columns, data: rows, getRowId: (row) => row.id, state: { columnVisibility } });
  const tableRows = table.getRowModel().rows;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: tableRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (index) => tableRows[index]?.id ?? index,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => {
    if (hasMore && !loadingMore && lastIndex >= tableRows.length - 200) onNeedMore();
  }, [hasMore, loadingMore, lastIndex, tableRows.length, onNeedMore]);
  const sort = options.sortOrder[0];
  const totalWidth = table.getVisibleLeafColumns().reduce((sum, column) => sum + column.getSize(), 0);

  return (
    <div ref={scrollRef} className={classes.scroller} data-testid="object-scroller">
      <table className={classes.grid} style={{ minWidth: narrow ? undefined : totalWidth }} aria-label="Folder contents" aria-rowcount={tableRows.length}>
        <HeaderRow
          table={table}
          columnsKey={columns}
          visibility={columnVisibility}
          sort={sort}
          allSelected={allSelected}
          onSort={onSort}
          onSelectAll={onSelectAll}
        />
        {tableRows.length === 0 ? (
          <tbody>
            <tr>
              <td className={classes.emptyCell}>{empty}</td>
            </tr>
          </tbody>
        ) : (
          <tbody className={classes.tbody} style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const row = tableRows[item.index];
              if (!row) return null;
              return (
                <VirtualRow
                  key={row.id}
                  row={row}
                  index={item.index}
                  start={item.start}
                  selected={handlers.selected.has(row.id)}
                  onOpen={handlers.onOpen}
                  cellsKey={columns}
                  visibility={columnVisibility}
                />
              );
            })}
          </tbody>
        )}
      </table>
      <Menu opened={menu !== undefined} onClose={() => setMenu(undefined)} position="bottom-end" withinPortal shadow="md">
        <Menu.Target>
          <span className={classes.menuAnchor} style={{ left: menu?.x ?? 0, top: menu?.y ?? 0 }} />
        </Menu.Target>
        <Menu.Dropdown>{menu ? handlers.menu(menu.row) : null}</Menu.Dropdown>
      </Menu>
      {(hasMore || loadingMore) && (
        <Text size="xs" c="dimmed" ta="center" py={6} className={classes.more}>
          {loadingMore ? 'Loading more…' : 'Scroll for more'}
        </Text>
      )}
    </div>
  );
}

type TableRow = Row<typeof features, BrowserRow>;

/**
 * One row of the virtual list. Memoised: while scrolling, rows that stay in view only move (their
 * `start` changes), and only the rows entering the view render their cells.
 */
const VirtualRow = memo(function VirtualRow({
  row,
  index,
  start,
  selected,
  onOpen,
}: {
  row: TableRow;
  index: number;
  start: number;
  selected: boolean;
  onOpen: (row: BrowserRow) => void;
  /** Identity of the column definitions and visibility: rows re-render when they change. */
  cellsKey: unknown;
  visibility: unknown;
}) {
  return (
    <tr
      data-index={index}
      className={`${classes.tr} ${classes.row} ${selected ? classes.selected : ''}`}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT }}
      aria-rowindex={index + 1}
      onDoubleClick={() => onOpen(row.original)}
    >
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} className={`${classes.td} ${cell.column.id === 'name' ? classes.flexCell : ''}`} style={{ width: cell.column.getSize() }}>
          <CellContent cell={cell} />
        </td>
      ))}
    </tr>
  );
});

function CellContent({ cell }: { cell: ReturnType<TableRow['getVisibleCells']>[number] }) {
  const render = cell.column.columnDef.cell;
  if (typeof render === 'function') return <>{render(cell.getContext())}</>;
  return <>{render ?? null}</>;
}

type TableInstance = ReturnType<typeof useTable<typeof features, BrowserRow>>;

/** The header row, memoised so that scrolling (which re-renders the table body) leaves it alone. */
const HeaderRow = memo(function HeaderRow({
  table,
  sort,
  allSelected,
  onSort,
  onSelectAll,
}: {
  table: TableInstance;
  columnsKey: unknown;
  visibility: unknown;
  sort: DataTableOptions['sortOrder'][number] | undefined;
  allSelected: boolean;
  onSort: (column: DataColumn) => void;
  onSelectAll: (on: boolean) => void;
}) {
  return (
    <thead className={classes.thead}>
      {table.getHeaderGroups().map((group) => (
        <tr key={group.id} className={classes.tr}>
          {group.headers.map((header) => {
            const id = header.column.id as DataColumn | 'select' | 'actions';
            const sorted = sort?.id === id;
            const sortable = id !== 'select' && id !== 'actions' && id !== 'level';
            return (
              <th
                key={header.id}
                className={`${classes.th} ${id === 'name' ? classes.flexCell : ''}`}
                style={{ width: header.getSize() }}
                aria-sort={sorted ? (sort?.desc ? 'descending' : 'ascending') : undefined}
              >
                {id === 'select' ? (
                  <Checkbox
                    size="xs"
                    aria-label="Select everything listed"
                    checked={allSelected}
                    onChange={(event) => onSelectAll(event.currentTarget.checked)}
                  />
                ) : sortable ? (
                  <button type="button" className={classes.sort} onClick={() => onSort(id)}>
                    <table.FlexRender header={header} />
                    <span aria-hidden className={classes.arrow}>
                      {sorted ? (sort?.desc ? '▼' : '▲') : ''}
                    </span>
                  </button>
                ) : (
                  <table.FlexRender header={header} />
                )}
              </th>
            );
          })}
        </tr>
      ))}
    </thead>
  );
});
