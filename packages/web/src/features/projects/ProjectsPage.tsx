import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Drawer,
  Group,
  Pagination,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { columnSizingFeature, columnVisibilityFeature, createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useMemo, useReducer, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { formatDate } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { FavouriteButton } from '../../ui/FavouriteButton';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useNarrow } from '../../ui/use-narrow';
import { useCurrentUser } from '../auth/hooks';
import type { DateRange } from '../data/filters';
import { favoriteProjectIds } from '../home/home-lists';
import { useToggleFavorite } from '../home/hooks';
import { formatBytes } from '../viewer/formats';
import { useProjectRows } from './hooks';
import { NewProjectDialog } from './NewProjectDialog';
import {
  EMPTY_PROJECT_FILTERS,
  filterProjects,
  initialProjectListState,
  PROJECT_COLUMN_LABELS,
  type ProjectColumn,
  type ProjectFilters,
  type ProjectRow,
  pageRows,
  projectListReducer,
  sortProjects,
} from './project-list';
import classes from './ProjectsPage.module.css';

const features = tableFeatures({ columnVisibilityFeature, columnSizingFeature });
const helper = createColumnHelper<typeof features, ProjectRow>();

interface RowActions {
  favourites: ReadonlySet<string>;
  checked: ReadonlySet<string>;
  onStar: (row: ProjectRow) => void;
  onCheck: (row: ProjectRow, checked: boolean) => void;
  onDetails: (row: ProjectRow) => void;
  language: string;
  busy: boolean;
}

