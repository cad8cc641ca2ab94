import { Anchor, Badge, Group, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useMemo } from 'react';
import { Link } from 'react-router';
import { api } from '../../lib/api';
import { EmptyState } from '../../ui/states';
import { executionPagePath, isRecord } from './execution-model';
import { dataObjectPath, dataObjectsOf, type IoValue, ioFields } from './io-values';
import classes from './Monitor.module.css';

interface ObjectInfo {
  name?: string;
  project?: string;
  folder?: string;
  state?: string;
  missing?: boolean;
}

/** Names and places of the data objects the inputs and outputs name (batches of 1,000, up to 10,000). */
function useDataObjects(objects: { id: string; project: string | undefined }[], fallbackProject: string | undefined) {
  return useQuery({
    queryKey: ['executions', 'io-objects', objects.map((object) => `${object.project ?? ''}:${object.id}`).join(','), fallbackProject],
    enabled: objects.length > 0,
    staleTime: 60_000,
    queryFn: async () => {
      const info = new Map<string, ObjectInfo>();
      for (let start = 0; start < objects.length; start += 1000) {
        const batch = objects.slice(start, start + 1000);
        const { results } = await api().call('system/describeDataObjects', {
          objects: batch.map((object) => ({
            id: object.id,
            ...((object.project ?? fallbackProject) ? { project: object.project ?? fallbackProject } : {}),
            describe: { fields: { name: true, project: true, folder: true, state: true } },
          })),
        });
        batch.forEach((object, index) => {
          const result = results[index];
          const describe = isRecord(result) && isRecord(result.describe) ? result.describe : undefined;
          info.set(
            object.id,
            describe
              ? {
                  name: typeof describe.name === 'string' ? describe.name : undefined,
                  project: typeof describe.project === 'string' ? describe.project : undefined,
                  folder: typeof describe.folder === 'string' ? describe.folder : undefined,
                  state: typeof describe.state === 'string' ? describe.state : undefined,
                }
              : { missing: true },
          );
        });
      }
      return info;
    },
  });
}

/** Inputs or outputs of an execution: each field with its value, data objects as links to their pages. */
export function IoSection({ title, io, project, emptyText }: { title: string; io: unknown; project: string | undefined; emptyText: string }) {
  const { fields, hidden } = useMemo(() => ioFields(io), [io]);
  const objects = useMemo(() => dataObjectsOf(fields), [fields]);
  const described = useDataObjects(objects, project);
  return (
    <Stack gap={6}>
      <Text fw={600} size="sm">
        {title}
      </Text>
      {fields.length === 0 ? (
        <EmptyState title={emptyText} />
      ) : (
        <Table className={classes.ioTable} striped withTableBorder verticalSpacing={6} data-testid={`io-${title.toLowerCase()}`}>
          <Table.Tbody>
            {fields.map((field) => (
              <Table.Tr key={field.name}>
                <Table.Td w="30%">
                  <Text size="sm" ff="monospace">
                    {field.name}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <ValueView value={field.value} project={project} info={described.data} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {hidden > 0 && (
        <Text size="xs" c="dimmed">
          {hidden} more field{hidden === 1 ? '' : 's'} not shown (the first 1,000 are).
        </Text>
      )}
    </Stack>
  );
}

function ValueView({ value, project, info }: { value: IoValue; project: string | undefined; info: Map<string, ObjectInfo> | undefined }) {
  switch (value.kind) {
    case 'empty':
      return <Text c="dimmed">--</Text>;
    case 'scalar':
      return (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {value.text}
        </Text>
      );
    case 'json':
      return <pre className={classes.json}>{value.text}</pre>;
    case 'execution-output':
      return (
        <Text size="sm">
          Output <code>{value.field}</code> of{' '}
          <Anchor component={Link} to={executionPagePath({ id: value.execution, project })} size="sm">
            {value.execution}
          </Anchor>
        </Text>
      );
    case 'object': {
      const found = info?.get(value.id);
      const where = found?.project ?? value.project ?? project;
      const path = dataObjectPath(value.id, where, found?.folder);
      return (
        <Group gap={6} wrap="nowrap">
          {path && !found?.missing ? (
            <Anchor component={Link} to={path} size="sm" data-object={value.id}>
              {found?.name ?? value.id}
            </Anchor>
          ) : (
            <Text size="sm">{value.id}</Text>
          )}
          {found?.missing && (
            <Badge size="xs" color="gray" variant="light">
              not accessible
            </Badge>
          )}
          {found?.state && found.state !== 'closed' && (
            <Badge size="xs" color="yellow" variant="light">
              {found.state}
            </Badge>
          )}
          {found?.name && (
            <Text size="xs" c="dimmed" visibleFrom="md">
              {value.id}
            </Text>
          )}
        </Group>
      );
    }
    case 'array':
      return (
        <Stack gap={2}>
          {value.items.length === 0 && <Text c="dimmed">(empty list)</Text>}
          {value.items.map((item, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: list items have no identity beyond their place
            <Fragment key={index}>
              <ValueView value={item} project={project} info={info} />
            </Fragment>
          ))}
          {value.hidden > 0 && (
            <Text size="xs" c="dimmed">
              and {value.hidden} more (the first 1,000 are shown)
            </Text>
          )}
        </Stack>
      );
  }
}
