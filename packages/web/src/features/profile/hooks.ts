import type { UserDescribe } from '@panx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { userKey } from '../auth/hooks';
import { sessionStore, useSession } from '../auth/session';
import type { TokenScope } from './token-scope';

export type TokenKind = 'api' | 'session';
export const tokensKey = (kind: TokenKind) => ['tokens', kind] as const;

export function useTokens(kind: TokenKind) {
  return useQuery({
    queryKey: tokensKey(kind),
    queryFn: async () => (await api().call('system/findAuthTokens', { kind })).results,
    throwOnError: false,
  });
}

export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: { label: string; expires: number | undefined; scope: TokenScope | undefined }) =>
      api().call('system/newAuthToken', {
        label: input.label.trim(),
        ...(input.expires !== undefined ? { expires: input.expires } : {}),
        ...(input.scope ? { scope: input.scope } : {}),
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey('api') }),
  });
}

export function useRevokeToken(kind: TokenKind) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: string) => api().call('system/destroyAuthToken', { tokenId }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey(kind) }),
  });
}

/** Profile, security level, SSH key or session data of the signed-in user. */
export function useUpdateUser() {
  const queryClient = useQueryClient();
  const { session } = useSession();
  return useMutation({
    mutationFn: (input: {
      first?: string;
      middle?: string;
      last?: string;
      email?: string;
      securityLevel?: UserDescribe['securityLevel'];
      sshPublicKey?: string | null;
      sessionData?: Record<string, unknown>;
    }) => api().call('user-xxxx/update', session?.userId ?? '', input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userKey(session?.userId) }),
  });
}

/** The server signs out every session of the account after a password change: so does this page. */
export function useChangePassword() {
  const { session } = useSession();
  return useMutation({
    mutationFn: (input: { current: string; next: string }) =>
      api().call('user-xxxx/update', session?.userId ?? '', { password: { current: input.current, new: input.next } }),
    onSuccess: () => sessionStore.end('password-changed'),
  });
}