function buildColumns(actions: RowActions) {
  return helper.columns([
    helper.display({
      id: 'select',
      size: 40,
      header: () => null,
      cell: ({ row }) => (
        <Checkbox
          size="xs"
          aria-label={`Select ${row.original.name}`}
          checked={actions.checked.has(row.original.id)}
          onChange={(event) => actions.onCheck(row.original, event.currentTarget.checked)}
        />
      ),
    }),
    helper.display({
      id: 'favourite',
      size: 40,
      header: () => null,
      cell: ({ row }) => {
        const starred = actions.favourites.has(row.original.id);
        return <FavouriteButton name={row.original.name} starred={starred} disabled={actions.busy} onToggle={() => actions.onStar(row.original)} />;
      },
    }),
    helper.accessor('name', {
      header: PROJECT_COLUMN_LABELS.name,
      size: 320,
      cell: ({ row }) => (
        <div className={classes.nameCell}>
          <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(row.original.id)}/data/`} fw={500} className={classes.ellipsis}>
            {row.original.name}
          </Anchor>
          <Text size="xs" c="dimmed" className={classes.ellipsis} ff="monospace">
            {row.original.id}
          </Text>
        </div>
      ),
    }),
    helper.accessor('tags', {
      header: PROJECT_COLUMN_LABELS.tags,
      size: 160,
      cell: ({ getValue }) => (
        <Group gap={4}>
          {getValue()
            .slice(0, 3)
            .map((tag) => (
              <Badge key={tag} size="xs" variant="outline" color="gray" tt="none">
                {tag}
              </Badge>
            ))}
          {getValue().length > 3 && <Text size="xs">+{getValue().length - 3}</Text>}
        </Group>
      ),
    }),
    helper.accessor('level', {
      header: PROJECT_COLUMN_LABELS.level,
      size: 120,
      cell: ({ getValue }) => (
        <Badge size="sm" variant="light" color={getValue() === 'ADMINISTER' ? 'blue' : getValue() === 'CONTRIBUTE' ? 'teal' : 'gray'}>
          {getValue()}
        </Badge>
      ),
    }),
    helper.accessor('members', { header: PROJECT_COLUMN_LABELS.members, size: 90, cell: ({ getValue }) => getValue() }),
    helper.accessor('created', { header: PROJECT_COLUMN_LABELS.created, size: 120, cell: ({ getValue }) => formatDate(getValue(), actions.language) }),
    helper.accessor('modified', { header: PROJECT_COLUMN_LABELS.modified, size: 120, cell: ({ getValue }) => formatDate(getValue(), actions.language) }),
    helper.display({
      id: 'details',
      size: 72,
      header: () => null,
      cell: ({ row }) => (
        <Button size="compact-xs" variant="subtle" color="gray" aria-label={`Details of ${row.original.name}`} onClick={() => actions.onDetails(row.original)}>
          Details
        </Button>
      ),
    }),
  ]);
}

const SORTABLE = new Set<string>(['name', 'tags', 'level', 'members', 'created', 'modified']);

type ListKind = 'all' | 'featured' | 'partner';

/** `/panx/projects`, `/panx/projects/featured` and `/panx/projects/partner/{orgID}`. */
export function ProjectsPage() {
  const params = useParams();
  const navigate = useNavigate();
  const { config, language } = useRuntime();
  const kind: ListKind = params.orgID ? 'partner' : window.location.pathname.endsWith('/featured') ? 'featured' : 'all';
  const featuredIds = config.featuredProjects;
  const rows = useProjectRows(kind === 'featured' ? { ids: featuredIds } : kind === 'partner' ? { billTo: params.orgID } : {});
  const user = useCurrentUser();
  const favouriteIds = favoriteProjectIds(user.data?.sessionData);
  const toggleFavourite = useToggleFavorite(user.data?.sessionData);
  const narrow = useNarrow();

  const [state, dispatch] = useReducer(projectListReducer, undefined, initialProjectListState);
  const [filters, setFilters] = useState<ProjectFilters>(EMPTY_PROJECT_FILTERS);
  const [creating, setCreating] = useState(false);
  const updateFilters = (change: Partial<ProjectFilters>) => {
    setFilters((current) => ({ ...current, ...change }));
    dispatch({ type: 'filtersChanged' });
  };

  const visible = useMemo(
    () => sortProjects(filterProjects(rows.data ?? [], filters), state.sortColumn, state.sortAsc),
    [rows.data, filters, state.sortColumn, state.sortAsc],
  );
  const page = pageRows(visible, state.currentPage, state.perPage);
  const favourites = useMemo(() => new Set(favouriteIds), [favouriteIds]);
  const checked = useMemo(() => new Set(state.checkedRows), [state.checkedRows]);
  const columns = useMemo(
    () =>
      buildColumns({
        favourites,
        checked,
        language,
        busy: toggleFavourite.isPending,
        onStar: (row) =>
          toggleFavourite.mutate(row.id, {
            onError: (error) => notifications.show({ color: 'red', title: 'Could not update favourites', message: describeError(error) }),
          }),
        onCheck: (row, on) => dispatch({ type: 'check', id: row.id, checked: on }),
        onDetails: (row) => dispatch({ type: 'detail', id: row.id }),
      }),
    [favourites, checked, language, toggleFavourite],
  );
  const columnVisibility = useMemo(
    (): Record<string, boolean> =>
      narrow ? { tags: false, members: false, created: false, details: false, select: false } : state.wideMode ? {} : { created: false },
    [narrow, state.wideMode],
  );
  const table = useTable({ features, columns, data: page.rows, getRowId: (row) => row.id, state: { columnVisibility } });

  const billToOptions = useMemo(() => [...new Set((rows.data ?? []).map((row) => row.billTo).filter((b): b is string => !!b))].sort(), [rows.data]);
  const detail = rows.data?.find((row) => row.id === state.detailProject);
  const allOnPageChecked = page.rows.length > 0 && page.rows.every((row) => checked.has(row.id));
  const partnerOrgs = config.partnerOrgs;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div>
          <Title order={1} size="h2">
            {kind === 'featured' ? 'Featured projects' : kind === 'partner' ? `Partner projects: ${params.orgID}` : 'Projects'}
          </Title>
          <Text c="dimmed" size="sm">
            {kind === 'featured'
              ? 'Projects the operators of this installation recommend.'
              : kind === 'partner'
                ? 'Projects billed to this partner organisation that you can see.'
                : 'Every project you can see, yours and shared with you.'}
          </Text>
        </div>
        <Button onClick={() => setCreating(true)}>New project</Button>
      </Group>

      <SegmentedControl
        value={kind === 'partner' ? `partner:${params.orgID}` : kind}
        onChange={(value) =>
          navigate(value === 'all' ? '/panx/projects' : value === 'featured' ? '/panx/projects/featured' : `/panx/projects/partner/${value.slice(8)}`)
        }
        data={[
          { value: 'all', label: 'All projects' },
          { value: 'featured', label: 'Featured' },
          ...partnerOrgs.map((org) => ({ value: `partner:${org}`, label: org })),
          ...(kind === 'partner' && !partnerOrgs.includes(params.orgID ?? '') ? [{ value: `partner:${params.orgID}`, label: params.orgID ?? '' }] : []),
        ]}
        className={classes.kinds}
        aria-label="Project lists"
      />

      <Paper withBorder p="sm" radius="sm">
        <Group gap="sm" wrap="wrap" align="flex-end">
          <TextInput
            label="Filter by name"
            placeholder={filters.nameMode === 'regex' ? 'Regular expression' : 'Part of the name'}
            value={filters.name}
            onChange={(event) => updateFilters({ name: event.currentTarget.value })}
            className={classes.grow}
            error={filters.nameMode === 'regex' && filters.name && !isValidRegex(filters.name) ? 'Invalid regular expression: nothing matches' : undefined}
          />
          <SegmentedControl
            size="sm"
            value={filters.nameMode}
            onChange={(value) => updateFilters({ nameMode: value === 'regex' ? 'regex' : 'text' })}
            data={[
              { value: 'text', label: 'Text' },
              { value: 'regex', label: 'Regex' },
            ]}
            aria-label="Name filter mode"
          />
          <Button variant={state.showFilter ? 'light' : 'default'} onClick={() => dispatch({ type: 'showFilter', on: !state.showFilter })}>
            {state.showFilter ? 'Hide filters' : 'More filters'}
          </Button>
          <Switch
            label="Wide"
            checked={state.wideMode}
            onChange={(event) => dispatch({ type: 'wideMode', on: event.currentTarget.checked })}
            visibleFrom="sm"
          />
        </Group>
        {state.showFilter && (
          <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} mt="sm" spacing="sm">
            <TagsInput label="Tags" placeholder="All of these tags" value={filters.tags} onChange={(tags) => updateFilters({ tags })} />
            <Select
              label="Access level"
              placeholder="Any"
              clearable
              data={['ADMINISTER', 'CONTRIBUTE', 'UPLOAD', 'VIEW']}
              value={filters.level || null}
              onChange={(level) => updateFilters({ level: level ?? '' })}
            />
            <Select
              label="Billed to"
              placeholder="Anyone"
              clearable
              data={billToOptions}
              value={filters.billTo || null}
              onChange={(billTo) => updateFilters({ billTo: billTo ?? '' })}
            />
            <Group gap={4} align="flex-end" wrap="nowrap">
              <Button variant="subtle" onClick={() => updateFilters(EMPTY_PROJECT_FILTERS)}>
                Clear filters
              </Button>
            </Group>
            <DateRangeInputs label="Created" value={filters.created} onChange={(created) => updateFilters({ created })} />
            <DateRangeInputs label="Modified" value={filters.modified} onChange={(modified) => updateFilters({ modified })} />
          </SimpleGrid>
        )}
      </Paper>

      <Paper withBorder radius="sm" className={classes.tablePaper}>
        {rows.isPending ? (
          <div className={classes.pad}>
            <LoadingState rows={6} label="Loading projects" />
          </div>
        ) : rows.isError ? (
          <div className={classes.pad}>
            <ErrorState error={rows.error} onRetry={() => void rows.refetch()} title="Could not load the projects" />
          </div>
        ) : visible.length === 0 ? (
          <EmptyState
            title={(rows.data ?? []).length === 0 ? (kind === 'featured' ? 'No featured projects' : 'No projects yet') : 'No project matches the filters'}
          >
            {(rows.data ?? []).length === 0
              ? kind === 'featured'
                ? 'This installation does not feature any project you can see.'
                : 'Create a project to keep data, tools and results together.'
              : 'Change or clear the filters to see more.'}
          </EmptyState>
        ) : (
          <Table.ScrollContainer minWidth={narrow ? 0 : 720}>
            <Table verticalSpacing={6} highlightOnHover className={narrow ? undefined : classes.table} aria-label="Projects">
              <Table.Thead>
                {table.getHeaderGroups().map((group) => (
                  <Table.Tr key={group.id}>
                    {group.headers.map((header) => {
                      const id = header.column.id;
                      const sortable = SORTABLE.has(id);
                      const sorted = state.sortColumn === id;
                      return (
                        <Table.Th
                          key={header.id}
                          style={narrow ? undefined : { width: header.getSize() }}
                          aria-sort={sorted ? (state.sortAsc ? 'ascending' : 'descending') : undefined}
                        >
                          {id === 'select' ? (
                            <Checkbox
                              size="xs"
                              aria-label="Select every project on this page"
                              checked={allOnPageChecked}
                              onChange={(event) => dispatch({ type: 'checkAll', ids: page.rows.map((row) => row.id), checked: event.currentTarget.checked })}
                            />
                          ) : sortable ? (
                            <button type="button" className={classes.sort} onClick={() => dispatch({ type: 'sort', column: id as ProjectColumn })}>
                              <table.FlexRender header={header} />
                              <span aria-hidden className={classes.arrow}>
                                {sorted ? (state.sortAsc ? '▲' : '▼') : ''}
                              </span>
                            </button>
                          ) : (
                            <table.FlexRender header={header} />
                          )}
                        </Table.Th>
                      );
                    })}
                  </Table.Tr>
                ))}
              </Table.Thead>
              <Table.Tbody>
                {table.getRowModel().rows.map((row) => (
                  <Table.Tr key={row.id} bg={checked.has(row.id) ? 'var(--mantine-color-blue-light)' : undefined}>
                    {row.getVisibleCells().map((cell) => (
                      <Table.Td key={cell.id} className={classes.cell}>
                        <table.FlexRender cell={cell} />
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {visible.length > 0 && (
          <Group justify="space-between" className={classes.pagination} wrap="wrap" gap="xs">
            <Text size="sm" c="dimmed">
              {page.page * state.perPage + 1}–{page.page * state.perPage + page.rows.length} of {visible.length}
              {state.checkedRows.length > 0 && ` · ${state.checkedRows.length} selected`}
            </Text>
            <Pagination
              size="sm"
              total={Math.max(1, Math.ceil(visible.length / state.perPage))}
              value={page.page + 1}
              onChange={(value) => dispatch({ type: 'page', page: value - 1 })}
              siblings={narrow ? 0 : 1}
            />
          </Group>
        )}
      </Paper>

      <Drawer opened={detail !== undefined} onClose={() => dispatch({ type: 'detail', id: undefined })} position="right" title="Project details" size="md">
        {detail && <ProjectDetails row={detail} language={language} />}
      </Drawer>
      <NewProjectDialog opened={creating} onClose={() => setCreating(false)} onCreated={(id) => navigate(`/panx/projects/${encodeURIComponent(id)}/data/`)} />
    </Stack>
  );
}

function isValidRegex(text: string): boolean {
  try {
    new RegExp(text, 'i');
    return true;
  } catch {
    return false;
  }
}

function DateRangeInputs({ label, value, onChange }: { label: string; value: DateRange; onChange: (range: DateRange) => void }) {
  const toInput = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString().slice(0, 10));
  const fromInput = (text: string, endOfDay: boolean) => (text ? Date.parse(`${text}T${endOfDay ? '23:59:59.999' : '00:00:00'}`) : undefined);
  return (
    <Group gap={6} wrap="nowrap" align="flex-end" className={classes.dates}>
      <TextInput
        type="date"
        label={`${label} after`}
        value={toInput(value.after)}
        onChange={(event) => onChange({ ...value, after: fromInput(event.currentTarget.value, false) })}
      />
      <TextInput
        type="date"
        label={`${label} before`}
        value={toInput(value.before)}
        onChange={(event) => onChange({ ...value, before: fromInput(event.currentTarget.value, true) })}
      />
    </Group>
  );
}

function ProjectDetails({ row, language }: { row: ProjectRow; language: string }) {
  const items: [string, string][] = [
    ['ID', row.id],
    ['Access', row.level],
    ['Billed to', row.billTo ?? '--'],
    ['Region', row.region ?? '--'],
    ['Members', String(row.members)],
    ['Data', formatBytes(row.dataUsage !== undefined ? row.dataUsage * 1024 ** 3 : undefined)],
    ['Created', formatDate(row.created, language)],
    ['Modified', formatDate(row.modified, language)],
    ['Contains PHI', row.containsPHI ? 'Yes' : 'No'],
  ];
  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="nowrap">
        <Title order={2} size="h4" className={classes.ellipsis}>
          {row.name}
        </Title>
      </Group>
      {row.summary && <Text size="sm">{row.summary}</Text>}
      <dl className={classes.dl}>
        {items.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {row.tags.length > 0 && (
        <Group gap={4}>
          {row.tags.map((tag) => (
            <Badge key={tag} variant="outline" color="gray" tt="none">
              {tag}
            </Badge>
          ))}
        </Group>
      )}
      <Group>
        <Button component={Link} to={`/panx/projects/${encodeURIComponent(row.id)}/data/`}>
          Open data
        </Button>
        <Button variant="default" component={Link} to={`/panx/projects/${encodeURIComponent(row.id)}/settings`}>
          Settings
        </Button>
      </Group>
    </Stack>
  );
}
