import { Alert, Badge, Button, Card, Group, Modal, PasswordInput, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { describeError } from '../../ui/describe-error';
import { ErrorState, LoadingState } from '../../ui/states';
import { BackupCodes } from './BackupCodes';
import { EnrolmentSteps } from './EnrolmentSteps';
import { cleanSecondFactorInput, cleanTotpInput, describeRequirement, isCompleteSecondFactor } from './enrolment';
import { useDisableTwoFactor, useNewBackupCodes, useTwoFactorStatus } from './hooks';

/** Account security: two-factor authentication on or off, its backup codes, and what requires it. */
export function TwoFactorSettings({ account }: { account: string }) {
  const status = useTwoFactorStatus();
  const [dialog, setDialog] = useState<'enrol' | 'disable' | 'codes' | null>(null);
  const close = () => setDialog(null);
  const enabled = status.data?.enabled === true;

  return (
    <Card withBorder padding="md" component="section" id="twoFactor" aria-labelledby="tfa-title">
      <Group gap="xs">
        <Title order={2} size="h4" id="tfa-title">
          Two-factor authentication
        </Title>
        {status.data && (
          <Badge color={enabled ? 'green' : 'gray'} variant="light">
            {enabled ? 'On' : 'Off'}
          </Badge>
        )}
      </Group>
      {status.isPending ? (
        <LoadingState rows={1} label="Loading two-factor status" />
      ) : status.isError ? (
        <ErrorState error={status.error} onRetry={() => void status.refetch()} title="Could not load the two-factor status" />
      ) : (
        <Stack gap="sm" mt={4}>
          {status.data.required && !enabled && (
            <Alert color="yellow" variant="light" title="Required">
              Two-factor authentication is required by {describeRequirement(status.data.requiredBy)}: turn it on now, or your next sign-in will ask you to.
            </Alert>
          )}
          <Text size="sm" c="dimmed">
            {enabled
              ? `Signing in asks for a code from your authenticator app. Backup codes left: ${status.data.backupCodesLeft} of 10.`
              : 'Add a code from an authenticator app on your phone to your password when you sign in.'}
          </Text>
          {enabled && status.data.backupCodesLeft <= 3 && (
            <Text size="sm" c="orange.8">
              Few backup codes are left: make new ones.
            </Text>
          )}
          {enabled && status.data.required && (
            <Text size="sm" c="dimmed">
              Required by {describeRequirement(status.data.requiredBy)}: it cannot be turned off.
            </Text>
          )}
          <Group gap="xs">
            {!enabled && <Button onClick={() => setDialog('enrol')}>Turn on</Button>}
            {enabled && (
              <Button variant="default" onClick={() => setDialog('codes')}>
                New backup codes
              </Button>
            )}
            {enabled && !status.data.required && (
              <Button variant="light" color="red" onClick={() => setDialog('disable')}>
                Turn off
              </Button>
            )}
          </Group>
        </Stack>
      )}

      <Modal opened={dialog === 'enrol'} onClose={close} title="Set up two-factor authentication" size="lg" closeOnClickOutside={false}>
        {dialog === 'enrol' && <EnrolmentSteps finishLabel="Done" onFinished={close} />}
      </Modal>
      <Modal opened={dialog === 'disable'} onClose={close} title="Turn off two-factor authentication?">
        {dialog === 'disable' && <DisableForm onDone={close} />}
      </Modal>
      <Modal opened={dialog === 'codes'} onClose={close} title="New backup codes" closeOnClickOutside={false}>
        {dialog === 'codes' && <NewCodesForm account={account} onDone={close} />}
      </Modal>
    </Card>
  );
}

function DisableForm({ onDone }: { onDone: () => void }) {
  const disable = useDisableTwoFactor();
  const [with_, setWith] = useState<'code' | 'backup' | 'password'>('code');
  const [value, setValue] = useState('');
  const valid = with_ === 'password' ? value.length > 0 : isCompleteSecondFactor(value, with_ === 'backup');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    disable.mutate(with_ === 'password' ? { password: value } : { code: value }, {
      onSuccess: () => {
        notifications.show({ color: 'green', title: 'Two-factor authentication is off', message: 'Signing in asks for your password only.' });
        onDone();
      },
    });
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="sm">
        <Text size="sm">Signing in will ask for your password only. Confirm it is you:</Text>
        <SegmentedControl
          value={with_}
          onChange={(next) => {
            setWith(next as typeof with_);
            setValue('');
            disable.reset();
          }}
          data={[
            { value: 'code', label: 'App code' },
            { value: 'backup', label: 'Backup code' },
            { value: 'password', label: 'Password' },
          ]}
        />
        {with_ === 'password' ? (
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            data-autofocus
          />
        ) : (
          <TextInput
            label={with_ === 'code' ? 'Code from the app' : 'Backup code'}
            autoComplete="one-time-code"
            inputMode={with_ === 'code' ? 'numeric' : 'text'}
            value={value}
            onChange={(event) => setValue(cleanSecondFactorInput(event.currentTarget.value, with_ === 'backup'))}
            data-autofocus
          />
        )}
        {disable.isError && (
          <Text size="sm" c="red" role="alert">
            {describeError(disable.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" color="red" loading={disable.isPending} disabled={!valid}>
            Turn off
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function NewCodesForm({ account, onDone }: { account: string; onDone: () => void }) {
  const renew = useNewBackupCodes();
  const [code, setCode] = useState('');
  if (renew.data) {
    return (
      <Stack gap="sm">
        <BackupCodes codes={renew.data.backupCodes} account={account} />
        <Group justify="flex-end">
          <Button onClick={onDone}>Done</Button>
        </Group>
      </Stack>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (code.length === 6) renew.mutate(code);
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="sm">
        <Text size="sm">New codes replace the old ones, which stop working. Enter a code from your authenticator app:</Text>
        <TextInput
          label="Code from the app"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={code}
          onChange={(event) => setCode(cleanTotpInput(event.currentTarget.value))}
          data-autofocus
        />
        {renew.isError && (
          <Text size="sm" c="red" role="alert">
            {describeError(renew.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={renew.isPending} disabled={code.length !== 6}>
            Make new codes
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
