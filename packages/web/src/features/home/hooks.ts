import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { userKey } from '../auth/hooks';
import { useSession } from '../auth/session';
import { api } from '../../lib/api';
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
