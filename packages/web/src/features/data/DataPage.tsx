import {
  Alert,
  Anchor,
  Breadcrumbs,
  Button,
  Checkbox,
  Drawer,
  Group,
  Menu,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type MouseEvent, useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useNarrow } from '../../ui/use-narrow';
import { field, useProject } from '../projects/hooks';
import { levelAtLeast } from '../projects/project-rules';
import { ProjectHeader } from '../projects/ProjectHeader';
import { PreviewModal, type PreviewTarget } from '../viewer/PreviewModal';
import { DeleteModal, DownloadModal, MoveCopyModal, NewFolderModal, RenameModal, TagsModal } from './ActionModals';
import classes from './DataPage.module.css';
import { filesFromDrop, filesFromInput, type PickedFile } from './drop';
import { activeFilterIds, type FilterValue, filtersReducer, folderFilterMode, pageFilters, type PropertyCondition } from './filters';
import { ancestorsOf, buildFolderTree, expandedPaths, normalizeFolderPath, ROOT, revealFolder, toggleFolder } from './folder-tree';
import { FolderTree } from './FolderTree';
import { flattenPages, folderRow, searchFromFilters, useFolderListing, useFolderPaths, useObjectSearch, useRefreshProject } from './hooks';
import { ImportProgress, ImportUrlsModal, type StartedImport } from './ImportUrlsModal';
import { bulkDownloadFiles, initialModals, modalsReducer } from './modal-state';
import { nameMatcher } from './name-filter';
import { downloadInBrowser, sharedDownloadUrl } from './download';
import { ObjectTable, type RowHandlers } from './ObjectTable';
import {
  cycleSort,
  DATA_COLUMN_LABELS,
  DATA_COLUMNS,
  type DataTableOptions,
  parseTableOptions,
  sortRows,
  toggleColumn,
  type BrowserRow,
} from './table-options';
import { UploadPanel } from './UploadPanel';
import { planDrop } from './upload-planner';
import { uploader } from './uploader';

const PAGE_ID = 'data-manager';
const OPTIONS_KEY = 'panx.dataTableOptions';
const CLASSES = ['file', 'record', 'applet', 'workflow'];
const STATES = ['open', 'closing', 'closed'];

function loadOptions(): DataTableOptions {
  try {
    return parseTableOptions(localStorage.getItem(OPTIONS_KEY));
  } catch {
    return parseTableOptions(null);
  }
}

