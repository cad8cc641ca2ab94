import { isApiError } from '@panx/client';
import { OTP_REQUIRED, type UserDescribe } from '@panx/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { api } from '../../lib/api';
import { sessionStore, useSession } from './session';

export const userKey = (userId: string | undefined) => ['user', userId ?? 'anonymous'] as const;

/** How the signed-in user's description is fetched (also prefetched at start-up, see main.tsx). */
export function currentUserQuery(userId: string | undefined) {
  return {
    queryKey: userKey(userId),
    queryFn: () => api().call('user-xxxx/describe', userId ?? '', {}) as Promise<UserDescribe>,
  };
}

/** The signed-in user's full description (profile, orgs, security level, session data). */
export function useCurrentUser() {
  const { session } = useSession();
  const userId = session?.userId;
  return useQuery({
    ...currentUserQuery(userId),
    enabled: userId !== undefined,
    throwOnError: false,
  });
}

export interface SignInInput {
  username: string;
  password: string;
  otp?: string;
}

/** The server asks for the second factor: InvalidAuthentication with reason OtpRequired (older servers: naming "otp"). */
export function needsOneTimeCode(error: unknown): boolean {
  if (!isApiError(error, 'InvalidAuthentication')) return false;
  const reason = (error.details as { reason?: unknown } | undefined)?.reason;
  if (reason !== undefined) return reason === OTP_REQUIRED;
  return /"otp"/.test(error.message);
}

export function useSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: SignInInput) =>
      api().call('system/newAuthToken', {
        username: input.username.trim(),
        password: input.password,
        ...(input.otp ? { otp: input.otp } : {}),
      }),
    onSuccess: (result) => {
      queryClient.clear();
      sessionStore.signIn({ token: result.access_token, userId: result.user_id, tokenId: result.token_id });
    },
  });
}

/** Logout (SPEC §4): started → the server revokes the token → succeeded, or failed (the browser forgets it anyway). */
export function useSignOut() {
  const queryClient = useQueryClient();
  return useCallback(async () => {
    if (!sessionStore.getSnapshot().session || sessionStore.getSnapshot().logout === 'started') return;
    sessionStore.logoutStarted();
    let ok = true;
    try {
      await api().call('system/destroyAuthToken', {});
    } catch (error) {
      // An already expired or revoked token is signed out all the same.
      ok = isApiError(error, 'InvalidAuthentication');
    }
    sessionStore.logoutFinished(ok);
    queryClient.clear();
  }, [queryClient]);
}
