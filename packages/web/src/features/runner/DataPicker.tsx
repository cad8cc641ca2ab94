import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Checkbox,
  Group,
  Loader,
  Modal,
  ScrollArea,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { EmptyState, ErrorState } from '../../ui/states';
import { useFolderListing } from '../data/hooks';
import { FolderIcon } from '../data/icons';
import { useProjectRows } from '../projects/hooks';
import { formatBytes } from '../viewer/formats';
import type { DataRef } from './form-state';
import { folderCrumbs, pickBlocker, toggleSelection, visibleObjects } from './picker-rules';

export interface DataPickerProps {
  opened: boolean;
  onClose: () => void;
  /** Called with the chosen objects when the user confirms. */
  onPick: (refs: DataRef[]) => void;
  /** What is being chosen, for the title: "Reads (stage-fastp)". */
  title: string;
  /** The class of object to offer: file, record, applet, workflow, database. */
  objectClass: string;
  /** File-name globs of the input spec; names matching none are hidden unless the user shows them. */
  patterns?: readonly string[];
  /** Several objects (array inputs) or one. */
  multiple: boolean;
  /** Where to start browsing. */
  initialProject?: string;
  initialFolder?: string;
  /** The current value, shown as selected. */
  selected?: readonly DataRef[];
}

/**
 * A modal that browses the user's projects and folders (project-xxxx/listFolder) and returns closed
 * objects of one class, filtered by the input's `patterns`. Reusable wherever data is chosen.
 */
export function DataPicker(props: DataPickerProps) {
  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      title={`Select ${props.multiple ? `${props.objectClass}s` : `a ${props.objectClass}`}: ${props.title}`}
      size="xl"
    >
      {props.opened && <PickerBody {...props} />}
    </Modal>
  );
}