/** `/panx/projects/{id}/data/*`: the folder tree, the object table, filters and every data action. */
export function DataPage() {
  const params = useParams();
  const projectId = params.id ?? '';
  const folder = normalizeFolderPath(params['*'] ?? '');
  const navigate = useNavigate();
  const { language } = useRuntime();
  const narrow = useNarrow();
  const project = useProject(projectId);
  const level = field.str(project.data, 'level');
  const projectName = field.str(project.data, 'name') ?? projectId;
  const folderPaths = useFolderPaths(projectId);
  const refresh = useRefreshProject();

  // Folder tree: rebuilt when the folders change, keeping what is expanded, always revealing the open folder.
  const [tree, setTree] = useState(() => buildFolderTree([ROOT]));
  useEffect(() => {
    if (folderPaths.data) setTree((current) => revealFolder(buildFolderTree(folderPaths.data, expandedPaths(current)), folder));
  }, [folderPaths.data, folder]);
  const [treeOpen, setTreeOpen] = useState(false);

  // Filters of this page (SPEC §4 reducer), table options (SPEC §3), modals (SPEC §3/§4), selection.
  const [filters, dispatchFilter] = useReducer(filtersReducer, {});
  useEffect(() => dispatchFilter({ type: 'initialize', pageId: PAGE_ID }), []);
  const page = pageFilters(filters, PAGE_ID);
  const [showHidden, setShowHidden] = useState(false);
  const [options, setOptions] = useState<DataTableOptions>(loadOptions);
  useEffect(() => {
    try {
      localStorage.setItem(OPTIONS_KEY, JSON.stringify(options));
    } catch {
      // not kept
    }
  }, [options]);
  const [modals, dispatchModal] = useReducer(modalsReducer, undefined, initialModals);
  const [imports, setImports] = useState<StartedImport[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // Another folder: nothing selected (reset while rendering, as React recommends for derived resets).
  const [selectionPlace, setSelectionPlace] = useState(`${projectId}:${folder}`);
  if (selectionPlace !== `${projectId}:${folder}`) {
    setSelectionPlace(`${projectId}:${folder}`);
    setSelected(new Set());
  }
  const [creatingFolder, setCreatingFolder] = useState(false);
  const [renaming, setRenaming] = useState<BrowserRow>();
  const [tagging, setTagging] = useState<BrowserRow>();
  const [moving, setMoving] = useState<'move' | 'copy'>();
  const [preview, setPreview] = useState<PreviewTarget>();

  // What to list: a folder through listFolder, or a search through findDataObjects.
  const search = searchFromFilters(page, folder, showHidden);
  const searching = search === 'invalid' || activeFilterIds(page).some((id) => id !== 'nameMode') || page.scope.selectedScope === 'project';
  const listing = useFolderListing(projectId, folder, { includeHidden: showHidden, enabled: !searching });
  const found = useObjectSearch(
    projectId,
    search === 'invalid' ? { scope: 'folder', folder, includeHidden: false } : search,
    searching && search !== 'invalid',
  );
  const source = searching ? found : listing;
  const { rows: objectRows, folders: subfolders } = useMemo(() => flattenPages(source.data), [source.data]);
  const folderMode = folderFilterMode(page);
  const nameValue = typeof page.filterValues.name === 'string' ? page.filterValues.name : '';
  const nameMode = page.filterValues.nameMode === 'regex' ? 'regex' : 'text';
  const shownFolders = useMemo(() => {
    if (page.scope.selectedScope === 'project' || folderMode === 'none') return [];
    const all = searching ? (tree.get(folder)?.children ?? []) : subfolders;
    const match = folderMode === 'by-name' ? nameMatcher(nameValue, nameMode, () => undefined) : () => true;
    return all.filter((path) => match(path.slice(path.lastIndexOf('/') + 1)));
  }, [page.scope.selectedScope, folderMode, searching, tree, folder, subfolders, nameValue, nameMode]);
  const rows = useMemo(
    () =>
      search === 'invalid'
        ? []
        : sortRows([...shownFolders.map((path) => folderRow(projectId, path)), ...objectRows], source.hasNextPage ? [] : options.sortOrder),
    [search, shownFolders, objectRows, projectId, options.sortOrder, source.hasNextPage],
  );

  // Sorting needs every object: load the remaining pages.
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = source;
  useEffect(() => {
    if (options.sortOrder.length && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [options.sortOrder.length, hasNextPage, isFetchingNextPage, fetchNextPage]);
  const needMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);

  // Permissions (SPEC §6): hide or disable what the server would refuse, saying why.
  // Until the project's description arrives nothing is blocked: the server decides (a drop is never lost to a race).
  const canUpload = project.data === undefined || levelAtLeast(level, 'UPLOAD');
  const uploadBlocked = !canUpload
    ? 'You need UPLOAD access to add data.'
    : field.bool(project.data, 'externalUploadRestricted')
      ? 'Uploads from outside are restricted in this project.'
      : undefined;
  const canContribute = levelAtLeast(level, 'CONTRIBUTE');
  const deleteBlocked = !canContribute
    ? 'You need CONTRIBUTE access to delete.'
    : field.bool(project.data, 'protected') && level !== 'ADMINISTER'
      ? 'This project is protected: only administrators delete data.'
      : undefined;
  const downloadBlocked = field.bool(project.data, 'downloadRestricted') ? 'Downloads are restricted in this project.' : undefined;

  const selectedRows = rows.filter((row) => selected.has(row.id));
  const selectedFiles = selectedRows.filter((row) => row.kind === 'object' && row.class === 'file');

  const openFolder = useCallback(
    (path: string) =>
      navigate(`/panx/projects/${encodeURIComponent(projectId)}/data${path === ROOT ? '/' : path.split('/').map(encodeURIComponent).join('/')}`),
    [navigate, projectId],
  );

  const refreshListing = useCallback(() => void refresh(projectId), [refresh, projectId]);
  const done = useCallback(
    (message?: string) => {
      if (message) notifications.show({ color: 'green', message });
      setSelected(new Set());
      void refresh(projectId);
    },
    [refresh, projectId],
  );

  // Uploads: refresh the listing as files finish.
  useEffect(() => uploader().onFinished((item) => item.project === projectId && void refresh(projectId)), [projectId, refresh]);
  const startUpload = useCallback(
    async (files: PickedFile[]) => {
      if (uploadBlocked) {
        notifications.show({ color: 'red', title: 'Cannot upload here', message: uploadBlocked });
        return;
      }
      if (files.length === 0) return;
      const plan = planDrop(files, folder);
      try {
        for (const path of plan.folders) await api().call('project-xxxx/newFolder', projectId, { folder: path, parents: true });
      } catch (error) {
        notifications.show({ color: 'red', title: 'Could not create the folders', message: describeError(error) });
        return;
      }
      if (plan.folders.length) void refresh(projectId);
      uploader().add(plan.files, projectId);
    },
    [uploadBlocked, folder, projectId, refresh],
  );
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);

  const download = useCallback(
    async (targets: BrowserRow[]) => {
      const files = targets.filter((row) => row.kind === 'object' && row.class === 'file');
      if (files.length === 1 && files[0]) {
        const file = files[0];
        try {
          await downloadInBrowser(file.id, projectId, file.name);
        } catch (error) {
          notifications.show({ color: 'red', title: 'Could not download', message: describeError(error) });
        }
        return;
      }
      dispatchModal({ type: 'openDownload', fileIDs: files.map((file) => file.id) });
      dispatchModal({ type: 'downloadRequest' });
      try {
        const urls = [];
        for (const file of files) {
          urls.push({ id: file.id, name: file.name, url: await sharedDownloadUrl(file.id, projectId, file.name), size: file.size });
        }
        dispatchModal({ type: 'downloadSuccess', urls, bulk: bulkDownloadFiles(urls) });
      } catch (error) {
        dispatchModal({ type: 'downloadFail', error: describeError(error) });
      }
    },
    [projectId],
  );

  const requestDelete = async () => {
    const state = modals['delete-data'];
    dispatchModal({ type: 'deleteRequest' });
    try {
      if (state.idsToDelete.length) await api().call('project-xxxx/removeObjects', state.deleteProjectID, { objects: state.idsToDelete });
      for (const path of state.foldersToDelete) {
        let completed = false;
        while (!completed)
          ({ completed } = await api().call('project-xxxx/removeFolder', state.deleteProjectID, { folder: path, recurse: true, partial: true }));
      }
      dispatchModal({ type: 'deleteSuccess' });
      done(`Deleted ${state.idsToDelete.length + state.foldersToDelete.length} item(s)`);
    } catch (error) {
      dispatchModal({ type: 'deleteFail', error: describeError(error) });
      void refresh(projectId);
    }
  };

  const setVisibility = useCallback(
    async (targets: BrowserRow[], hidden: boolean) => {
      try {
        for (const row of targets.filter((r) => r.kind === 'object')) await api().post(row.id, 'setVisibility', { project: projectId, hidden });
        done(`${hidden ? 'Hid' : 'Unhid'} ${targets.length} item(s)`);
      } catch (error) {
        notifications.show({ color: 'red', title: 'Could not change visibility', message: describeError(error) });
      }
    },
    [projectId, done],
  );

  const openRow = useCallback(
    (row: BrowserRow) => {
      if (row.kind === 'folder') openFolder(row.id);
      else if (row.class === 'file') {
        setPreview({ id: row.id, name: row.name, project: projectId, size: row.size, media: row.media, state: row.state });
        dispatchModal({ type: 'openPreview', fileID: row.id });
      } else navigate(`/panx/${encodeURIComponent(projectId)}/${encodeURIComponent(row.id)}/view`);
    },
    [openFolder, projectId, navigate],
  );

  const handlers: RowHandlers = useMemo(
    () => ({
      selected,
      language,
      onSelect: (row, on) =>
        setSelected((current) => {
          const next = new Set(current);
          if (on) next.add(row.id);
          else next.delete(row.id);
          return next;
        }),
      onOpen: openRow,
      menu: (row) => (
        <>
          {row.kind === 'folder' ? (
            <Menu.Item onClick={() => openFolder(row.id)}>Open</Menu.Item>
          ) : (
            <>
              {row.class === 'file' && <Menu.Item onClick={() => openRow(row)}>Preview</Menu.Item>}
              <Menu.Item component={Link} to={`/panx/${encodeURIComponent(projectId)}/${encodeURIComponent(row.id)}/view`}>
                Open in the file viewer
              </Menu.Item>
              {row.class === 'file' && (
                <Menu.Item disabled={downloadBlocked !== undefined} onClick={() => void download([row])}>
                  Download
                </Menu.Item>
              )}
            </>
          )}
          <Menu.Divider />
          <Menu.Item disabled={!canContribute} onClick={() => setRenaming(row)}>
            Rename
          </Menu.Item>
          {row.kind === 'object' && (
            <>
              <Menu.Item disabled={!canContribute} onClick={() => setTagging(row)}>
                Tags and properties
              </Menu.Item>
              <Menu.Item disabled={!canContribute} onClick={() => void setVisibility([row], !row.hidden)}>
                {row.hidden ? 'Unhide' : 'Hide'}
              </Menu.Item>
            </>
          )}
          <Menu.Item
            disabled={!canContribute}
            onClick={() => {
              setSelected(new Set([row.id]));
              setMoving('move');
            }}
          >
            Move
          </Menu.Item>
          <Menu.Item
            disabled={downloadBlocked !== undefined}
            onClick={() => {
              setSelected(new Set([row.id]));
              setMoving('copy');
            }}
          >
            Copy to another project
          </Menu.Item>
          <Menu.Item
            color="red"
            disabled={deleteBlocked !== undefined}
            onClick={() =>
              dispatchModal({
                type: 'openDelete',
                projectId,
                ids: row.kind === 'object' ? [row.id] : [],
                folders: row.kind === 'folder' ? [row.id] : [],
              })
            }
          >
            Delete
          </Menu.Item>
        </>
      ),
    }),
    [selected, language, openRow, openFolder, projectId, downloadBlocked, download, canContribute, setVisibility, deleteBlocked],
  );

  const setFilter = (filterId: string, value: FilterValue) => dispatchFilter({ type: 'set', pageId: PAGE_ID, filterId, value });
  const itemsForModal = selectedRows;
  const crumbs = ancestorsOf(folder);
  const error = source.error ?? (project.isError ? project.error : undefined);

  const onDrop = async (event: React.DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void startUpload(await filesFromDrop(event.dataTransfer));
  };

  const toolbar = (
    <Group gap="xs" wrap="wrap">
      <Tooltip label={uploadBlocked ?? 'Upload files (or drop them on the page)'} withinPortal>
        <Button size="xs" disabled={uploadBlocked !== undefined} onClick={() => fileInput.current?.click()}>
          Upload files
        </Button>
      </Tooltip>
      <Button size="xs" variant="default" disabled={uploadBlocked !== undefined} onClick={() => folderInput.current?.click()}>
        Upload folder
      </Button>
      <Button size="xs" variant="default" disabled={!canUpload} onClick={() => setCreatingFolder(true)}>
        New folder
      </Button>
      <Tooltip label={canContribute ? 'A workflow in this folder, built in the workflow editor' : 'Creating a workflow needs CONTRIBUTE access'} withinPortal>
        <Button
          size="xs"
          variant="default"
          disabled={!canContribute}
          component={Link}
          to={`/panx/projects/${projectId}/workflows/new?folder=${encodeURIComponent(folder)}`}
          onClick={(event: MouseEvent) => {
            if (!canContribute) event.preventDefault();
          }}
        >
          New workflow
        </Button>
      </Tooltip>
      <Tooltip label={canContribute ? 'The server fetches files from http, https or ftp URLs' : 'Importing runs jobs: it needs CONTRIBUTE access'} withinPortal>
        <Button size="xs" variant="default" disabled={!canContribute} onClick={() => dispatchModal({ type: 'openImport' })}>
          Import from URLs
        </Button>
      </Tooltip>
      {selectedRows.length > 0 && (
        <>
          <Text size="xs" c="dimmed" ml="xs">
            {selectedRows.length} selected:
          </Text>
          <Button size="xs" variant="light" disabled={selectedFiles.length === 0 || downloadBlocked !== undefined} onClick={() => void download(selectedRows)}>
            Download
          </Button>
          <Button size="xs" variant="light" disabled={!canContribute} onClick={() => setMoving('move')}>
            Move
          </Button>
          <Button size="xs" variant="light" disabled={downloadBlocked !== undefined} onClick={() => setMoving('copy')}>
            Copy
          </Button>
          <Button
            size="xs"
            variant="light"
            color="red"
            disabled={deleteBlocked !== undefined}
            onClick={() =>
              dispatchModal({
                type: 'openDelete',
                projectId,
                ids: selectedRows.filter((row) => row.kind === 'object').map((row) => row.id),
                folders: selectedRows.filter((row) => row.kind === 'folder').map((row) => row.id),
              })
            }
          >
            Delete
          </Button>
        </>
      )}
    </Group>
  );

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the page is a drop target; the upload buttons do the same for keyboards
    <div
      className={classes.page}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (event.currentTarget === event.target) setDragging(false);
      }}
      onDrop={(event) => void onDrop(event)}
      data-testid="data-page"
    >
      <ProjectHeader projectId={projectId} active="data" />
      <input
        ref={fileInput}
        type="file"
        multiple
        hidden
        aria-label="Files to upload"
        onChange={(event) => {
          void startUpload(filesFromInput(event.currentTarget.files));
          event.currentTarget.value = '';
        }}
      />
      <input
        ref={folderInput}
        type="file"
        hidden
        aria-label="Folder to upload"
        {...{ webkitdirectory: '' }}
        onChange={(event) => {
          void startUpload(filesFromInput(event.currentTarget.files));
          event.currentTarget.value = '';
        }}
      />
      {dragging && (
        <div className={classes.dropOverlay} aria-hidden>
          Drop files or folders to upload them into {folder}
        </div>
      )}
      <div className={classes.layout}>
        {!narrow && (
          <Paper withBorder className={classes.treePane}>
            <FolderTree
              tree={tree}
              active={folder}
              projectName={projectName}
              onOpen={openFolder}
              onToggle={(path) => setTree((current) => toggleFolder(current, path))}
            />
          </Paper>
        )}
        <Stack gap="sm" className={classes.main}>
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Group gap="xs" wrap="nowrap" className={classes.crumbs}>
              {narrow && (
                <Button size="xs" variant="default" onClick={() => setTreeOpen(true)}>
                  Folders
                </Button>
              )}
              <Breadcrumbs separator="/" separatorMargin={4} className={classes.crumbs} aria-label="Folder path">
                {crumbs.map((path) => (
                  <Anchor key={path} size="sm" onClick={() => openFolder(path)} fw={path === folder ? 600 : 400} c={path === folder ? 'dark' : undefined}>
                    {path === ROOT ? projectName : path.slice(path.lastIndexOf('/') + 1)}
                  </Anchor>
                ))}
              </Breadcrumbs>
            </Group>
            {toolbar}
          </Group>

          <Paper withBorder p="xs">
            <Group gap="xs" wrap="wrap" align="flex-end">
              <TextInput
                size="xs"
                label="Name"
                placeholder={nameMode === 'regex' ? 'Regular expression' : 'Part of the name'}
                value={nameValue}
                onChange={(event) => setFilter('name', event.currentTarget.value)}
                className={classes.grow}
                error={search === 'invalid' ? 'Invalid regular expression: nothing matches' : undefined}
              />
              <SegmentedControl
                size="xs"
                value={nameMode}
                onChange={(value) => setFilter('nameMode', value === 'regex' ? 'regex' : undefined)}
                data={[
                  { value: 'text', label: 'Text' },
                  { value: 'regex', label: 'Regex' },
                ]}
                aria-label="Name filter mode"
              />
              {(!narrow || page.openedFilterIDs.includes('more')) && (
                <>
                  <Select
                    size="xs"
                    label="Scope"
                    w={150}
                    data={[
                      { value: 'folder', label: 'Current folder' },
                      { value: 'project', label: 'Whole project' },
                    ]}
                    value={page.scope.selectedScope}
                    onChange={(value) => dispatchFilter({ type: 'setScope', pageId: PAGE_ID, scope: value === 'project' ? 'project' : 'folder' })}
                    allowDeselect={false}
                  />
                  <Select
                    size="xs"
                    label="Type"
                    w={110}
                    placeholder="Any"
                    clearable
                    data={CLASSES}
                    value={(page.filterValues.class as string) || null}
                    onChange={(value) => setFilter('class', value ?? undefined)}
                  />
                  <Select
                    size="xs"
                    label="State"
                    w={110}
                    placeholder="Any"
                    clearable
                    data={STATES}
                    value={(page.filterValues.state as string) || null}
                    onChange={(value) => setFilter('state', value ?? undefined)}
                  />
                </>
              )}
              <Button
                size="xs"
                variant={page.openedFilterIDs.length ? 'light' : 'default'}
                onClick={() => dispatchFilter({ type: page.openedFilterIDs.includes('more') ? 'close' : 'open', pageId: PAGE_ID, filterId: 'more' })}
              >
                More filters
              </Button>
              {activeFilterIds(page).length > 0 && (
                <Button size="xs" variant="subtle" onClick={() => dispatchFilter({ type: 'clearAll', pageId: PAGE_ID })}>
                  Clear all
                </Button>
              )}
              <Menu closeOnItemClick={false} withinPortal>
                <Menu.Target>
                  <Button size="xs" variant="subtle">
                    Columns
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  {DATA_COLUMNS.filter((column) => column !== 'name' && column !== 'level').map((column) => (
                    <Menu.Item key={column}>
                      <Checkbox
                        size="xs"
                        label={DATA_COLUMN_LABELS[column]}
                        checked={options.columnsToShow.includes(column)}
                        onChange={() => setOptions((current) => toggleColumn(current, column))}
                      />
                    </Menu.Item>
                  ))}
                </Menu.Dropdown>
              </Menu>
              <Switch size="xs" label="Show hidden" checked={showHidden} onChange={(event) => setShowHidden(event.currentTarget.checked)} />
            </Group>
            {page.openedFilterIDs.includes('more') && (
              <Group gap="xs" wrap="wrap" align="flex-end" mt="xs">
                <TagsInput
                  size="xs"
                  label="Tags (all of)"
                  value={Array.isArray(page.filterValues.tags) ? (page.filterValues.tags as string[]) : []}
                  onChange={(tags) => setFilter('tags', tags.length ? tags : undefined)}
                  className={classes.grow}
                />
                <TextInput
                  size="xs"
                  label="Property (key or key=value)"
                  defaultValue=""
                  onBlur={(event) => {
                    const text = event.currentTarget.value.trim();
                    const [key = '', ...rest] = text.split('=');
                    const condition: PropertyCondition[] = text ? [{ key, value: rest.join('=') }] : [];
                    setFilter('properties', condition.length ? condition : undefined);
                  }}
                />
                <TextInput
                  size="xs"
                  type="date"
                  label="Created after"
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    setFilter('created', value ? { after: Date.parse(`${value}T00:00:00`) } : undefined);
                  }}
                />
              </Group>
            )}
          </Paper>

          {error ? (
            <ErrorState error={error} onRetry={() => void source.refetch()} title="Could not list this folder" />
          ) : (
            <Paper withBorder className={classes.tablePaper}>
              {source.isPending && !searching ? (
                <div style={{ padding: 12 }}>
                  <LoadingState rows={6} label="Loading the folder" />
                </div>
              ) : (
                <ObjectTable
                  rows={rows}
                  options={options}
                  handlers={handlers}
                  narrow={narrow}
                  hasMore={source.hasNextPage ?? false}
                  loadingMore={source.isFetchingNextPage}
                  onNeedMore={needMore}
                  onSort={(column) => setOptions((current) => cycleSort(current, column))}
                  allSelected={rows.length > 0 && rows.every((row) => selected.has(row.id))}
                  onSelectAll={(on) => setSelected(on ? new Set(rows.map((row) => row.id)) : new Set())}
                  empty={
                    search === 'invalid' ? (
                      <EmptyState title="Invalid regular expression">Nothing matches until the expression is valid.</EmptyState>
                    ) : searching ? (
                      source.isPending ? (
                        <LoadingState rows={3} label="Searching" />
                      ) : (
                        <EmptyState title="Nothing matches">Change or clear the filters.</EmptyState>
                      )
                    ) : (
                      <EmptyState title="This folder is empty">
                        {uploadBlocked ? 'Nothing here yet.' : 'Drop files or folders here, or use Upload files.'}
                      </EmptyState>
                    )
                  }
                />
              )}
              <Group justify="space-between" className={classes.footer} px="sm">
                <Text size="xs" c="dimmed">
                  {rows.length.toLocaleString(language)} item{rows.length === 1 ? '' : 's'}
                  {source.hasNextPage ? ' loaded so far' : ''}
                  {page.scope.selectedScope === 'project' ? ' in the whole project' : ''}
                </Text>
                {options.sortOrder.length > 0 && source.hasNextPage && (
                  <Text size="xs" c="dimmed">
                    Loading every object to sort…
                  </Text>
                )}
              </Group>
            </Paper>
          )}
          <ImportProgress projectId={projectId} imports={imports} onFinished={refreshListing} onDismiss={() => setImports([])} />
          {level === 'VIEW' && <Alert color="gray">You can view and download this project's data (VIEW access). Ask an administrator for more.</Alert>}
        </Stack>
      </div>

      <Drawer opened={treeOpen} onClose={() => setTreeOpen(false)} title="Folders" size="80%">
        <FolderTree
          tree={tree}
          active={folder}
          projectName={projectName}
          onOpen={(path) => {
            setTreeOpen(false);
            openFolder(path);
          }}
          onToggle={(path) => setTree((current) => toggleFolder(current, path))}
        />
      </Drawer>
      <NewFolderModal
        opened={creatingFolder}
        projectId={projectId}
        parent={folder}
        onClose={() => setCreatingFolder(false)}
        onDone={(path) => {
          setCreatingFolder(false);
          done(`Folder ${path} created`);
        }}
      />
      <RenameModal
        row={renaming}
        projectId={projectId}
        onClose={() => setRenaming(undefined)}
        onDone={() => {
          setRenaming(undefined);
          done('Renamed');
        }}
      />
      <TagsModal
        row={tagging}
        projectId={projectId}
        onClose={() => setTagging(undefined)}
        onDone={() => {
          setTagging(undefined);
          done('Saved');
        }}
      />
      <MoveCopyModal
        mode={moving}
        projectId={projectId}
        items={itemsForModal}
        onClose={() => setMoving(undefined)}
        onDone={(message) => {
          setMoving(undefined);
          done(message);
        }}
      />
      <DeleteModal
        state={modals['delete-data']}
        names={rows
          .filter((row) => modals['delete-data'].idsToDelete.includes(row.id) || modals['delete-data'].foldersToDelete.includes(row.id))
          .map((row) => (row.kind === 'folder' ? `${row.name}/` : row.name))}
        onClose={() => dispatchModal({ type: 'close', modal: 'delete-data' })}
        onRequest={() => void requestDelete()}
      />
      <ImportUrlsModal
        state={modals['import-urls']}
        projectId={projectId}
        folder={folder}
        dispatch={dispatchModal}
        onStarted={(started) => setImports((current) => [...current, ...started])}
      />
      <DownloadModal state={modals['download-data']} onClose={() => dispatchModal({ type: 'close', modal: 'download-data' })} />
      <PreviewModal
        target={modals['preview-file'].isOpen ? preview : undefined}
        onClose={() => {
          dispatchModal({ type: 'close', modal: 'preview-file' });
          setPreview(undefined);
        }}
      />
      <UploadPanel />
    </div>
  );
}
