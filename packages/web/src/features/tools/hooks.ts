import { FIND_LIMIT_MAX } from '@panx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { userKey } from '../auth/hooks';
import { useSession } from '../auth/session';
import { appsToTools, dataObjectsToTools, type Tool, toggleFavouriteTool } from './tool-catalog';

export const toolCatalogKey = ['tools', 'catalog'] as const;

/** At most this many of each kind are listed (pages of FIND_LIMIT_MAX). */
const MAX_ROWS = 10_000;

const APP_FIELDS = { name: true, version: true, title: true, summary: true, categories: true, aliases: true, created: true, modified: true, published: true };
const OBJECT_FIELDS = { class: true, name: true, title: true, summary: true, categories: true, project: true, folder: true, created: true, modified: true };

async function allPages<R>(fetchPage: (starting: unknown) => Promise<{ results: R[]; next?: unknown }>): Promise<R[]> {
  const rows: R[] = [];
  let starting: unknown;
  do {
    const page = await fetchPage(starting);
    rows.push(...page.results);
    starting = page.next ?? undefined;
  } while (starting !== undefined && rows.length < MAX_ROWS);
  return rows;
}

/** Every tool the user can run: apps (every visible version), applets and workflows in the projects the user can see. */
export async function fetchToolCatalog(): Promise<Tool[]> {
  const [apps, applets, workflows] = await Promise.all([
    allPages((starting) =>
      api().call('system/findApps', {
        allVersions: true,
        describe: { fields: APP_FIELDS },
        limit: FIND_LIMIT_MAX,
        ...(starting !== undefined ? { starting } : {}),
      }),
    ),
    allPages((starting) =>
      api().call('system/findDataObjects', {
        class: 'applet',
        visibility: 'visible',
        describe: { fields: OBJECT_FIELDS },
        limit: FIND_LIMIT_MAX,
        ...(starting !== undefined ? { starting } : {}),
      }),
    ),
    allPages((starting) =>
      api().call('system/findDataObjects', {
        class: 'workflow',
        visibility: 'visible',
        describe: { fields: OBJECT_FIELDS },
        limit: FIND_LIMIT_MAX,
        ...(starting !== undefined ? { starting } : {}),
      }),
    ),
  ]);
  return [...appsToTools(apps), ...dataObjectsToTools([...applets, ...workflows])];
}

/** The tool catalogue (apps, applets, workflows), shared by the library and every tool selector. */
export function useToolCatalog(options: { enabled?: boolean } = {}) {
  return useQuery({ queryKey: toolCatalogKey, queryFn: fetchToolCatalog, enabled: options.enabled ?? true, staleTime: 30_000, throwOnError: false });
}

/** A project's `allowedExecutables` (null: no restriction). Disabled without a project. */
export function useAllowedExecutables(project: string | undefined) {
  return useQuery({
    queryKey: ['project', project ?? '', 'allowedExecutables'],
    enabled: project !== undefined && project !== '',
    queryFn: async () => {
      const described = (await api().call('project-xxxx/describe', project ?? '', { fields: { allowedExecutables: true } })) as {
        allowedExecutables?: unknown;
      };
      const list = described.allowedExecutables;
      return Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : null;
    },
    throwOnError: false,
  });
}

/** Stars or unstars a tool in `sessionData.favorites.tools` (stored through the API, so it follows the user). */
export function useToggleToolFavourite(sessionData: unknown) {
  const queryClient = useQueryClient();
  const { session } = useSession();
  return useMutation({
    mutationFn: (key: string) => api().call('user-xxxx/update', session?.userId ?? '', { sessionData: { favorites: toggleFavouriteTool(sessionData, key) } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKey(session?.userId) }),
  });
}

/** A project's name (the id until it is known, or when it cannot be described). */
export function useProjectName(project: string | undefined) {
  return useQuery({
    queryKey: ['project', project ?? '', 'name'],
    enabled: project !== undefined && project !== '',
    queryFn: async () => ((await api().call('project-xxxx/describe', project ?? '', { fields: { name: true } })) as { name?: string }).name ?? project ?? '',
    throwOnError: false,
  });
}