function PickerBody({ onClose, onPick, objectClass, patterns = [], multiple, initialProject, initialFolder, selected: initial = [] }: DataPickerProps) {
  const projects = useProjectRows();
  const [project, setProject] = useState<string | undefined>(initialProject);
  const [folder, setFolder] = useState(initialFolder ?? '/');
  const [text, setText] = useState('');
  const [usePatterns, setUsePatterns] = useState(patterns.length > 0);
  const [selected, setSelected] = useState<DataRef[]>([...initial]);

  const projectRows = projects.data ?? [];
  useEffect(() => {
    if (!project && projectRows.length) setProject(projectRows[0]?.id);
  }, [project, projectRows]);
  const projectName = projectRows.find((row) => row.id === project)?.name ?? project ?? '';

  const listing = useFolderListing(project ?? '', folder, { includeHidden: false, enabled: !!project });
  const pages = listing.data?.pages ?? [];
  const folders = pages[0]?.folders ?? [];
  const objects = useMemo(() => pages.flatMap((page) => page.rows), [pages]);
  const shown = visibleObjects(objects, { class: objectClass, patterns, usePatterns, text }).sort((a, b) => a.name.localeCompare(b.name));
  const hiddenByPatterns = usePatterns ? visibleObjects(objects, { class: objectClass, patterns, usePatterns: false, text }).length - shown.length : 0;

  const open = (path: string) => {
    setFolder(path);
    setText('');
  };

  return (
    <Stack gap="sm" data-testid="data-picker">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <Select
          label="Project"
          data={projectRows.map((row) => ({ value: row.id, label: row.name }))}
          value={project ?? null}
          onChange={(value) => {
            if (!value) return;
            setProject(value);
            open('/');
          }}
          searchable
          nothingFoundMessage="No project of that name"
          placeholder={projects.isPending ? 'Loading projects…' : 'Choose a project'}
          w={260}
          allowDeselect={false}
        />
        <TextInput label="Name contains" value={text} onChange={(event) => setText(event.currentTarget.value)} placeholder="Filter this folder" w={200} />
        {patterns.length > 0 && (
          <Switch label={`Only ${patterns.join(', ')}`} checked={usePatterns} onChange={(event) => setUsePatterns(event.currentTarget.checked)} mb={6} />
        )}
      </Group>
      {projects.isError && <ErrorState error={projects.error} onRetry={() => void projects.refetch()} title="Could not load your projects" />}
      {project && (
        <Breadcrumbs separator="/" separatorMargin={4} aria-label="Folder">
          {folderCrumbs(folder, projectName).map((crumb, index, all) =>
            index === all.length - 1 ? (
              <Text key={crumb.path} size="sm" fw={600}>
                {crumb.label}
              </Text>
            ) : (
              <Anchor key={crumb.path} component="button" type="button" size="sm" onClick={() => open(crumb.path)}>
                {crumb.label}
              </Anchor>
            ),
          )}
        </Breadcrumbs>
      )}
      <ScrollArea h={340} type="auto" offsetScrollbars>
        {!project ? (
          projects.isPending ? (
            <Waiting label="Loading your projects…" />
          ) : projects.isError ? null : (
            <EmptyState title="No projects">You have no project to pick from: create one or ask to be invited to one.</EmptyState>
          )
        ) : listing.isPending ? (
          <Waiting label="Loading the folder…" />
        ) : listing.isError ? (
          <ErrorState error={listing.error} onRetry={() => void listing.refetch()} title="Could not list this folder" />
        ) : (
          <Table highlightOnHover verticalSpacing={6} aria-label="Folder contents">
            <Table.Tbody>
              {folders.map((path) => (
                <Table.Tr key={path}>
                  <Table.Td colSpan={3}>
                    <UnstyledButton onClick={() => open(path)} aria-label={`Open folder ${path.slice(path.lastIndexOf('/') + 1)}`} w="100%">
                      <Group gap={8}>
                        <FolderIcon />
                        <Text size="sm" fw={500}>
                          {path.slice(path.lastIndexOf('/') + 1)}
                        </Text>
                      </Group>
                    </UnstyledButton>
                  </Table.Td>
                </Table.Tr>
              ))}
              {shown.map((row) => {
                const blocker = pickBlocker(row);
                const checked = selected.some((item) => item.id === row.id);
                return (
                  <Table.Tr key={row.id} bg={checked ? 'var(--mantine-color-blue-light)' : undefined}>
                    <Table.Td w={36}>
                      <Checkbox
                        aria-label={`Select ${row.name}`}
                        checked={checked}
                        disabled={!!blocker}
                        radius={multiple ? 'sm' : 'xl'}
                        onChange={() => setSelected((current) => toggleSelection(current, row, multiple))}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" title={blocker ?? row.id}>
                        {row.name}
                      </Text>
                      {blocker && (
                        <Text size="xs" c="dimmed">
                          {blocker}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td w={100} ta="right">
                      <Text size="xs" c="dimmed">
                        {formatBytes(row.size)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )}
        {project && !listing.isPending && !listing.isError && folders.length === 0 && shown.length === 0 && (
          <EmptyState title={text ? 'Nothing matches this name' : `No ${objectClass}s here`}>
            {hiddenByPatterns > 0
              ? `${hiddenByPatterns} ${objectClass}${hiddenByPatterns === 1 ? '' : 's'} in this folder match none of ${patterns.join(', ')}. Turn the pattern filter off to see them.`
              : 'Open another folder or project.'}
          </EmptyState>
        )}
        {listing.hasNextPage && (
          <Group justify="center" py="xs">
            <Button variant="subtle" size="xs" onClick={() => void listing.fetchNextPage()} loading={listing.isFetchingNextPage}>
              Show more
            </Button>
          </Group>
        )}
      </ScrollArea>
      {hiddenByPatterns > 0 && shown.length > 0 && (
        <Text size="xs" c="dimmed">
          {hiddenByPatterns} more {objectClass}
          {hiddenByPatterns === 1 ? '' : 's'} here match none of the patterns.
        </Text>
      )}
      {selected.length > 0 && (
        <Alert variant="light" color="blue" p="xs" aria-label="Selected">
          <Group gap={6}>
            <Text size="sm">Selected:</Text>
            {selected.map((item) => (
              <Badge key={item.id} variant="outline" tt="none">
                {item.name ?? item.id}
              </Badge>
            ))}
          </Group>
        </Alert>
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button
          onClick={() => {
            onPick(selected);
            onClose();
          }}
          disabled={selected.length === 0}
        >
          {selected.length > 1 ? `Select ${selected.length} ${objectClass}s` : 'Select'}
        </Button>
      </Group>
    </Stack>
  );
}

function Waiting({ label }: { label: string }) {
  return (
    <Group justify="center" py="xl" role="status">
      <Loader size="sm" />
      <Text size="sm" c="dimmed">
        {label}
      </Text>
    </Group>
  );
}
