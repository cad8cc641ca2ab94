import { EXECUTION_TREE_REFRESH_MS, EXECUTIONS_LIST_REFRESH_MS, type RouteInput } from '@panx/contract';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import { api } from '../../lib/api';
import { useSession } from '../auth/session';
import { notificationsKey } from '../notifications/hooks';
import { compareLaunchOrder, EXECUTION_LIST_FIELDS, type ExecutionRow, isActive, newlyEnded, stageOrderOf, toExecutionRow } from './execution-model';

type FindInput = RouteInput<'system/findExecutions'>;

/** Rows of the executions list at once (the list pages further with "Load more"). */
export const LIST_PAGE_SIZE = 200;
/** The details page's tree: pages of findExecutions until this many executions (then it says so). */
export const TREE_LIMIT = 10_000;

export const executionsKey = ['executions'] as const;

async function findRows(input: FindInput): Promise<{ rows: ExecutionRow[]; next: unknown }> {
  const page = await api().call('system/findExecutions', input);
  return { rows: page.results.map((result) => toExecutionRow(result.id, result.describe)), next: page.next ?? null };
}

/**
 * Tells the notification store at once when an execution the user launched ends while a monitor
 * page shows it (the server notified; the bell would otherwise wait for its 30 s poll).
 */
function useEndedExecutions(rows: readonly ExecutionRow[] | undefined) {
  const { session } = useSession();
  const queryClient = useQueryClient();
  const previous = useRef<readonly ExecutionRow[] | undefined>(undefined);
  useEffect(() => {
    if (!rows) return;
    if (newlyEnded(previous.current, rows, session?.userId).length) {
      void queryClient.invalidateQueries({ queryKey: notificationsKey(session?.userId) });
    }
    previous.current = rows;
  }, [rows, session?.userId, queryClient]);
}

/** The project's top-level executions matching the filters, refreshed every 15 s (SPEC §9), `pages` pages of them. */
export function useExecutionList(input: FindInput | undefined, pages: number) {
  const query = useQuery({
    queryKey: [...executionsKey, 'list', input, pages],
    enabled: input !== undefined,
    queryFn: async () => {
      const rows: ExecutionRow[] = [];
      let next: unknown = null;
      for (let page = 0; page < pages; page++) {
        const found = await findRows({ ...(input as FindInput), ...(next ? { starting: next } : {}) });
        rows.push(...found.rows);
        next = found.next;
        if (!next) break;
      }
      return { rows, more: next !== null };
    },
    refetchInterval: EXECUTIONS_LIST_REFRESH_MS,
    placeholderData: (previous) => previous,
    throwOnError: false,
  });
  useEndedExecutions(query.data?.rows);
  return query;
}

/** The running (not ended) top-level executions of the project: the count beside the list's title. */
export function useRunningCount(project: string) {
  return useQuery({
    queryKey: [...executionsKey, 'running', project],
    queryFn: async () => {
      const page = await api().call('system/findExecutions', {
        project,
        includeSubjobs: false,
        parentAnalysis: null,
        state: [
          'idle',
          'waiting_on_input',
          'runnable',
          'running',
          'in_progress',
          'partially_failed',
          'waiting_on_output',
          'terminating',
          'unresponsive',
          'debug_hold',
          'restartable',
        ],
        limit: 1000,
      });
      return { count: page.results.length, more: page.next !== null && page.next !== undefined };
    },
    refetchInterval: EXECUTIONS_LIST_REFRESH_MS,
    throwOnError: false,
  });
}

/** Children of expanded rows of the list: subjobs of a job, stages of an analysis (each refreshed with the list). */
export function useChildren(parents: readonly ExecutionRow[]) {
  return useQueries({
    queries: parents.map((parent) => ({
      queryKey: [...executionsKey, 'children', parent.id],
      queryFn: async () => {
        const { rows } = await findRows({
          ...(parent.executionClass === 'analysis' ? { parentAnalysis: parent.id } : { parentJob: parent.id }),
          describe: { fields: EXECUTION_LIST_FIELDS },
          limit: 1000,
        });
        // Children in the order they were launched (an analysis's stages in the workflow's order).
        const stageOrder =
          parent.executionClass === 'analysis' ? stageOrderOf(await api().call('analysis-xxxx/describe', parent.id, { fields: { workflow: true } })) : [];
        const rank = new Map(stageOrder.map((stage, index) => [stage, index]));
        return rows.sort((a, b) => compareLaunchOrder(a, b, rank));
      },
      refetchInterval: isActive(parent.state) ? EXECUTIONS_LIST_REFRESH_MS : false,
      throwOnError: false,
    })),
  });
}

/**
 * Which of these jobs have subjobs (so that the list offers a toggle only where there is a tree): pages
 * of findExecutions by parent job, each asking only about the jobs not yet known to have some (so a job
 * with thousands of subjobs cannot hide the others). Undefined while loading, or when five pages did not
 * settle it (then every job keeps its toggle).
 */
