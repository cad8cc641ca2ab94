import { Alert, Anchor, Button, Paper, Stack, Text, Title } from '@mantine/core';
import { ErrorState, LoadingState } from '../../ui/states';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { loginPath, safeReturnTo } from '../../app/route-rules';
import { sessionStore, useSession } from '../auth/session';
import { handleOf } from '../auth/session-store';
import { EnrolmentSteps, type IssuedSession } from './EnrolmentSteps';
import { clearPendingEnrolment, describeRequirement, loadPendingEnrolment } from './enrolment';
import { useTwoFactorStatus } from './hooks';
import { tabStorage } from './storage';

/**
 * `/panx/setup/2fa` (SPEC §2): two-factor set-up for a user who cannot sign in yet because an org policy
 * or their account requires it. The refused sign-in left an enrolment-only token in this tab's storage;
 * confirming the first code signs the user in.
 */
export function SetupTwoFactorPage() {
  const { session } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const returnTo = safeReturnTo(params.get('returnTo'));
  const [pending] = useState(() => loadPendingEnrolment(tabStorage(), Date.now()));
  const [confirmed, setConfirmed] = useState(false);

  const finish = (issued: IssuedSession | undefined) => {
    clearPendingEnrolment(tabStorage());
    if (issued) {
      queryClient.clear();
      sessionStore.signIn({ token: issued.access_token, userId: issued.user_id, tokenId: issued.token_id });
      navigate(returnTo, { replace: true });
    } else {
      navigate(loginPath(returnTo), { replace: true });
    }
  };

  return (
    <Paper withBorder shadow="sm" p={{ base: 'md', sm: 'xl' }} radius="md" maw={640} mx="auto" mt={{ base: 0, sm: 'lg' }}>
      <Stack gap="md">
        <div>
          <Title order={1} size="h2">
            Set up two-factor authentication
          </Title>
          <Text c="dimmed" size="sm">
            A code from an app on your phone, on top of your password, each time you sign in.
          </Text>
        </div>
        {pending ? (
          <>
            {!confirmed && (
              <Alert color="blue" variant="light" title={`Required for ${pending.username}`}>
                Two-factor authentication is required by {describeRequirement(pending.requiredBy)}. Set it up now to finish signing in.
              </Alert>
            )}
            <EnrolmentSteps enrolmentToken={pending.token} finishLabel="Continue to Panx" onFinished={finish} onConfirmed={() => setConfirmed(true)} />
            {!confirmed && (
              <Anchor component={Link} to={loginPath(returnTo)} size="sm" onClick={() => clearPendingEnrolment(tabStorage())}>
                Cancel and go back to sign-in
              </Anchor>
            )}
          </>
        ) : session ? (
          <SignedInSetup returnTo={returnTo} settings={`/panx/profile/${encodeURIComponent(handleOf(session.userId))}/settings/accountSecurity/twoFactor`} />
        ) : (
          <>
            <Text size="sm">
              This page continues a sign-in that asked for two-factor set-up. That request is not here any more (it lasts 15 minutes, in this browser tab only):
              sign in again to start over.
            </Text>
            <div>
              <Button component={Link} to={loginPath(returnTo)}>
                Sign in
              </Button>
            </div>
          </>
        )}
      </Stack>
    </Paper>
  );
}

/** A signed-in user on this page: set up with the session, or told it is already on. */
function SignedInSetup({ returnTo, settings }: { returnTo: string; settings: string }) {
  const status = useTwoFactorStatus();
  const navigate = useNavigate();
  if (status.isPending) return <LoadingState rows={2} label="Loading two-factor status" />;
  if (status.isError) return <ErrorState error={status.error} onRetry={() => void status.refetch()} title="Could not load the two-factor status" />;
  if (status.data.enabled) {
    return (
      <Stack gap="xs">
        <Alert color="green" variant="light" title="Two-factor authentication is on">
          Your account already asks for a code from your authenticator app when you sign in.
        </Alert>
        <Anchor component={Link} to={settings} size="sm">
          Manage it in your account security settings
        </Anchor>
      </Stack>
    );
  }
  return <EnrolmentSteps finishLabel="Continue" onFinished={() => navigate(returnTo, { replace: true })} />;
}
