import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../lib/api';
import type { StepRequest } from './edits';
import { type ExecutableInfo, executableInfoOf, type WorkflowModel, workflowFromDescribe } from './model';

export const workflowKey = (id: string) => ['workflow', id] as const;

const WORKFLOW_FIELDS = { name: true, title: true, state: true, editVersion: true, stages: true, outputFolder: true, project: true, folder: true } as const;

export async function fetchWorkflow(id: string, project: string): Promise<WorkflowModel> {
  return workflowFromDescribe(await api().call('workflow-xxxx/describe', id, { project, fields: WORKFLOW_FIELDS }));
}

/** The workflow as the server has it now (the editor's base). */
export function useWorkflow(id: string, project: string) {
  return useQuery({ queryKey: workflowKey(id), queryFn: () => fetchWorkflow(id, project), throwOnError: false, refetchOnWindowFocus: false });
}

interface InfoQueryResult {
  data?: ExecutableInfo;
  isError: boolean;
  isPending: boolean;
}

/** One stable answer for all the describe queries (a module-level function, so TanStack Query keeps it while nothing changes). */
function combineInfos(results: InfoQueryResult[]): { infos: Map<string, ExecutableInfo>; failed: number; loading: boolean } {
  const infos = new Map<string, ExecutableInfo>();
  for (const result of results) if (result.data) infos.set(result.data.id, result.data);
  return { infos, failed: results.filter((result) => result.isError).length, loading: results.some((result) => result.isPending) };
}

/** The server's editVersion, checked every 15 s while the tab is visible, to say early that someone else edited. */
export function useLatestEditVersion(id: string, project: string, enabled: boolean) {
  return useQuery({
    queryKey: [...workflowKey(id), 'editVersion'],
    enabled,
    refetchInterval: 15_000,
    refetchIntervalInBackground: false,
    queryFn: async () => {
      const described = (await api().call('workflow-xxxx/describe', id, { project, fields: { editVersion: true } })) as { editVersion?: unknown };
      return typeof described.editVersion === 'number' ? described.editVersion : null;
    },
    throwOnError: false,
  });
}

/** What is known of each stage's executable (title, input and output specs), by executable ID. */
export function useExecutableInfos(executables: readonly string[], project: string) {
  const unique = useMemo(() => [...new Set(executables.filter(Boolean))].sort(), [executables]);
  return useQueries({
    queries: unique.map((id) => ({
      queryKey: ['executable', id, 'io'],
      staleTime: 60_000,
      queryFn: async () => {
        const fields = { fields: { name: true, title: true, inputSpec: true, outputSpec: true } };
        const described = id.startsWith('applet-')
          ? await api().call('applet-xxxx/describe', id, { ...fields, project })
          : await api().call('app-xxxx/describe', id, fields);
        return executableInfoOf(id, described);
      },
    })),
    combine: combineInfos,
  });
}

/** One step's API call; answers the new editVersion. */
export async function sendStep(workflowId: string, request: StepRequest): Promise<number> {
  switch (request.route) {
    case 'workflow-xxxx/addStage':
      return (await api().call('workflow-xxxx/addStage', workflowId, request.body)).editVersion;
    case 'workflow-xxxx/removeStage':
      return (await api().call('workflow-xxxx/removeStage', workflowId, request.body)).editVersion;
    case 'workflow-xxxx/moveStage':
      return (await api().call('workflow-xxxx/moveStage', workflowId, request.body)).editVersion;
    case 'workflow-xxxx/update':
      return (await api().call('workflow-xxxx/update', workflowId, request.body)).editVersion;
  }
}

/** A path `project:/folder/name` → the object's link (the first match), or an error naming it. */
export async function resolvePath(project: string, folder: string, name: string): Promise<{ $dnanexus_link: { project: string; id: string } }> {
  const { results } = await api().call('system/resolveDataObjects', { objects: [{ project, folder, name }] });
  const found = results[0]?.[0];
  if (!found) throw new Error(`No object named "${name}" in ${project}:${folder}`);
  return { $dnanexus_link: { project: found.project, id: found.id } };
}
