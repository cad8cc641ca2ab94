import { isApiError } from '@panx/client';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { DEFAULT_STALE_TIME_MS } from '../lib/constants';

/** The token is missing, expired or revoked: the caller must sign in again. */
export function isAuthFailure(error: unknown): boolean {
  return isApiError(error, 'InvalidAuthentication') || (isApiError(error) && error.status === 401);
}

/**
 * SPEC §7 data-fetching defaults: no refetch on window focus, no retry, and errors thrown to the nearest
 * error boundary only when nothing is cached (pages with data keep showing it). Authentication failures
 * are never thrown: `onAuthFailure` ends the session and the shell sends the user to sign in.
 */
export function createQueryClient(onAuthFailure: (error: unknown) => void): QueryClient {
  const onError = (error: unknown) => {
    if (isAuthFailure(error)) onAuthFailure(error);
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        refetchOnWindowFocus: false,
        retry: false,
        staleTime: DEFAULT_STALE_TIME_MS,
        throwOnError: (error, query) => query.state.data === undefined && !isAuthFailure(error),
      },
      mutations: { retry: false },
    },
  });
}
