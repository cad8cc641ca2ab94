/**
 * Filters of the executions list (SPEC §2): state, name, executable, launched by, date range and
 * tags. The values live in the per-page filter state of SPEC §3/§4, kept by the shared reducer of
 * `features/data/filters.ts` (page id `executions-list`); this module turns them into the input of
 * `system/findExecutions` for the list's top-level executions.
 */
import type { RouteInput } from '@panx/contract';
import { type DateRange, isActiveValue, type PageFilterState } from '../data/filters';
import { type NameFilterMode, serverNameFilter } from '../data/name-filter';
import { EXECUTION_LIST_FIELDS, EXECUTION_STATES } from './execution-model';

export const EXECUTIONS_PAGE_ID = 'executions-list';

export const FILTER_IDS = ['state', 'name', 'executable', 'launchedBy', 'created', 'tags'] as const;
export type ExecutionFilterId = (typeof FILTER_IDS)[number];

export const FILTER_LABELS: Readonly<Record<ExecutionFilterId, string>> = {
  state: 'State',
  name: 'Name',
  executable: 'Executable',
  launchedBy: 'Launched by',
  created: 'Created',
  tags: 'Tags',
};

type FindExecutionsInput = RouteInput<'system/findExecutions'>;

const EXECUTABLE_ID = /^(applet|app|workflow|globalworkflow)-[0-9A-Za-z]{24}$|^app-[a-zA-Z0-9._-]+(\/[a-zA-Z0-9._-]+)?$/;
const USER_ID = /^user-[a-zA-Z0-9._-]+$/;

export interface FilterProblem {
  filterId: ExecutionFilterId;
  message: string;
}

/**
 * The findExecutions input of the list: the project's top-level executions (no subjobs, no stage
 * jobs) matching the filters; `problems` names filter values the server could not take (then nothing
 * is asked for: the list shows the problem instead of a misleading result).
 */
export function findExecutionsInput(project: string, page: PageFilterState, limit: number): { input: FindExecutionsInput; problems: FilterProblem[] } {
  const values = page.filterValues;
  const problems: FilterProblem[] = [];
  const input: FindExecutionsInput = {
    project,
    includeSubjobs: false,
    parentAnalysis: null,
    describe: { fields: EXECUTION_LIST_FIELDS },
    limit,
  };

  const states = values.state;
  if (Array.isArray(states) && states.length) {
    const known = states.filter((state): state is string => typeof state === 'string' && (EXECUTION_STATES as readonly string[]).includes(state));
    if (known.length !== states.length) problems.push({ filterId: 'state', message: 'Unknown state in the filter' });
    input.state = known;
  }

  const name = typeof values.name === 'string' ? values.name.trim() : '';
  if (name) {
    const mode: NameFilterMode = values.nameMode === 'regex' ? 'regex' : 'text';
    const filter = serverNameFilter(name, mode);
    if (filter === 'invalid') problems.push({ filterId: 'name', message: 'Not a valid regular expression' });
    else if (filter) input.name = filter;
  }

  const executable = typeof values.executable === 'string' ? values.executable.trim() : '';
  if (executable) {
    if (EXECUTABLE_ID.test(executable)) input.executable = executable;
    else problems.push({ filterId: 'executable', message: 'Expected an applet, app or workflow ID (applet-xxxx)' });
  }

  const launchedBy = typeof values.launchedBy === 'string' ? values.launchedBy.trim() : '';
  if (launchedBy) {
    if (USER_ID.test(launchedBy)) input.launchedBy = launchedBy;
    else problems.push({ filterId: 'launchedBy', message: 'Expected a user ID (user-xxxx)' });
  }

  const created = values.created;
  if (created && !Array.isArray(created) && typeof created === 'object' && isActiveValue(created)) {
    const range = created as DateRange;
    if (range.after !== undefined && range.before !== undefined && range.after > range.before) {
      problems.push({ filterId: 'created', message: 'The start of the range is after its end' });
    } else {
      input.created = { ...(range.after !== undefined ? { after: range.after } : {}), ...(range.before !== undefined ? { before: range.before } : {}) };
    }
  }

  const tags = values.tags;
  if (Array.isArray(tags)) {
    const wanted = tags.filter((tag): tag is string => typeof tag === 'string' && tag.trim() !== '');
    if (wanted.length === 1) input.tags = wanted[0] as string;
    else if (wanted.length > 1) input.tags = { $and: wanted };
  }

  return { input, problems };
}

/** `YYYY-MM-DD` (a date input's value) → that local day, or undefined when empty or not a date. */
export function parseDay(value: string): { year: number; month: number; day: number } | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  if (date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day) return undefined;
  return { year, month, day };
}

/** Two date inputs (local days, both ends included) → a created range in milliseconds. */
export function dayRange(from: string, to: string): DateRange | undefined {
  const start = parseDay(from);
  const end = parseDay(to);
  if (!start && !end) return undefined;
  const range: DateRange = {};
  if (start) range.after = new Date(start.year, start.month - 1, start.day).getTime();
  if (end) range.before = new Date(end.year, end.month - 1, end.day, 23, 59, 59, 999).getTime();
  return range;
}

/** A range's end back to a date input's value. */
export function dayValue(timestamp: number | undefined): string {
  if (timestamp === undefined) return '';
  const date = new Date(timestamp);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}
