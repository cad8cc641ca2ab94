import { Alert, Anchor, Button, Group, List, Loader, Modal, ScrollArea, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { useProjectRows } from '../projects/hooks';
import { levelAtLeast } from '../projects/project-rules';
import { formatBytes } from '../viewer/formats';
import { saveFromUrl } from './download';
import { folderNameError, objectNameError } from './folder-name';
import { ROOT } from './folder-tree';
import type { DataModalsState, DownloadUrl } from './modal-state';
import type { BrowserRow } from './table-options';

function useSubmit<T>(action: () => Promise<T>, onDone: (result: T) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      onDone(await action());
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

function ErrorLine({ error, title }: { error: unknown; title: string }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      <Text size="sm">{describeError(error)}</Text>
    </Alert>
  );
}

function Buttons({ onCancel, busy, label, disabled, color }: { onCancel: () => void; busy: boolean; label: string; disabled?: boolean; color?: string }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" loading={busy} disabled={disabled} color={color}>
        {label}
      </Button>
    </Group>
  );
}

export function NewFolderModal({
  opened,
  projectId,
  parent,
  onClose,
  onDone,
}: {
  opened: boolean;
  projectId: string;
  parent: string;
  onClose: () => void;
  onDone: (path: string) => void;
}) {
  const [name, setName] = useState('');
  const problem = name ? folderNameError(name) : undefined;
  const path = `${parent === ROOT ? '' : parent}/${name}`;
  const submit = useSubmit(
    () => api().call('project-xxxx/newFolder', projectId, { folder: path }),
    () => {
      setName('');
      onDone(path);
    },
  );
  return (
    <Modal opened={opened} onClose={onClose} title="New folder" centered>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          if (!folderNameError(name)) void submit.run();
        }}
      >
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            In {parent}
          </Text>
          <TextInput label="Folder name" data-autofocus value={name} onChange={(event) => setName(event.currentTarget.value)} error={problem} />
          <ErrorLine error={submit.error} title="Could not create the folder" />
          <Buttons onCancel={onClose} busy={submit.busy} label="Create folder" disabled={!name || problem !== undefined} />
        </Stack>
      </form>
    </Modal>
  );
}

export function RenameModal({ row, projectId, onClose, onDone }: { row: BrowserRow | undefined; projectId: string; onClose: () => void; onDone: () => void }) {
  const [name, setName] = useState('');
  useEffect(() => setName(row?.name ?? ''), [row]);
  const problem = row?.kind === 'folder' ? folderNameError(name) : objectNameError(name);
  const submit = useSubmit(async () => {
    if (!row) return;
    if (row.kind === 'folder') await api().call('project-xxxx/renameFolder', projectId, { folder: row.id, name });
    else await api().post(row.id, 'rename', { project: projectId, name });
  }, onDone);
  return (
    <Modal opened={row !== undefined} onClose={onClose} title={row?.kind === 'folder' ? 'Rename folder' : 'Rename'} centered>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          if (!problem) void submit.run();
        }}
      >
        <Stack gap="sm">
          <TextInput label="New name" data-autofocus value={name} onChange={(event) => setName(event.currentTarget.value)} error={name ? problem : undefined} />
          <ErrorLine error={submit.error} title="Could not rename" />
          <Buttons onCancel={onClose} busy={submit.busy} label="Rename" disabled={problem !== undefined || name === row?.name} />
        </Stack>
      </form>
    </Modal>
  );
}

/** The delete-data modal: its ids, and the request / success / fail transitions of the reducer. */
export function DeleteModal({
  state,
  names,
  onClose,
  onRequest,
}: {
  state: DataModalsState['delete-data'];
  names: string[];
  onClose: () => void;
  onRequest: () => void;
}) {
  const count = state.idsToDelete.length + state.foldersToDelete.length;
  return (
    <Modal opened={state.isOpen} onClose={onClose} title="Delete" centered>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          onRequest();
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            Delete {count === 1 ? 'this item' : `these ${count} items`} from the project? Folders are deleted with everything in them. This cannot be undone.
          </Text>
          <ScrollArea.Autosize mah={160}>
            <List size="sm">
              {names.slice(0, 50).map((name) => (
                <List.Item key={name}>{name}</List.Item>
              ))}
              {names.length > 50 && <List.Item>… and {names.length - 50} more</List.Item>}
            </List>
          </ScrollArea.Autosize>
          {state.deleteStatus === 'FAIL' && (
            <Alert color="red" role="alert" title="Could not delete">
              {state.error}
            </Alert>
          )}
          <Buttons onCancel={onClose} busy={state.deleteStatus === 'REQUESTING'} label="Delete" color="red" />
        </Stack>
      </form>
    </Modal>
  );
}

