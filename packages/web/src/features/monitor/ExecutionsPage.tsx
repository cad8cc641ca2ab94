import {
  Alert,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Collapse,
  Group,
  List,
  Modal,
  MultiSelect,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useNarrow } from '../../ui/use-narrow';
import { notifications } from '@mantine/notifications';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { formatDateTime } from '../../lib/format';
import { ErrorState, LoadingState } from '../../ui/states';
import { describeError } from '../../ui/describe-error';
import { useSession } from '../auth/session';
import { activeFilterIds, type DateRange, filtersReducer, pageFilters } from '../data/filters';
import { field, useProject } from '../projects/hooks';
import { ProjectHeader } from '../projects/ProjectHeader';
import { dayRange, dayValue, EXECUTIONS_PAGE_ID, FILTER_LABELS, findExecutionsInput } from './execution-filters';
import {
  EXECUTION_STATES,
  type ExecutionRow,
  executionDuration,
  executionPagePath,
  executionStateLabel,
  formatCost,
  formatElapsed,
  isActive,
  terminateRefusal,
} from './execution-model';
import { LIST_PAGE_SIZE, useChildren, useExecutionList, useJobsWithSubjobs, useRunningCount, useTerminate } from './hooks';
import classes from './Monitor.module.css';
import { JobLogModal } from './log/JobLogModal';
import { StateBadge, userHandle } from './StateBadge';

const ROW_HEIGHT = 44;

interface VisibleRow {
  row: ExecutionRow;
  depth: number;
  /** undefined: not known yet (a toggle is offered). */
  hasChildren: boolean | undefined;
  expanded: boolean;
  /** A placeholder row ("Loading…", "No subjobs"). */
  note?: string;
}

