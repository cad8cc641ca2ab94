import { Badge, Button, Card, Group, PasswordInput, Radio, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { UserDescribe } from '@panx/contract';
import { type FormEvent, useState } from 'react';
import { sessionTimeoutFor } from '../../app/config';
import { useRuntime } from '../../app/runtime';
import { SECURITY_LEVELS, type SecurityLevel } from '../../lib/constants';
import { formatDateTime, formatDuration } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { ItemCard } from '../../ui/ItemCard';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useNarrow } from '../../ui/use-narrow';
import { useSession } from '../auth/session';
import { TwoFactorSettings } from '../two-factor/TwoFactorSettings';
import { ApiTokens } from './ApiTokens';
import { ConfirmRevoke } from './ConfirmRevoke';
import { useChangePassword, useRevokeToken, useTokens, useUpdateUser } from './hooks';
import { checkSshPublicKey } from './regions';

/** Password, security level, two-factor status, API tokens, active sessions and the SSH key. */
export function AccountSecurity({ user }: { user: UserDescribe }) {
  return (
    <Stack gap="md">
      <PasswordSection username={user.handle ?? ''} />
      <SecurityLevelSection user={user} />
      <TwoFactorSettings account={user.handle ?? ''} />
      <ApiTokens />
      <SessionsSection />
      <SshKeySection user={user} />
    </Stack>
  );
}

