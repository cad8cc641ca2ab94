import { Group, Text, Tooltip } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import {
  ancestorsOf,
  buildExecutionTree,
  type ExecutionRow,
  executionPagePath,
  executionStateColor,
  executionStateLabel,
  flattenTree,
} from './execution-model';
import classes from './Monitor.module.css';

const ROW_HEIGHT = 30;

/**
 * The execution tree of the details page (an analysis's stages, a job's subjobs, theirs…),
 * virtualised so that 1,000+ subjobs stay responsive; the current execution highlighted and
 * revealed; arrows and Enter move through it from the keyboard.
 */
export function ExecutionTree({ rows, current, stageOrder = [] }: { rows: readonly ExecutionRow[]; current: string; stageOrder?: readonly string[] }) {
  const navigate = useNavigate();
  const roots = useMemo(() => buildExecutionTree(rows, stageOrder), [rows, stageOrder]);
  // Collapsed nodes (everything is open at first); the current one's ancestors are always revealed.
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const revealed = useMemo(() => new Set(ancestorsOf(rows, current)), [rows, current]);
  const flat = useMemo(() => flattenTree(roots, (id) => !collapsed.has(id) || revealed.has(id)), [roots, collapsed, revealed]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: flat.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
    getItemKey: (index) => flat[index]?.row.id ?? index,
  });
  const currentIndex = flat.findIndex((entry) => entry.row.id === current);
  const [focused, setFocused] = useState(-1);
  // Bring the current execution into view when it changes (not on every refresh).
  const revealedFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (currentIndex >= 0 && revealedFor.current !== current) {
      revealedFor.current = current;
      virtualizer.scrollToIndex(currentIndex, { align: 'auto' });
    }
  }, [current, currentIndex, virtualizer]);

  const toggle = (id: string) =>
    setCollapsed((now) => {
      const next = new Set(now);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const onKeyDown = (event: React.KeyboardEvent) => {
    const index = focused >= 0 ? focused : Math.max(0, currentIndex);
    const entry = flat[index];
    let next = index;
    if (event.key === 'ArrowDown') next = Math.min(flat.length - 1, index + 1);
    else if (event.key === 'ArrowUp') next = Math.max(0, index - 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = flat.length - 1;
    else if (entry && event.key === 'ArrowRight' && entry.hasChildren && !entry.expanded) toggle(entry.row.id);
    else if (entry && event.key === 'ArrowLeft' && entry.expanded) toggle(entry.row.id);
    else if (entry && event.key === 'Enter') navigate(executionPagePath(entry.row));
    else return;
    event.preventDefault();
    setFocused(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  return (
    <div>
      <Group justify="space-between" px={4} pb={4}>
        <Text size="xs" c="dimmed">
          {rows.length} execution{rows.length === 1 ? '' : 's'} in this tree
        </Text>
      </Group>
      <div
        className={classes.treeScroller}
        ref={scrollRef}
        role="tree"
        aria-label="Execution tree"
        tabIndex={0}
        onKeyDown={onKeyDown}
        aria-activedescendant={flat[focused >= 0 ? focused : currentIndex] ? `tree-${flat[focused >= 0 ? focused : currentIndex]?.row.id}` : undefined}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const entry = flat[item.index];
            if (!entry) return null;
            return (
              <div key={item.key} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}>
                <TreeLine
                  row={entry.row}
                  depth={entry.depth}
                  hasChildren={entry.hasChildren}
                  expanded={entry.expanded}
                  active={entry.row.id === current}
                  focused={item.index === focused}
                  onToggle={toggle}
                  onOpen={(row) => navigate(executionPagePath(row))}
                />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

const TreeLine = memo(function TreeLine({
  row,
  depth,
  hasChildren,
  expanded,
  active,
  focused,
  onToggle,
  onOpen,
}: {
  row: ExecutionRow;
  depth: number;
  hasChildren: boolean;
  expanded: boolean;
  active: boolean;
  focused: boolean;
  onToggle: (id: string) => void;
  onOpen: (row: ExecutionRow) => void;
}) {
  const color = executionStateColor(row.state);
  return (
    // biome-ignore lint/a11y/useFocusableInteractive: the tree container holds focus (aria-activedescendant)
    <div
      id={`tree-${row.id}`}
      role="treeitem"
      aria-selected={active}
      aria-expanded={hasChildren ? expanded : undefined}
      aria-level={depth + 1}
      data-execution={row.id}
      data-state={row.state}
      className={`${classes.treeRow} ${active ? classes.treeRowActive : ''}`}
      style={{ paddingLeft: 4 + depth * 16, height: ROW_HEIGHT, outline: focused ? '2px solid var(--mantine-color-blue-4)' : undefined }}
      onClick={() => onOpen(row)}
      onKeyDown={undefined}
    >
      {hasChildren ? (
        <button
          type="button"
          className={classes.toggle}
          tabIndex={-1}
          aria-label={expanded ? `Collapse ${row.name}` : `Expand ${row.name}`}
          onClick={(event) => {
            event.stopPropagation();
            onToggle(row.id);
          }}
        >
          {expanded ? '▼' : '▶'}
        </button>
      ) : (
        <span className={classes.spacer} />
      )}
      <Tooltip label={executionStateLabel(row.state)} withinPortal openDelay={300}>
        <span className={classes.dot} style={{ background: `var(--mantine-color-${color}-6)` }} />
      </Tooltip>
      <Text size="sm" truncate style={{ flex: 1, minWidth: 0 }} title={`${row.name} (${row.id})`}>
        {row.stage ? `${row.name}` : row.name}
      </Text>
      <Text size="xs" c="dimmed">
        {executionStateLabel(row.state)}
      </Text>
    </div>
  );
});