/** `/panx/projects/{id}/monitor`: the project's jobs and analyses, filters, subjob/stage trees, multi-select terminate. */
export function ExecutionsPage() {
  const projectId = useParams().id ?? '';
  const { session } = useSession();
  const project = useProject(projectId);
  const level = field.str(project.data, 'level');

  // Filters: the per-page filter state of SPEC §3/§4 through the shared reducer.
  const [filters, dispatch] = useReducer(filtersReducer, {});
  useEffect(() => dispatch({ type: 'initialize', pageId: EXECUTIONS_PAGE_ID }), []);
  const page = pageFilters(filters, EXECUTIONS_PAGE_ID);
  const set = (filterId: string, value: string | string[] | DateRange | undefined) =>
    dispatch(value === undefined ? { type: 'clear', pageId: EXECUTIONS_PAGE_ID, filterId } : { type: 'set', pageId: EXECUTIONS_PAGE_ID, filterId, value });
  const [pages, setPages] = useState(1);
  const built = useMemo(() => findExecutionsInput(projectId, page, LIST_PAGE_SIZE), [projectId, page]);
  const [input] = useDebouncedValue(built.input, 300);
  const problems = built.problems;
  const list = useExecutionList(problems.length ? undefined : input, pages);
  const running = useRunningCount(projectId);
  const rows = list.data?.rows ?? [];

  // Options of the executable and launcher filters: what this page has seen.
  const [seenExecutables, setSeenExecutables] = useState<Map<string, string>>(new Map());
  const [seenLaunchers, setSeenLaunchers] = useState<Set<string>>(new Set());
  useEffect(() => {
    setSeenExecutables((current) => {
      const next = new Map(current);
      for (const row of rows) if (row.executable && !next.has(row.executable)) next.set(row.executable, row.executableName ?? row.executable);
      return next.size === current.size ? current : next;
    });
    setSeenLaunchers((current) => {
      const next = new Set(current);
      for (const row of rows) if (row.launchedBy) next.add(row.launchedBy);
      if (session?.userId) next.add(session.userId);
      return next.size === current.size ? current : next;
    });
  }, [rows, session?.userId]);

  // The tree: expanded rows and their children.
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const byId = useMemo(() => new Map(rows.map((row) => [row.id, row])), [rows]);
  const [expandedRowsById, setExpandedRowsById] = useState<Map<string, ExecutionRow>>(new Map());
  const expandedRows = useMemo(
    () => [...expanded].map((id) => byId.get(id) ?? expandedRowsById.get(id)).filter((row): row is ExecutionRow => row !== undefined),
    [expanded, byId, expandedRowsById],
  );
  const childQueries = useChildren(expandedRows);
  const childrenOf = useMemo(() => {
    const map = new Map<string, ExecutionRow[] | 'loading' | 'error'>();
    expandedRows.forEach((row, index) => {
      const query = childQueries[index];
      map.set(row.id, query?.data ?? (query?.isError ? 'error' : 'loading'));
    });
    return map;
  }, [expandedRows, childQueries]);
  // Children found become rows too, so that their own children can be expanded and selected.
  const allById = useMemo(() => {
    const map = new Map(byId);
    for (const children of childrenOf.values()) if (Array.isArray(children)) for (const child of children) if (!map.has(child.id)) map.set(child.id, child);
    return map;
  }, [byId, childrenOf]);

  // Jobs on screen (top-level and expanded children) that have subjobs.
  const jobIds = useMemo(
    () =>
      [...allById.values()]
        .filter((row) => row.executionClass === 'job')
        .map((row) => row.id)
        .sort(),
    [allById],
  );
  const withSubjobs = useJobsWithSubjobs(jobIds).data;

  const visible = useMemo(() => {
    const out: VisibleRow[] = [];
    const visit = (row: ExecutionRow, depth: number) => {
      const isOpen = expanded.has(row.id);
      const children = childrenOf.get(row.id);
      const known = Array.isArray(children)
        ? children.length > 0
        : row.executionClass === 'analysis'
          ? true
          : withSubjobs
            ? withSubjobs.has(row.id)
            : undefined;
      out.push({ row, depth, hasChildren: known, expanded: isOpen });
      if (!isOpen) return;
      if (children === 'loading' || children === undefined)
        out.push({ row: { ...row, id: `${row.id}#loading` }, depth: depth + 1, hasChildren: false, expanded: false, note: 'Loading…' });
      else if (children === 'error')
        out.push({ row: { ...row, id: `${row.id}#error` }, depth: depth + 1, hasChildren: false, expanded: false, note: 'Could not load these' });
      else if (children.length === 0)
        out.push({
          row: { ...row, id: `${row.id}#none` },
          depth: depth + 1,
          hasChildren: false,
          expanded: false,
          note: row.executionClass === 'analysis' ? 'No stages' : 'No subjobs',
        });
      else for (const child of children) if (depth < 20) visit(child, depth + 1);
    };
    for (const row of rows) visit(row, 0);
    return out;
  }, [rows, expanded, childrenOf, withSubjobs]);

  // Selection and terminate.
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const selectedRows = [...selected].map((id) => allById.get(id)).filter((row): row is ExecutionRow => row !== undefined);
  const refusal = terminateRefusal(project.data ? level : 'CONTRIBUTE', selectedRows, session?.userId);
  const viewOnly = project.data !== undefined && level !== 'CONTRIBUTE' && level !== 'ADMINISTER';
  const [confirming, setConfirming] = useState(false);
  // The job-log modal of one row (jobs have logs; analyses do not).
  const [logOf, setLogOf] = useState<ExecutionRow>();
  const terminate = useTerminate();
  const toTerminate = selectedRows.filter((row) => isActive(row.state));

  const now = list.dataUpdatedAt || Date.now();
  const activeFilters = activeFilterIds(page).filter((id) => id !== 'nameMode');
  const created = page.filterValues.created as DateRange | undefined;
  const narrow = useNarrow();
  const [filtersOpen, setFiltersOpen] = useState(false);

  const onConfirmTerminate = async () => {
    const result = await terminate.mutateAsync(toTerminate.map((row) => row.id));
    setConfirming(false);
    setSelected(new Set());
    if (result.failures.length) {
      notifications.show({
        color: 'red',
        title: `${result.failures.length} could not be terminated`,
        message: result.failures.map((failure) => `${allById.get(failure.id)?.name ?? failure.id}: ${describeError(failure.error)}`).join('\n'),
      });
    }
    if (result.terminated) notifications.show({ color: 'green', message: `Terminating ${result.terminated} execution${result.terminated === 1 ? '' : 's'}` });
  };

  return (
    <div className={classes.page}>
      <ProjectHeader projectId={projectId} active="monitor" />
      <Stack gap="sm" mt="md">
        <Group justify="space-between" align="center" wrap="wrap">
          <Group gap="sm" align="center">
            <Title order={2} size="h3">
              Executions
            </Title>
            {running.data && (
              <Badge color={running.data.count ? 'blue' : 'gray'} variant="light" data-testid="running-count" styles={{ root: { textTransform: 'none' } }}>
                {running.data.count}
                {running.data.more ? '+' : ''} running
              </Badge>
            )}
            <Text size="xs" c="dimmed" aria-live="polite">
              {list.isFetching ? 'Refreshing…' : list.dataUpdatedAt ? `Updated ${formatDateTime(list.dataUpdatedAt)}, every 15 s` : ''}
            </Text>
          </Group>
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={() => void list.refetch()} loading={list.isFetching && !list.isPending}>
              Refresh
            </Button>
            <Tooltip label={refusal ?? `Terminate ${toTerminate.length} execution${toTerminate.length === 1 ? '' : 's'}`} withinPortal>
              <span>
                <Button
                  size="xs"
                  color="red"
                  variant={refusal ? 'default' : 'filled'}
                  disabled={refusal !== undefined}
                  onClick={() => setConfirming(true)}
                  data-testid="terminate-selected"
                >
                  Terminate{toTerminate.length ? ` (${toTerminate.length})` : ''}
                </Button>
              </span>
            </Tooltip>
          </Group>
        </Group>
        {viewOnly && (
          <Alert color="gray" variant="light" data-testid="view-only">
            You have {level} access to this project: you can watch its executions, but terminating them needs CONTRIBUTE access (you can still terminate those
            you launched).
          </Alert>
        )}

        {narrow && (
          <Button size="xs" variant="default" onClick={() => setFiltersOpen((open) => !open)} aria-expanded={filtersOpen} style={{ alignSelf: 'flex-start' }}>
            Filters{activeFilters.length ? ` (${activeFilters.length})` : ''} {filtersOpen ? '▲' : '▼'}
          </Button>
        )}
        <Collapse expanded={!narrow || filtersOpen} transitionDuration={narrow ? 150 : 0}>
          <form className={classes.filters} aria-label="Filter executions" onSubmit={(event) => event.preventDefault()}>
            <MultiSelect
              label={FILTER_LABELS.state}
              placeholder={page.filterValues.state && (page.filterValues.state as string[]).length ? undefined : 'Any state'}
              data={EXECUTION_STATES.map((state) => ({ value: state, label: executionStateLabel(state) }))}
              value={(page.filterValues.state as string[] | undefined) ?? []}
              onChange={(value) => set('state', value.length ? value : undefined)}
              clearable
              size="xs"
              w={220}
            />
            <TextInput
              label={FILTER_LABELS.name}
              placeholder={page.filterValues.nameMode === 'regex' ? 'Regular expression' : 'Name contains'}
              value={(page.filterValues.name as string | undefined) ?? ''}
              onChange={(event) => set('name', event.currentTarget.value || undefined)}
              error={problems.find((problem) => problem.filterId === 'name')?.message}
              size="xs"
              rightSectionWidth={54}
              rightSection={
                <Tooltip label="Regular expression" withinPortal>
                  <Switch
                    size="xs"
                    aria-label="Name is a regular expression"
                    label=".*"
                    checked={page.filterValues.nameMode === 'regex'}
                    onChange={(event) => set('nameMode', event.currentTarget.checked ? 'regex' : undefined)}
                  />
                </Tooltip>
              }
            />
            <Select
              label={FILTER_LABELS.executable}
              placeholder="Any executable"
              data={[...seenExecutables].map(([value, label]) => ({ value, label: `${label}` }))}
              value={(page.filterValues.executable as string | undefined) ?? null}
              onChange={(value) => set('executable', value ?? undefined)}
              searchable
              clearable
              size="xs"
              nothingFoundMessage="No executable seen here"
              error={problems.find((problem) => problem.filterId === 'executable')?.message}
            />
            <Select
              label={FILTER_LABELS.launchedBy}
              placeholder="Anyone"
              data={[...seenLaunchers].map((value) => ({ value, label: value === session?.userId ? `${userHandle(value)} (me)` : userHandle(value) }))}
              value={(page.filterValues.launchedBy as string | undefined) ?? null}
              onChange={(value) => set('launchedBy', value ?? undefined)}
              searchable
              clearable
              size="xs"
            />
            <TextInput
              type="date"
              label="Created from"
              size="xs"
              value={dayValue(created?.after)}
              onChange={(event) => set('created', dayRange(event.currentTarget.value, dayValue(created?.before)))}
              error={problems.find((problem) => problem.filterId === 'created')?.message}
            />
            <TextInput
              type="date"
              label="to"
              size="xs"
              value={dayValue(created?.before)}
              onChange={(event) => set('created', dayRange(dayValue(created?.after), event.currentTarget.value))}
            />
            <TagsInput
              label={FILTER_LABELS.tags}
              placeholder="All of these tags"
              value={(page.filterValues.tags as string[] | undefined) ?? []}
              onChange={(value) => set('tags', value.length ? value : undefined)}
              size="xs"
              w={200}
            />
            {activeFilters.length > 0 && (
              <Button size="xs" variant="subtle" onClick={() => dispatch({ type: 'clearAll', pageId: EXECUTIONS_PAGE_ID })}>
                Clear filters ({activeFilters.length})
              </Button>
            )}
          </form>
        </Collapse>

        {list.isError && !list.data ? (
          <ErrorState error={list.error} onRetry={() => void list.refetch()} title="Could not load the executions" />
        ) : list.isPending && !problems.length ? (
          <LoadingState rows={6} label="Loading executions" />
        ) : (
          <ExecutionTable
            visible={visible}
            now={now}
            selected={selected}
            onShowLog={setLogOf}
            onToggleSelected={(id) =>
              setSelected((current) => {
                const next = new Set(current);
                if (next.has(id)) next.delete(id);
                else next.add(id);
                return next;
              })
            }
            onSelectAll={(all) => setSelected(all ? new Set(rows.map((row) => row.id)) : new Set())}
            allSelected={rows.length > 0 && rows.every((row) => selected.has(row.id))}
            onToggleExpanded={(id) => {
              const row = allById.get(id);
              if (row) setExpandedRowsById((current) => new Map(current).set(id, row));
              setExpanded((current) => {
                const next = new Set(current);
                if (next.has(id)) next.delete(id);
                else next.add(id);
                return next;
              });
            }}
            empty={
              problems.length
                ? 'Fix the filters above to see executions.'
                : activeFilters.length
                  ? 'No execution matches these filters.'
                  : 'Nothing has run in this project yet. Run a tool and its jobs appear here.'
            }
          />
        )}
        {list.data?.more && (
          <Group justify="center">
            <Button variant="default" size="xs" onClick={() => setPages((count) => count + 1)} loading={list.isFetching}>
              Load {LIST_PAGE_SIZE} more
            </Button>
          </Group>
        )}
      </Stack>

      {logOf && <JobLogModal opened onClose={() => setLogOf(undefined)} jobId={logOf.id} project={projectId} title={logOf.name} />}
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Terminate executions?" centered>
        <Stack gap="sm">
          <Text size="sm">
            {toTerminate.length === 1 ? 'This execution and everything it started' : `These ${toTerminate.length} executions and everything they started`} will
            stop. Outputs not yet written are lost.
          </Text>
          <List size="sm" spacing={2} data-testid="terminate-list">
            {toTerminate.slice(0, 20).map((row) => (
              <List.Item key={row.id}>
                {row.name}{' '}
                <Text span size="xs" c="dimmed">
                  {row.id}
                </Text>
              </List.Item>
            ))}
            {toTerminate.length > 20 && <List.Item>and {toTerminate.length - 20} more</List.Item>}
          </List>
          {terminate.isError && <Alert color="red">{describeError(terminate.error)}</Alert>}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => void onConfirmTerminate()} loading={terminate.isPending} data-autofocus>
              Terminate
            </Button>
          </Group>
        </Stack>
      </Modal>
    </div>
  );
}