function PasswordSection({ username }: { username: string }) {
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const tooShort = next.length > 0 && next.length < 8 ? 'Passwords are at least 8 characters' : undefined;
  const mismatch = confirm.length > 0 && confirm !== next ? 'The passwords do not match' : undefined;
  const valid = current.length > 0 && next.length >= 8 && confirm === next;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (valid) change.mutate({ current, next });
  };

  return (
    <Card withBorder padding="md" component="section" id="password" aria-labelledby="password-title">
      <form onSubmit={submit}>
        <Title order={2} size="h4" id="password-title">
          Password
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Changing the password signs out every session of your account, this one included.
        </Text>
        <Stack gap="sm" maw={420}>
          {/* For password managers: which account this password belongs to. */}
          <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
          <PasswordInput label="Current password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.currentTarget.value)} />
          <PasswordInput label="New password" autoComplete="new-password" value={next} error={tooShort} onChange={(e) => setNext(e.currentTarget.value)} />
          <PasswordInput
            label="Confirm new password"
            autoComplete="new-password"
            value={confirm}
            error={mismatch}
            onChange={(e) => setConfirm(e.currentTarget.value)}
          />
          {change.isError && (
            <Text c="red" size="sm" role="alert">
              {describeError(change.error)}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={change.isPending} disabled={!valid}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function SecurityLevelSection({ user }: { user: UserDescribe }) {
  const { config } = useRuntime();
  const update = useUpdateUser();
  const level = user.securityLevel ?? 'normal';
  const labels: Record<SecurityLevel, string> = { high: 'High', normal: 'Normal', low: 'Low' };
  return (
    <Card withBorder padding="md" component="section" id="securityLevel" aria-labelledby="level-title">
      <Title order={2} size="h4" id="level-title">
        Session security level
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        How long a web session lasts without activity. A new level applies from your next sign-in.
      </Text>
      <Radio.Group
        value={level}
        onChange={(value) =>
          update.mutate(
            { securityLevel: value as SecurityLevel },
            {
              onSuccess: () => notifications.show({ color: 'green', message: `Security level set to ${value}. It applies from your next sign-in.` }),
              onError: (error) => notifications.show({ color: 'red', title: 'Could not change the level', message: describeError(error) }),
            },
          )
        }
      >
        <Group gap="lg">
          {SECURITY_LEVELS.map((option) => (
            <Radio key={option} value={option} disabled={update.isPending} label={`${labels[option]}: ${formatDuration(sessionTimeoutFor(config, option))}`} />
          ))}
        </Group>
      </Radio.Group>
    </Card>
  );
}

function SessionsSection() {
  const { language } = useRuntime();
  const { session } = useSession();
  const sessions = useTokens('session');
  const revoke = useRevokeToken('session');
  const narrow = useNarrow();
  const [confirming, setConfirming] = useState<{ id: string; label: string } | null>(null);
  return (
    <Card withBorder padding="md" component="section" id="sessions" aria-labelledby="sessions-title">
      <Title order={2} size="h4" id="sessions-title" mb="sm">
        Active sessions
      </Title>
      {sessions.isPending ? (
        <LoadingState rows={2} label="Loading sessions" />
      ) : sessions.isError ? (
        <ErrorState error={sessions.error} onRetry={() => void sessions.refetch()} title="Could not load your sessions" />
      ) : sessions.data.length === 0 ? (
        <EmptyState title="No active sessions" />
      ) : narrow ? (
        <Stack gap="xs">
          {sessions.data.map((token) => (
            <ItemCard
              key={token.id}
              title={
                <>
                  {token.label}{' '}
                  {token.id === session?.tokenId && (
                    <Badge size="xs" variant="light">
                      This session
                    </Badge>
                  )}
                </>
              }
              action={
                token.id !== session?.tokenId && (
                  <Button size="xs" variant="subtle" color="red" onClick={() => setConfirming({ id: token.id, label: token.label })}>
                    Sign out
                  </Button>
                )
              }
              fields={[
                ['Signed in', formatDateTime(token.created, language)],
                ['Last used', formatDateTime(token.lastUsed, language)],
                ['Ends', formatDateTime(token.expires, language)],
              ]}
            />
          ))}
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing={6}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Session</Table.Th>
                <Table.Th>Signed in</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Ends</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {sessions.data.map((token) => (
                <Table.Tr key={token.id}>
                  <Table.Td>
                    {token.label}{' '}
                    {token.id === session?.tokenId && (
                      <Badge size="xs" variant="light">
                        This session
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{formatDateTime(token.created, language)}</Table.Td>
                  <Table.Td>{formatDateTime(token.lastUsed, language)}</Table.Td>
                  <Table.Td>{formatDateTime(token.expires, language)}</Table.Td>
                  <Table.Td ta="right">
                    {token.id !== session?.tokenId && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => setConfirming({ id: token.id, label: token.label })}>
                        Sign out
                      </Button>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <ConfirmRevoke
        target={confirming}
        title="Sign out this session?"
        action="Sign out"
        pending={revoke.isPending}
        error={revoke.error}
        onCancel={() => {
          setConfirming(null);
          revoke.reset();
        }}
        onConfirm={(id) => revoke.mutate(id, { onSuccess: () => setConfirming(null) })}
      >
        The browser or device using it will have to sign in again.
      </ConfirmRevoke>
    </Card>
  );
}

function SshKeySection({ user }: { user: UserDescribe }) {
  const update = useUpdateUser();
  const stored = typeof user.sshPublicKey === 'string' ? user.sshPublicKey : '';
  const [key, setKey] = useState(stored);
  const [touched, setTouched] = useState(false);
  const problem = key.trim() ? checkSshPublicKey(key) : undefined;

  const save = (value: string | null) =>
    update.mutate(
      { sshPublicKey: value },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: value ? 'SSH public key saved.' : 'SSH public key removed.' });
          if (!value) setKey('');
          setTouched(false);
        },
        onError: (error) => notifications.show({ color: 'red', title: 'Could not save the key', message: describeError(error) }),
      },
    );

  return (
    <Card withBorder padding="md" component="section" id="ssh" aria-labelledby="ssh-title">
      <Title order={2} size="h4" id="ssh-title">
        SSH public key
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Used to connect to workers and jobs over SSH. Paste the contents of your <code>.pub</code> file.
      </Text>
      <Textarea
        label="Public key"
        autosize
        minRows={2}
        maxRows={6}
        spellCheck={false}
        styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
        value={key}
        error={touched ? problem : undefined}
        onBlur={() => setTouched(true)}
        onChange={(e) => setKey(e.currentTarget.value)}
        placeholder="ssh-ed25519 AAAA… you@laptop"
      />
      <Group mt="sm">
        <Button loading={update.isPending} disabled={!key.trim() || problem !== undefined || key.trim() === stored} onClick={() => save(key.trim())}>
          Save key
        </Button>
        {stored && (
          <Button variant="subtle" color="red" disabled={update.isPending} onClick={() => save(null)}>
            Remove key
          </Button>
        )}
      </Group>
    </Card>
  );
}
