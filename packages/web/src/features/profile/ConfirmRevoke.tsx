import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { describeError } from '../../ui/describe-error';

/** Confirmation before revoking a token or signing out a session. */
export function ConfirmRevoke({
  target,
  title,
  action,
  pending,
  error,
  onCancel,
  onConfirm,
  children,
}: {
  target: { id: string; label: string } | null;
  title: string;
  action: string;
  pending: boolean;
  error: unknown;
  onCancel: () => void;
  onConfirm: (id: string) => void;
  children: ReactNode;
}) {
  return (
    <Modal opened={target !== null} onClose={onCancel} title={title} centered>
      <Stack>
        <Text size="sm">
          <strong>{target?.label}</strong>
        </Text>
        <Text size="sm">{children}</Text>
        {error !== null && error !== undefined && (
          <Text c="red" size="sm" role="alert">
            {describeError(error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button color="red" loading={pending} onClick={() => target && onConfirm(target.id)}>
            {action}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
