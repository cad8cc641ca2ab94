import { Anchor, Badge, Group, Pagination, Paper, SegmentedControl, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { api } from '../../lib/api';
import { formatDate } from '../../lib/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useProjectRows } from '../projects/hooks';
import { formatBytes } from '../viewer/formats';
import { CATALOG_LIMIT, CATALOG_PAGE_SIZE, type CatalogFilters, type CatalogKind, catalogFilters, catalogRequest, catalogSearch } from './catalog';
import { toObjectRow } from './hooks';
import type { BrowserRow } from './table-options';

const features = tableFeatures({});
const helper = createColumnHelper<typeof features, BrowserRow & { projectName: string }>();

export function DataCatalogPage() {
  return <Catalog kind="data" />;
}

export function DatasetsCatalogPage() {
  return <Catalog kind="datasets" />;
}

/** `/panx/data` and `/panx/data/datasets`: data across every project the user can see. */
function Catalog({ kind }: { kind: CatalogKind }) {
  const [search, setSearch] = useSearchParams();
  const filters = catalogFilters(search);
  const { language } = useRuntime();
  const projects = useProjectRows();
  const request = catalogRequest(kind, filters);
  const found = useQuery({
    queryKey: ['catalog', kind, request],
    enabled: request !== 'invalid',
    queryFn: async () => {
      const page = await api().call('system/findDataObjects', {
        ...(request as Exclude<typeof request, 'invalid'>),
        describe: {
          fields: { name: true, class: true, state: true, size: true, created: true, modified: true, folder: true, tags: true, types: true, project: true },
        },
      });
      return {
        rows: page.results.map((result) => toObjectRow(result.project, result.id, result.describe)),
        more: page.next !== null && page.next !== undefined,
      };
    },
    throwOnError: false,
  });
  const names = useMemo(() => new Map((projects.data ?? []).map((project) => [project.id, project.name])), [projects.data]);
  const all = useMemo(() => (found.data?.rows ?? []).map((row) => ({ ...row, projectName: names.get(row.project) ?? row.project })), [found.data, names]);
  const pages = Math.max(1, Math.ceil(all.length / CATALOG_PAGE_SIZE));
  const page = Math.min(filters.page, pages);
  const rows = useMemo(() => all.slice((page - 1) * CATALOG_PAGE_SIZE, page * CATALOG_PAGE_SIZE), [all, page]);
  const columns = useMemo(
    () =>
      helper.columns([
        helper.accessor('name', {
          header: 'Name',
          cell: ({ row }) => (
            <Anchor component={Link} to={`/panx/${encodeURIComponent(row.original.project)}/${encodeURIComponent(row.original.id)}/view`}>
              {row.original.name}
            </Anchor>
          ),
        }),
        helper.accessor('projectName', {
          header: 'Project',
          cell: ({ row }) => (
            <Anchor
              component={Link}
              to={`/panx/projects/${encodeURIComponent(row.original.project)}/data${row.original.folder === '/' ? '/' : row.original.folder}`}
              c="dimmed"
            >
              {row.original.projectName}
              {row.original.folder !== '/' ? ` · ${row.original.folder}` : ''}
            </Anchor>
          ),
        }),
        helper.accessor('class', { header: 'Type', cell: ({ row }) => (kind === 'datasets' ? 'Dataset' : row.original.class) }),
        helper.accessor('size', { header: 'Size', cell: ({ row }) => (row.original.class === 'file' ? formatBytes(row.original.size) : '') }),
        helper.accessor('tags', {
          header: 'Tags',
          cell: ({ getValue }) => (
            <Group gap={3}>
              {getValue().map((tag) => (
                <Badge key={tag} size="xs" variant="outline" color="gray" tt="none">
                  {tag}
                </Badge>
              ))}
            </Group>
          ),
        }),
        helper.accessor('modified', { header: 'Modified', cell: ({ getValue }) => formatDate(getValue(), language) }),
      ]),
    [kind, language],
  );
  const table = useTable({ features, columns, data: rows, getRowId: (row) => `${row.project}:${row.id}` });
  const update = (change: Partial<CatalogFilters>) => setSearch(catalogSearch({ ...filters, page: 1, ...change }), { replace: true });

  return (
    <Stack gap="md">
      <div>
        <Title order={1} size="h2">
          {kind === 'datasets' ? 'Datasets' : 'Data catalog'}
        </Title>
        <Text c="dimmed" size="sm">
          {kind === 'datasets' ? 'Closed Dataset records in every project you can see.' : 'Data objects in every project you can see.'}
        </Text>
      </div>
      <Paper withBorder p="sm">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput
            label="Name"
            placeholder={filters.mode === 'regex' ? 'Regular expression' : 'Part of the name'}
            value={filters.name}
            onChange={(event) => update({ name: event.currentTarget.value })}
            style={{ flex: '1 1 220px' }}
            error={request === 'invalid' ? 'Invalid regular expression: nothing matches' : undefined}
          />
          <SegmentedControl
            value={filters.mode}
            onChange={(value) => update({ mode: value === 'regex' ? 'regex' : 'text' })}
            data={[
              { value: 'text', label: 'Text' },
              { value: 'regex', label: 'Regex' },
            ]}
            aria-label="Name filter mode"
          />
          {kind === 'data' && (
            <Select
              label="Type"
              placeholder="Any"
              clearable
              w={130}
              data={['file', 'record', 'applet', 'workflow']}
              value={filters.class || null}
              onChange={(value) => update({ class: value ?? '' })}
            />
          )}
          <Select
            label="Project"
            placeholder="Any"
            clearable
            searchable
            w={220}
            data={(projects.data ?? []).map((project) => ({ value: project.id, label: project.name }))}
            value={filters.project || null}
            onChange={(value) => update({ project: value ?? '' })}
          />
          <TextInput label="Tag" w={140} value={filters.tag} onChange={(event) => update({ tag: event.currentTarget.value })} />
        </Group>
      </Paper>
      <Paper withBorder>
        {request === 'invalid' ? (
          <EmptyState title="Invalid regular expression">Nothing matches until the expression is valid.</EmptyState>
        ) : found.isPending ? (
          <div style={{ padding: 16 }}>
            <LoadingState rows={6} label="Searching" />
          </div>
        ) : found.isError ? (
          <div style={{ padding: 16 }}>
            <ErrorState error={found.error} onRetry={() => void found.refetch()} title="Could not search the data" />
          </div>
        ) : all.length === 0 ? (
          <EmptyState title={kind === 'datasets' ? 'No datasets' : 'Nothing found'}>
            {kind === 'datasets' ? 'No closed Dataset record in the projects you can see.' : 'Change or clear the filters.'}
          </EmptyState>
        ) : (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table highlightOnHover verticalSpacing={6} aria-label={kind === 'datasets' ? 'Datasets' : 'Data'}>
                <Table.Thead>
                  {table.getHeaderGroups().map((group) => (
                    <Table.Tr key={group.id}>
                      {group.headers.map((header) => (
                        <Table.Th key={header.id}>
                          <table.FlexRender header={header} />
                        </Table.Th>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Thead>
                <Table.Tbody>
                  {table.getRowModel().rows.map((row) => (
                    <Table.Tr key={row.id}>
                      {row.getAllCells().map((cell) => (
                        <Table.Td key={cell.id}>
                          <table.FlexRender cell={cell} />
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <Group justify="space-between" p="sm" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }} wrap="wrap">
              <Text size="sm" c="dimmed">
                {(page - 1) * CATALOG_PAGE_SIZE + 1}–{(page - 1) * CATALOG_PAGE_SIZE + rows.length} of {all.length}
                {found.data?.more ? ` (the first ${CATALOG_LIMIT}: refine the filters for the rest)` : ''}
              </Text>
              <Pagination size="sm" total={pages} value={page} onChange={(value) => setSearch(catalogSearch({ ...filters, page: value }))} />
            </Group>
          </>
        )}
      </Paper>
    </Stack>
  );
}
