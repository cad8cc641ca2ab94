/**
 * The data browser's modal dialogs (SPEC §2 values delete-data, download-data, import-urls,
 * preview-file; SPEC §3 fields) and their request/success/fail transitions (SPEC §4), as one pure
 * reducer. Only one of these dialogs is open at a time.
 */
export type FetchStatus = 'NONE' | 'REQUESTING' | 'SUCCESS' | 'FAIL';

export interface DeleteDataState {
  isOpen: boolean;
  idsToDelete: string[];
  /** Folders to remove with the objects (full paths). */
  foldersToDelete: string[];
  deleteProjectID: string;
  deleteStatus: FetchStatus;
  error?: string;
}

export interface DownloadUrl {
  id: string;
  name: string;
  url: string;
  size?: number;
}

export interface DownloadDataState {
  isOpen: boolean;
  fileIDs: string[];
  isPreparingDownload: boolean;
  urls: DownloadUrl[];
  /** The manifest and script of a bulk download (several files). */
  bulkUrls: { manifest: string; script: string } | undefined;
  downloadInfo: string;
  /** SPEC §4: the download modal's loading defaults to true. */
  loading: boolean;
  offset: number;
  textContent: string;
  error?: string;
}

export interface ImportUrlsState {
  isOpen: boolean;
  status: FetchStatus;
  error?: string;
}

export interface PreviewFileState {
  isOpen: boolean;
  fileID: string;
}

export interface DataModalsState {
  'delete-data': DeleteDataState;
  'download-data': DownloadDataState;
  'import-urls': ImportUrlsState;
  'preview-file': PreviewFileState;
}

export type ModalId = keyof DataModalsState;

export function initialModals(): DataModalsState {
  return {
    'delete-data': { isOpen: false, idsToDelete: [], foldersToDelete: [], deleteProjectID: '', deleteStatus: 'NONE' },
    'download-data': {
      isOpen: false,
      fileIDs: [],
      isPreparingDownload: false,
      urls: [],
      bulkUrls: undefined,
      downloadInfo: '',
      loading: true,
      offset: 0,
      textContent: '',
    },
    'import-urls': { isOpen: false, status: 'NONE' },
    'preview-file': { isOpen: false, fileID: '' },
  };
}

export type ModalAction =
  | { type: 'openDelete'; projectId: string; ids: string[]; folders: string[] }
  | { type: 'deleteRequest' }
  | { type: 'deleteSuccess' }
  | { type: 'deleteFail'; error: string }
  | { type: 'openDownload'; fileIDs: string[] }
  | { type: 'downloadRequest' }
  | { type: 'downloadSuccess'; urls: DownloadUrl[]; bulk?: { manifest: string; script: string } }
  | { type: 'downloadFail'; error: string }
  | { type: 'openImport' }
  | { type: 'importRequest' }
  | { type: 'importSuccess' }
  | { type: 'importFail'; error: string }
  | { type: 'openPreview'; fileID: string }
  | { type: 'close'; modal: ModalId };

export function modalsReducer(state: DataModalsState, action: ModalAction): DataModalsState {
  const fresh = initialModals();
  switch (action.type) {
    case 'openDelete':
      return {
        ...fresh,
        'delete-data': { ...fresh['delete-data'], isOpen: true, idsToDelete: action.ids, foldersToDelete: action.folders, deleteProjectID: action.projectId },
      };
    case 'deleteRequest':
      return { ...state, 'delete-data': { ...state['delete-data'], deleteStatus: 'REQUESTING', error: undefined } };
    case 'deleteSuccess':
      // Done: the dialog closes and forgets the ids.
      return { ...state, 'delete-data': { ...fresh['delete-data'], deleteStatus: 'SUCCESS' } };
    case 'deleteFail':
      // The dialog stays open with the same ids, saying why.
      return { ...state, 'delete-data': { ...state['delete-data'], deleteStatus: 'FAIL', error: action.error } };
    case 'openDownload':
      return { ...fresh, 'download-data': { ...fresh['download-data'], isOpen: true, fileIDs: action.fileIDs } };
    case 'downloadRequest':
      return { ...state, 'download-data': { ...state['download-data'], isPreparingDownload: true, loading: true, error: undefined } };
    case 'downloadSuccess':
      return {
        ...state,
        'download-data': {
          ...state['download-data'],
          isPreparingDownload: false,
          loading: false,
          urls: action.urls,
          bulkUrls: action.bulk,
          downloadInfo: `${action.urls.length} file${action.urls.length === 1 ? '' : 's'} ready`,
        },
      };
    case 'downloadFail':
      return { ...state, 'download-data': { ...state['download-data'], isPreparingDownload: false, loading: false, error: action.error } };
    case 'openImport':
      return { ...fresh, 'import-urls': { isOpen: true, status: 'NONE' } };
    case 'importRequest':
      return { ...state, 'import-urls': { ...state['import-urls'], status: 'REQUESTING', error: undefined } };
    case 'importSuccess':
      return { ...state, 'import-urls': { isOpen: false, status: 'SUCCESS' } };
    case 'importFail':
      return { ...state, 'import-urls': { ...state['import-urls'], status: 'FAIL', error: action.error } };
    case 'openPreview':
      return { ...fresh, 'preview-file': { isOpen: true, fileID: action.fileID } };
    case 'close':
      return { ...state, [action.modal]: fresh[action.modal] };
  }
}

/** A shell script that downloads every URL of a manifest with curl, keeping names (bulk download). */
export function bulkDownloadFiles(urls: readonly DownloadUrl[]): { manifest: string; script: string } {
  const manifest = `${JSON.stringify(
    urls.map(({ id, name, url, size }) => ({ id, name, url, ...(size !== undefined ? { size } : {}) })),
    null,
    2,
  )}\n`;
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const lines = urls.map(({ name, url }) => `curl --fail --location --retry 3 -C - -o ${quote(safeFileName(name))} ${quote(url)}`);
  const script = ['#!/bin/sh', '# Downloads the selected files (links expire after 24 hours).', 'set -e', ...lines, ''].join('\n');
  return { manifest, script };
}

/** A local file name without path separators or control characters. */
export function safeFileName(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const cleaned = name.replace(/[/\\\u0000-\u001f]/g, '_').replace(/^\.+$/, '_');
  return cleaned === '' ? '_' : cleaned;
}
