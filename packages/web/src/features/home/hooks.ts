import { EXECUTIONS_LIST_REFRESH_MS } from '@panx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { userKey } from '../auth/hooks';
import { useSession } from '../auth/session';
import { api } from '../../lib/api';
import { ACTIVE_EXECUTION_STATES, toExecutionSummary } from './executions';
import { toggleFavoriteProject, toProjectSummary } from './home-lists';

export const projectsKey = ['projects', 'visible'] as const;

/** Every project the user can see, described (name, dates, region, billing). */
export function useVisibleProjects() {
  return useQuery({
    queryKey: projectsKey,
    queryFn: async () => {
      const page = await api().call('system/findProjects', {
        describe: { fields: { name: true, modified: true, created: true, region: true, billTo: true } },
        limit: 1000,
      });
      return page.results.map(toProjectSummary);
    },
    throwOnError: false,
  });
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api().call('project/new', { name: name.trim() }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: projectsKey }),
  });
}

/** Stars or unstars a project in `sessionData.favorites` (stored through the API). */
export function useToggleFavorite(sessionData: unknown) {
  const queryClient = useQueryClient();
  const { session } = useSession();
  return useMutation({
    mutationFn: (projectId: string) =>
      api().call('user-xxxx/update', session?.userId ?? '', { sessionData: { favorites: toggleFavoriteProject(sessionData, projectId) } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKey(session?.userId) }),
  });
}

/** The user's root executions that have not ended, newest first (refreshed every 15 s, SPEC §9). */
export function useRunningExecutions(limit: number) {
  const { session } = useSession();
  return useQuery({
    queryKey: ['executions', 'running', session?.userId ?? 'anonymous', limit],
    queryFn: async () => {
      const page = await api().call('system/findExecutions', {
        launchedBy: session?.userId ?? '',
        state: [...ACTIVE_EXECUTION_STATES],
        includeSubjobs: false,
        describe: { fields: { name: true, state: true, project: true, created: true } },
        limit,
      });
      return page.results.map(toExecutionSummary);
    },
    enabled: session !== null,
    refetchInterval: EXECUTIONS_LIST_REFRESH_MS,
    throwOnError: false,
  });
}
