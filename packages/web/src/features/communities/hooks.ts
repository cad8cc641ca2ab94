import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';

export const communityKey = (id: string) => ['community', id] as const;

/** A community and its branding (`panx`, an org handle or an org id). */
export function useCommunity(id: string | undefined) {
  return useQuery({
    queryKey: communityKey(id ?? ''),
    queryFn: () => api().call('system/describeCommunity', { id: id ?? '' }),
    enabled: Boolean(id),
    throwOnError: false,
  });
}
