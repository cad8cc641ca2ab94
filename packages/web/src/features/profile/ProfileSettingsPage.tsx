import { Alert, Anchor, Stack, Tabs, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ErrorState, LoadingState } from '../../ui/states';
import { useCurrentUser } from '../auth/hooks';
import { useSession } from '../auth/session';
import { handleOf } from '../auth/session-store';
import { AccountSecurity } from './AccountSecurity';
import { Billing } from './Billing';
import { UserAccount } from './UserAccount';

type Tab = 'userAccount' | 'accountSecurity' | 'billing';

function tabOf(pathname: string): Tab {
  if (/\/settings\/accountSecurity(\/|$)/.test(pathname)) return 'accountSecurity';
  if (/\/settings\/billing(\/|$)/.test(pathname)) return 'billing';
  return 'userAccount';
}

/** `/panx/profile/{user}/settings/…`: user account, account security and billing of the signed-in user. */
export function ProfileSettingsPage() {
  const { pathname } = useLocation();
  const params = useParams();
  const navigate = useNavigate();
  const { session } = useSession();
  const user = useCurrentUser();
  const handle = session ? handleOf(session.userId) : '';
  const tab = tabOf(pathname);
  const anchor = params.fragment ?? params.section;
  const base = `/panx/profile/${encodeURIComponent(handle)}/settings`;

  // /accountSecurity/{fragment} and /userAccount/{section}: scroll to that part of the page.
  useEffect(() => {
    if (!anchor || !user.data) return;
    document.getElementById(anchor)?.scrollIntoView({ block: 'start' });
  }, [anchor, user.data]);

  if (params.user !== handle) {
    return (
      <Alert color="yellow" title="Not your account" maw={640} mx="auto">
        <Text size="sm">
          These are the settings of <strong>{params.user}</strong>. You can only see and change your own settings.{' '}
          <Anchor component={Link} to={`${base}/${tab}`}>
            Go to your settings
          </Anchor>
          .
        </Text>
      </Alert>
    );
  }

  return (
    <Stack gap="md">
      <Title order={1} size="h2">
        Settings
      </Title>
      <Tabs value={tab} onChange={(value) => value && navigate(`${base}/${value}`)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="userAccount">User account</Tabs.Tab>
          <Tabs.Tab value="accountSecurity">Account security</Tabs.Tab>
          <Tabs.Tab value="billing">Billing</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value={tab} pt="md">
          {user.isPending ? (
            <LoadingState rows={6} label="Loading your account" />
          ) : user.isError ? (
            <ErrorState error={user.error} onRetry={() => void user.refetch()} title="Could not load your account" />
          ) : tab === 'accountSecurity' ? (
            <AccountSecurity user={user.data} />
          ) : tab === 'billing' ? (
            <Billing user={user.data} />
          ) : (
            <UserAccount user={user.data} />
          )}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