interface TableProps {
  visible: VisibleRow[];
  now: number;
  selected: Set<string>;
  allSelected: boolean;
  onToggleSelected: (id: string) => void;
  onSelectAll: (all: boolean) => void;
  onToggleExpanded: (id: string) => void;
  onShowLog: (row: ExecutionRow) => void;
  empty: string;
}

/** The executions as a virtualised grid (only the rows on screen are drawn). */
function ExecutionTable({ visible, now, selected, allSelected, onToggleSelected, onSelectAll, onToggleExpanded, onShowLog, empty }: TableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => visible[index]?.row.id ?? index,
  });
  const someSelected = selected.size > 0 && !allSelected;
  return (
    <section className={classes.table} aria-label="Executions" data-rows={visible.length}>
      <div className={classes.scroller} ref={scrollRef}>
        <div className={`${classes.gridRow} ${classes.head}`}>
          <div className={classes.cell}>
            <Checkbox
              size="xs"
              aria-label="Select all"
              checked={allSelected}
              indeterminate={someSelected}
              onChange={(event) => onSelectAll(event.currentTarget.checked)}
            />
          </div>
          {['Name', 'State', 'Executable', 'Launched by', 'Created', 'Duration', 'Instance type', 'Cost'].map((label) => (
            <div key={label} className={classes.cell}>
              {label}
            </div>
          ))}
        </div>
        {visible.length === 0 ? (
          <Text ta="center" c="dimmed" size="sm" py="xl" data-empty-state>
            {empty}
          </Text>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => {
              const entry = visible[item.index] as VisibleRow;
              return (
                <div key={item.key} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}>
                  <ExecutionLine
                    entry={entry}
                    now={now}
                    checked={selected.has(entry.row.id)}
                    onToggleSelected={onToggleSelected}
                    onToggleExpanded={onToggleExpanded}
                    onShowLog={onShowLog}
                  />
                </div>
              );
            })}
          </div>
        )}
      </div>
    </section>
  );
}