export function useJobsWithSubjobs(jobIds: readonly string[]) {
  return useQuery({
    queryKey: [...executionsKey, 'with-subjobs', jobIds],
    enabled: jobIds.length > 0,
    queryFn: async () => {
      const parents = new Set<string>();
      for (let round = 0; round < 5; round++) {
        const unknown = jobIds.filter((id) => !parents.has(id));
        if (!unknown.length) return parents;
        const page = await api().call('system/findExecutions', { parentJob: unknown, describe: { fields: { parentJob: true } }, limit: 1000 });
        for (const result of page.results) {
          const parent = toExecutionRow(result.id, result.describe).parentJob;
          if (parent) parents.add(parent);
        }
        if (page.next === null || page.next === undefined) return parents;
      }
      return undefined;
    },
    refetchInterval: EXECUTIONS_LIST_REFRESH_MS,
    placeholderData: (previous) => previous,
    throwOnError: false,
  });
}

/** One execution, described (a job's try when `tryNumber` is given), refreshed every 5 s while it has not ended. */
export function useExecution(id: string, tryNumber: number | undefined) {
  const query = useQuery({
    queryKey: [...executionsKey, 'describe', id, tryNumber ?? 'current'],
    queryFn: async (): Promise<Record<string, unknown>> => {
      if (id.startsWith('analysis-')) return (await api().call('analysis-xxxx/describe', id, {})) as Record<string, unknown>;
      return (await api().call('job-xxxx/describe', id, tryNumber === undefined ? {} : { try: tryNumber })) as Record<string, unknown>;
    },
    enabled: /^(job|analysis)-/.test(id),
    refetchInterval: (query) => {
      // A missing or forbidden execution is not asked about again and again.
      if (query.state.status === 'error' && query.state.data === undefined) return false;
      const state = query.state.data?.state;
      return typeof state === 'string' && !isActive(state) ? false : EXECUTION_TREE_REFRESH_MS;
    },
    throwOnError: false,
  });
  const rows = useMemo(() => (query.data && tryNumber === undefined ? [toExecutionRow(id, query.data)] : undefined), [query.data, id, tryNumber]);
  useEndedExecutions(rows);
  return query;
}

/** Every execution of a tree (from its root), paged, refreshed every 5 s (SPEC §9) while one of them runs. */
export function useExecutionTree(rootId: string | undefined) {
  const query = useQuery({
    queryKey: [...executionsKey, 'tree', rootId],
    enabled: rootId !== undefined,
    queryFn: async () => {
      const rows: ExecutionRow[] = [];
      let next: unknown = null;
      do {
        const found = await findRows({
          rootExecution: rootId as string,
          describe: { fields: EXECUTION_LIST_FIELDS },
          limit: 1000,
          ...(next ? { starting: next } : {}),
        });
        rows.push(...found.rows);
        next = found.next;
      } while (next && rows.length < TREE_LIMIT);
      // An analysis's stage jobs are created together: the workflow gives their order.
      const stageOrder = rootId?.startsWith('analysis-')
        ? stageOrderOf(await api().call('analysis-xxxx/describe', rootId, { fields: { workflow: true } }))
        : [];
      return { rows, truncated: next !== null && next !== undefined, stageOrder };
    },
    refetchInterval: (current) => (current.state.data?.rows.some((row) => isActive(row.state)) === false ? false : EXECUTION_TREE_REFRESH_MS),
    placeholderData: (previous) => previous,
    throwOnError: false,
  });
  useEndedExecutions(query.data?.rows);
  return query;
}

/** Terminates jobs and analyses one by one; answers which failed and why. */
export function useTerminate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ids: readonly string[]) => {
      const failures: { id: string; error: unknown }[] = [];
      for (const id of ids) {
        try {
          if (id.startsWith('analysis-')) await api().call('analysis-xxxx/terminate', id, {});
          else await api().call('job-xxxx/terminate', id, {});
        } catch (error) {
          failures.push({ id, error });
        }
      }
      return { terminated: ids.length - failures.length, failures };
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: executionsKey }),
  });
}

/**
 * Runs the analysis's workflow again with the same inputs, running `stages` again and reusing the
 * finished stage jobs whose inputs are the same (Smart Reuse: `rerunStages`). Answers the new analysis.
 */
export function useRerunStages() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (args: { analysis: Record<string, unknown>; stages: string[] }) => {
      const { analysis, stages } = args;
      const workflow = analysis.workflow as { id?: unknown; project?: unknown } | undefined;
      const workflowId = typeof workflow?.id === 'string' ? workflow.id : undefined;
      const project = typeof analysis.project === 'string' ? analysis.project : undefined;
      if (!workflowId || !project) throw new Error('This analysis does not say which workflow it ran or where');
      const runInput = (analysis.runInput ?? {}) as Record<string, unknown>;
      const stageFolders = analysis.stageFolders as Record<string, string> | undefined;
      return api().call('workflow-xxxx/run', workflowId, {
        project,
        input: runInput,
        ...(typeof analysis.folder === 'string' ? { folder: analysis.folder } : {}),
        ...(typeof analysis.name === 'string' ? { name: analysis.name } : {}),
        ...(stageFolders && Object.keys(stageFolders).length ? { stageFolders } : {}),
        ...(Array.isArray(analysis.tags) ? { tags: analysis.tags as string[] } : {}),
        rerunStages: stages,
      });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: executionsKey }),
  });
}