function saveText(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  saveFromUrl(url, name);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The download-data modal: preparing, then the URLs; several files also get a manifest and a script. */
export function DownloadModal({ state, onClose }: { state: DataModalsState['download-data']; onClose: () => void }) {
  return (
    <Modal opened={state.isOpen} onClose={onClose} title="Download" size="lg" centered>
      <Stack gap="sm">
        {state.loading || state.isPreparingDownload ? (
          <Group gap="xs">
            <Loader size="xs" />
            <Text size="sm">Preparing download links…</Text>
          </Group>
        ) : state.error ? (
          <Alert color="red" role="alert" title="Could not prepare the download">
            {state.error}
          </Alert>
        ) : (
          <>
            <Text size="sm">{state.downloadInfo}. The links work for 24 hours, without signing in: keep them to yourself.</Text>
            <ScrollArea.Autosize mah={240}>
              <List size="sm" spacing={4}>
                {state.urls.map((entry: DownloadUrl) => (
                  <List.Item key={entry.id}>
                    <Anchor href={entry.url} download={entry.name}>
                      {entry.name}
                    </Anchor>{' '}
                    <Text span size="xs" c="dimmed">
                      {formatBytes(entry.size)}
                    </Text>
                  </List.Item>
                ))}
              </List>
            </ScrollArea.Autosize>
            {state.bulkUrls && (
              <Group>
                <Button variant="default" onClick={() => saveText('panx-download-manifest.json', state.bulkUrls?.manifest ?? '', 'application/json')}>
                  Save manifest (JSON)
                </Button>
                <Button variant="default" onClick={() => saveText('panx-download.sh', state.bulkUrls?.script ?? '', 'text/x-shellscript')}>
                  Save download script
                </Button>
              </Group>
            )}
          </>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Move (same project, or another: copy then remove) or copy objects and folders to a folder. */
export function MoveCopyModal({
  mode,
  projectId,
  items,
  onClose,
  onDone,
}: {
  mode: 'move' | 'copy' | undefined;
  projectId: string;
  items: BrowserRow[];
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const projects = useProjectRows({ enabled: mode !== undefined });
  const [target, setTarget] = useState(projectId);
  const [folder, setFolder] = useState(ROOT);
  const [folders, setFolders] = useState<string[]>([ROOT]);
  useEffect(() => {
    if (mode) setTarget(projectId);
  }, [mode, projectId]);
  useEffect(() => {
    if (!mode) return;
    let stale = false;
    api()
      .call('project-xxxx/describe', target, { fields: { folders: true } })
      .then((describe) => {
        if (stale) return;
        const list = Array.isArray(describe.folders) ? describe.folders.filter((f): f is string => typeof f === 'string').sort() : [ROOT];
        setFolders(list);
        setFolder(ROOT);
      })
      .catch(() => !stale && setFolders([ROOT]));
    return () => {
      stale = true;
    };
  }, [mode, target]);
  const choices = useMemo(
    () =>
      (projects.data ?? [])
        .filter((project) => levelAtLeast(project.level, mode === 'move' && project.id === projectId ? 'CONTRIBUTE' : 'UPLOAD'))
        .map((project) => ({ value: project.id, label: project.id === projectId ? `${project.name} (this project)` : project.name })),
    [projects.data, projectId, mode],
  );
  const objects = items.filter((item) => item.kind === 'object').map((item) => item.id);
  const folderPaths = items.filter((item) => item.kind === 'folder').map((item) => item.id);
  const submit = useSubmit(async () => {
    if (target === projectId) {
      if (mode === 'copy') throw new Error('Copies go to another project (ids are kept, so a project holds one copy of an object). Use Move within a project.');
      await api().call('project-xxxx/move', projectId, { objects, folders: folderPaths, destination: folder });
      return `Moved ${items.length} item${items.length === 1 ? '' : 's'} to ${folder}`;
    }
    const result = await api().call('project-xxxx/clone', projectId, { objects, folders: folderPaths, project: target, destination: folder, parents: true });
    if (mode === 'move') {
      if (objects.length) await api().call('project-xxxx/removeObjects', projectId, { objects });
      for (const path of folderPaths) await api().call('project-xxxx/removeFolder', projectId, { folder: path, recurse: true });
    }
    const skipped = result.exists.length ? ` (${result.exists.length} already there)` : '';
    return `${mode === 'move' ? 'Moved' : 'Copied'} ${items.length} item${items.length === 1 ? '' : 's'}${skipped}`;
  }, onDone);
  return (
    <Modal opened={mode !== undefined} onClose={onClose} title={mode === 'move' ? 'Move' : 'Copy to another project'} centered>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          void submit.run();
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            {items.length} item{items.length === 1 ? '' : 's'} selected.
          </Text>
          <Select
            label="Destination project"
            data={choices}
            value={target}
            onChange={(value) => value && setTarget(value)}
            searchable
            allowDeselect={false}
            nothingFoundMessage="No project where you may add data"
          />
          <Select label="Destination folder" data={folders} value={folder} onChange={(value) => value && setFolder(value)} searchable allowDeselect={false} />
          <ErrorLine error={submit.error} title={mode === 'move' ? 'Could not move' : 'Could not copy'} />
          <Buttons onCancel={onClose} busy={submit.busy} label={mode === 'move' ? 'Move' : 'Copy'} disabled={items.length === 0} />
        </Stack>
      </form>
    </Modal>
  );
}

/** Tags and properties of one object (addTags/removeTags, setProperties with null for removed keys). */
export function TagsModal({ row, projectId, onClose, onDone }: { row: BrowserRow | undefined; projectId: string; onClose: () => void; onDone: () => void }) {
  const [tags, setTags] = useState<string[]>([]);
  const [properties, setProperties] = useState<[string, string][]>([]);
  const [original, setOriginal] = useState<Record<string, string>>({});
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    if (!row) return;
    setTags(row.tags);
    setLoading(true);
    api()
      .post(row.id, 'describe', { project: projectId, fields: { properties: true, tags: true } })
      .then((described) => {
        const d = described as { properties?: Record<string, string>; tags?: string[] };
        setOriginal(d.properties ?? {});
        setProperties(Object.entries(d.properties ?? {}));
        if (d.tags) setTags(d.tags);
      })
      .catch(() => undefined)
      .finally(() => setLoading(false));
  }, [row, projectId]);
  const submit = useSubmit(async () => {
    if (!row) return;
    const added = tags.filter((tag) => !row.tags.includes(tag));
    const removed = row.tags.filter((tag) => !tags.includes(tag));
    if (added.length) await api().post(row.id, 'addTags', { project: projectId, tags: added });
    if (removed.length) await api().post(row.id, 'removeTags', { project: projectId, tags: removed });
    const next = Object.fromEntries(properties.filter(([key]) => key.trim() !== '').map(([key, value]) => [key.trim(), value]));
    const change: Record<string, string | null> = {};
    for (const key of Object.keys(original)) if (!(key in next)) change[key] = null;
    for (const [key, value] of Object.entries(next)) if (original[key] !== value) change[key] = value;
    if (Object.keys(change).length) await api().post(row.id, 'setProperties', { project: projectId, properties: change });
  }, onDone);
  return (
    <Modal opened={row !== undefined} onClose={onClose} title={`Tags and properties: ${row?.name ?? ''}`} size="lg" centered>
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          void submit.run();
        }}
      >
        <Stack gap="sm">
          <TagsInput label="Tags" value={tags} onChange={setTags} placeholder="Type a tag and press Enter" />
          <Text size="sm" fw={500}>
            Properties {loading && <Loader size={10} />}
          </Text>
          {properties.map(([key, value], index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place
            <Group key={index} gap="xs" wrap="nowrap">
              <TextInput
                aria-label={`Property ${index + 1} key`}
                placeholder="key"
                value={key}
                onChange={(event) => {
                  const text = event.currentTarget.value;
                  setProperties((list) => list.map((entry, i) => (i === index ? [text, entry[1]] : entry)));
                }}
              />
              <TextInput
                aria-label={`Property ${index + 1} value`}
                placeholder="value"
                value={value}
                style={{ flex: 1 }}
                onChange={(event) => {
                  const text = event.currentTarget.value;
                  setProperties((list) => list.map((entry, i) => (i === index ? [entry[0], text] : entry)));
                }}
              />
              <Button
                variant="subtle"
                color="red"
                onClick={() => setProperties((list) => list.filter((_, i) => i !== index))}
                aria-label={`Remove property ${key}`}
              >
                ✕
              </Button>
            </Group>
          ))}
          <Group>
            <Button variant="default" size="xs" onClick={() => setProperties((list) => [...list, ['', '']])}>
              Add property
            </Button>
          </Group>
          <ErrorLine error={submit.error} title="Could not save" />
          <Buttons onCancel={onClose} busy={submit.busy} label="Save" />
        </Stack>
      </form>
    </Modal>
  );
}
