/**
 * The workflow importer's state (SPEC §3: output folder and status) and its status output, shaped
 * like the outputs of a DNAnexus importer app: the descriptor as uploaded, the compiled workflow and
 * the log, each a link object, and a status code (0 when the workflow was made). Pure.
 */
export type ImportStatus = 'idle' | 'uploading' | 'compiling' | 'writing-log' | 'done' | 'failed';

export interface Link {
  $dnanexus_link: { project: string; id: string };
}

export interface StatusOutput {
  primary_descriptor: Link | null;
  compiled_workflow: Link | null;
  output_log: Link | null;
  status_code: number;
}

export interface ImporterState {
  project: string | null;
  outputFolder: string;
  status: ImportStatus;
  log: string[];
  output: StatusOutput | null;
}

/** status_code: 0 made, 1 the document was refused (bad input), 2 anything else (permissions, network, server). */
export const STATUS_OK = 0;
export const STATUS_REFUSED = 1;
export const STATUS_ERROR = 2;

export function initialImporterState(project: string | null = null, outputFolder = '/'): ImporterState {
  return { project, outputFolder, status: 'idle', log: [], output: null };
}

export const link = (project: string, id: string): Link => ({ $dnanexus_link: { project, id } });

export function logLine(now: Date, message: string): string {
  return `${now.toISOString().replace('T', ' ').slice(0, 19)} ${message}`;
}

export type ImporterEvent =
  | { type: 'start'; project: string; outputFolder: string }
  | { type: 'status'; status: ImportStatus }
  | { type: 'log'; line: string }
  | { type: 'finish'; output: StatusOutput }
  | { type: 'reset' }
  | { type: 'folder'; outputFolder: string }
  | { type: 'project'; project: string | null };

export function importerReducer(state: ImporterState, event: ImporterEvent): ImporterState {
  switch (event.type) {
    case 'start':
      return { project: event.project, outputFolder: event.outputFolder, status: 'uploading', log: [], output: null };
    case 'status':
      return { ...state, status: event.status };
    case 'log':
      return { ...state, log: [...state.log, event.line] };
    case 'finish':
      return { ...state, status: event.output.status_code === STATUS_OK ? 'done' : 'failed', output: event.output };
    case 'reset':
      return { ...state, status: 'idle', log: [], output: null };
    case 'folder':
      return state.status === 'idle' || state.status === 'done' || state.status === 'failed'
        ? { ...state, outputFolder: normalizeFolder(event.outputFolder) }
        : state;
    case 'project':
      return state.status === 'idle' || state.status === 'done' || state.status === 'failed' ? { ...state, project: event.project } : state;
  }
}

/** `/a//b/` → `/a/b`; a folder always starts with "/". */
export function normalizeFolder(folder: string): string {
  const segments = folder.split('/').filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}

/** Whether a folder path is acceptable (no "." or ".." segments). */
export function folderProblem(folder: string): string | undefined {
  return folder.split('/').some((segment) => segment === '.' || segment === '..') ? 'Folder names "." and ".." are not allowed' : undefined;
}

/** The log file's name beside the descriptor: `germline.json` → `germline.json.import.log`. */
export function logFileName(descriptor: string): string {
  return `${descriptor}.import.log`;
}
