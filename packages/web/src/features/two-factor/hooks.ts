import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { userKey } from '../auth/hooks';
import { useSession } from '../auth/session';

export const twoFactorKey = (userId: string | undefined) => ['twoFactor', userId ?? 'anonymous'] as const;

/** The signed-in user's two-factor status (on, pending, required by, backup codes left). */
export function useTwoFactorStatus() {
  const { session } = useSession();
  return useQuery({
    queryKey: twoFactorKey(session?.userId),
    queryFn: () => api().call('system/describeTwoFactor', {}),
    enabled: session !== null,
    throwOnError: false,
  });
}

/** After a change: the status and the user's `otpEnabled` are read again. */
function useRefreshTwoFactor() {
  const queryClient = useQueryClient();
  const { session } = useSession();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: twoFactorKey(session?.userId) }),
      queryClient.invalidateQueries({ queryKey: userKey(session?.userId) }),
    ]);
}

export function useStartEnrolment(enrolmentToken: string | undefined) {
  return useMutation({
    mutationFn: () => api().call('system/startTwoFactorEnrolment', enrolmentToken ? { enrolmentToken } : {}),
  });
}

export function useConfirmEnrolment(enrolmentToken: string | undefined) {
  const refresh = useRefreshTwoFactor();
  return useMutation({
    mutationFn: (code: string) => api().call('system/confirmTwoFactorEnrolment', { code, ...(enrolmentToken ? { enrolmentToken } : {}) }),
    onSuccess: () => (enrolmentToken ? undefined : refresh()),
  });
}

export function useDisableTwoFactor() {
  const refresh = useRefreshTwoFactor();
  return useMutation({
    mutationFn: (proof: { code: string } | { password: string }) => api().call('system/disableTwoFactor', proof),
    onSuccess: () => refresh(),
  });
}

export function useNewBackupCodes() {
  const refresh = useRefreshTwoFactor();
  return useMutation({
    mutationFn: (code: string) => api().call('system/newTwoFactorBackupCodes', { code }),
    onSuccess: () => refresh(),
  });
}
