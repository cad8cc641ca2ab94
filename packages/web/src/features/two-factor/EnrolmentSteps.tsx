import { Alert, Button, Checkbox, Code, Group, Loader, Stack, Text, TextInput } from '@mantine/core';
import type { RouteOutput } from '@panx/contract';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { describeError } from '../../ui/describe-error';
import { BackupCodes } from './BackupCodes';
import { cleanTotpInput, groupSecret } from './enrolment';
import { useConfirmEnrolment, useStartEnrolment } from './hooks';
import { QrCode } from './QrCode';

export type IssuedSession = NonNullable<RouteOutput<'system/confirmTwoFactorEnrolment'>['session']>;

/**
 * Enrolment of an authenticator app: scan the QR code (or type the key), confirm with the first code,
 * then save the backup codes, shown once. With `enrolmentToken` it serves a user who cannot sign in yet,
 * and `onFinished` receives their new session.
 */
export function EnrolmentSteps({
  enrolmentToken,
  finishLabel,
  onFinished,
  onConfirmed,
}: {
  enrolmentToken?: string;
  finishLabel: string;
  onFinished: (session: IssuedSession | undefined) => void;
  /** Two-factor is on (the backup codes are being shown). */
  onConfirmed?: () => void;
}) {
  const start = useStartEnrolment(enrolmentToken);
  const confirm = useConfirmEnrolment(enrolmentToken);
  const [code, setCode] = useState('');
  const [saved, setSaved] = useState(false);
  const started = useRef(false);
  const startMutate = start.mutate;

  // One secret per visit (StrictMode runs effects twice in development; a second secret would replace the first).
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    startMutate();
  }, [startMutate]);

  if (confirm.data) {
    const account = start.data?.account ?? '';
    return (
      <Stack gap="md">
        <Alert color="green" variant="light" title="Two-factor authentication is on">
          From now on, signing in asks for a code from your authenticator app.
        </Alert>
        <BackupCodes codes={confirm.data.backupCodes} account={account} />
        <Checkbox label="I have saved my backup codes" checked={saved} onChange={(event) => setSaved(event.currentTarget.checked)} />
        <Group>
          <Button disabled={!saved} onClick={() => onFinished(confirm.data.session)}>
            {finishLabel}
          </Button>
        </Group>
      </Stack>
    );
  }

  if (start.isPending || start.isIdle) {
    return (
      <Group gap="xs" role="status">
        <Loader size="sm" /> <Text size="sm">Preparing a new key…</Text>
      </Group>
    );
  }
  if (start.isError) {
    return (
      <Alert color="red" variant="light" title="Could not start the set-up" role="alert">
        <Stack gap="xs">
          <Text size="sm">{describeError(start.error)}</Text>
          <Group>
            <Button size="xs" variant="default" onClick={() => start.mutate()}>
              Try again
            </Button>
          </Group>
        </Stack>
      </Alert>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (code.length === 6) confirm.mutate(code, { onSuccess: () => onConfirmed?.() });
  };

  return (
    <form onSubmit={submit} aria-label="Set up two-factor authentication">
      <Stack gap="md">
        <Text size="sm">
          <strong>1.</strong> Scan this QR code with an authenticator app (FreeOTP, Aegis, Google Authenticator, 1Password…).
        </Text>
        <Group align="flex-start" gap="lg">
          <QrCode text={start.data.otpauthUri} label={`QR code for ${start.data.issuer}: ${start.data.account}`} />
          <Stack gap={4} maw={300}>
            <Text size="sm" c="dimmed">
              Cannot scan it? Add an account by hand with this key (time-based, 6 digits):
            </Text>
            <Code block data-testid="otp-secret" style={{ wordBreak: 'break-all' }}>
              {groupSecret(start.data.secret)}
            </Code>
            <Text size="xs" c="dimmed">
              Account: {start.data.account} · Issuer: {start.data.issuer}
            </Text>
          </Stack>
        </Group>
        <Text size="sm">
          <strong>2.</strong> Enter the 6-digit code the app shows.
        </Text>
        <TextInput
          label="Code from the app"
          name="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          placeholder="123456"
          maxLength={7}
          w={220}
          value={code}
          onChange={(event) => setCode(cleanTotpInput(event.currentTarget.value))}
          error={confirm.isError ? describeError(confirm.error) : undefined}
        />
        <Group>
          <Button type="submit" loading={confirm.isPending} disabled={code.length !== 6}>
            Verify and turn on
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