const ExecutionLine = memo(function ExecutionLine({
  entry,
  now,
  checked,
  onToggleSelected,
  onToggleExpanded,
  onShowLog,
}: {
  entry: VisibleRow;
  now: number;
  checked: boolean;
  onToggleSelected: (id: string) => void;
  onToggleExpanded: (id: string) => void;
  onShowLog: (row: ExecutionRow) => void;
}) {
  const { row, depth } = entry;
  const indent = { paddingLeft: depth * 20 };
  if (entry.note) {
    return (
      <div className={`${classes.gridRow} ${classes.row}`} style={{ height: ROW_HEIGHT }}>
        <div className={classes.cell} />
        <div className={classes.cell} style={indent}>
          <Text size="xs" c="dimmed" pl={24}>
            {entry.note}
          </Text>
        </div>
      </div>
    );
  }
  const label = row.stage ? `${row.name}` : row.name;
  return (
    <div
      className={`${classes.gridRow} ${classes.row} ${checked ? classes.rowSelected : ''}`}
      data-execution={row.id}
      data-depth={depth}
      style={{ height: ROW_HEIGHT }}
    >
      <div className={classes.cell}>
        <Checkbox size="xs" aria-label={`Select ${row.name}`} checked={checked} onChange={() => onToggleSelected(row.id)} />
      </div>
      <div className={`${classes.cell} ${classes.nameCell}`} style={indent}>
        {entry.hasChildren === false ? (
          <span className={classes.spacer} />
        ) : (
          <button
            type="button"
            className={classes.toggle}
            aria-expanded={entry.expanded}
            aria-label={`${entry.expanded ? 'Collapse' : 'Expand'} ${row.executionClass === 'analysis' ? 'stages' : 'subjobs'} of ${row.name}`}
            onClick={() => onToggleExpanded(row.id)}
          >
            {entry.expanded ? '▼' : '▶'}
          </button>
        )}
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Anchor component={Link} to={executionPagePath(row)} className={classes.name} size="sm" title={`${row.name} (${row.id})`}>
            {label}
          </Anchor>
          <Text className={classes.sub} truncate>
            {row.executionClass === 'analysis' ? 'Analysis' : row.stage ? `Stage ${row.stage}` : depth > 0 ? 'Subjob' : 'Job'}
            {row.tags.length ? ` · ${row.tags.join(', ')}` : ''}
          </Text>
        </Stack>
        {row.executionClass === 'job' && (
          <Button size="compact-xs" variant="subtle" ml="auto" onClick={() => onShowLog(row)} aria-label={`Log of ${row.name}`} data-testid="row-log">
            Log
          </Button>
        )}
      </div>
      <div className={classes.cell}>
        <StateBadge state={row.state} />
      </div>
      <div className={classes.cell} title={row.executable}>
        {row.executableName ?? row.executable ?? '--'}
      </div>
      <div className={classes.cell}>{userHandle(row.launchedBy)}</div>
      <div className={classes.cell}>{formatDateTime(row.created)}</div>
      <div className={classes.cell}>{formatElapsed(executionDuration(row, now))}</div>
      <div className={classes.cell}>{row.instanceType ?? '--'}</div>
      <div className={classes.cell}>{formatCost(row.totalPrice, row.currencySymbol)}</div>
    </div>
  );
});
