import { PanxApiError } from '@panx/client';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from './query-client';

describe('createQueryClient (SPEC §7 defaults)', () => {
  it('does not refetch on window focus and does not retry', () => {
    const defaults = createQueryClient(() => {}).getDefaultOptions();
    expect(defaults.queries?.refetchOnWindowFocus).toBe(false);
    expect(defaults.queries?.retry).toBe(false);
    expect(defaults.mutations?.retry).toBe(false);
  });

  it('throws to the error boundary only when nothing is cached, and never for an expired session', () => {
    const throwOnError = createQueryClient(() => {}).getDefaultOptions().queries?.throwOnError;
    if (typeof throwOnError !== 'function') throw new Error('expected a function');
    const query = (data: unknown) => ({ state: { data } }) as Parameters<typeof throwOnError>[1];
    const failure = new PanxApiError('ResourceNotFound', 'gone', 404);
    const expired = new PanxApiError('InvalidAuthentication', 'expired', 401);
    expect(throwOnError(failure, query(undefined))).toBe(true);
    expect(throwOnError(failure, query({ cached: true }))).toBe(false);
    expect(throwOnError(expired, query(undefined))).toBe(false);
  });

  it('reports authentication failures of queries and mutations', async () => {
    const onAuthFailure = vi.fn();
    const client = createQueryClient(onAuthFailure);
    const expired = new PanxApiError('InvalidAuthentication', 'expired', 401);
    await client
      .fetchQuery({
        queryKey: ['x'],
        queryFn: async () => {
          throw expired;
        },
      })
      .catch(() => {});
    await client
      .fetchQuery({
        queryKey: ['y'],
        queryFn: async () => {
          throw new PanxApiError('PermissionDenied', 'no', 403);
        },
      })
      .catch(() => {});
    expect(onAuthFailure).toHaveBeenCalledTimes(1);
    expect(onAuthFailure).toHaveBeenCalledWith(expired);
  });
});
