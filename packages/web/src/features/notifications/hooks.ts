import { NOTIFICATIONS_LIMIT, NOTIFICATIONS_POLL_MS, type RouteOutput } from '@panx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { useSession } from '../auth/session';
import { markedRead, newlyShared } from './notification-rules';

type NotificationsPage = RouteOutput<'notifications/get'>;

export const notificationsKey = (userId: string | undefined) => ['notifications', userId ?? 'anonymous'] as const;

/**
 * The signed-in user's latest notifications (SPEC §9: at most 25, polled every 30 s while the tab is
 * visible). The bell and the home page share this one query, so they poll once.
 */
export function useNotifications() {
  const { session } = useSession();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: notificationsKey(session?.userId),
    queryFn: async () => {
      const before = queryClient.getQueryData<NotificationsPage>(notificationsKey(session?.userId));
      const page = await api().call('notifications/get', { limit: NOTIFICATIONS_LIMIT });
      // A project newly shared with the user belongs in the project lists now.
      if (before && newlyShared(before, page)) void queryClient.invalidateQueries({ queryKey: ['projects'] });
      return page;
    },
    enabled: session !== null,
    refetchInterval: NOTIFICATIONS_POLL_MS,
    staleTime: 5_000,
    throwOnError: false,
  });
}

/** Marks some notifications read (`ids`) or all of them (`'all'`: those shown, by their newest time). */
export function useMarkRead() {
  const queryClient = useQueryClient();
  const { session } = useSession();
  const key = notificationsKey(session?.userId);
  return useMutation({
    mutationFn: async (ids: string[] | 'all') => {
      const shown = queryClient.getQueryData<NotificationsPage>(key);
      const newest = shown?.notifications[0]?.created;
      const result = await api().call('notifications/markRead', ids === 'all' ? { all: true, ...(newest === undefined ? {} : { before: newest }) } : { ids });
      return { ids, unreadCount: result.unreadCount };
    },
    onSuccess: ({ ids, unreadCount }) => {
      queryClient.setQueryData<NotificationsPage>(key, (data) => (data ? markedRead(data, ids, unreadCount) : data));
    },
  });
}
