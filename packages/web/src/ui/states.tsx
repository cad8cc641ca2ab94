import { Alert, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { describeError } from './describe-error';

/** Loading placeholder: `rows` grey bars where the content will be. */
export function LoadingState({ rows = 3, label = 'Loading…' }: { rows?: number; label?: string }) {
  return (
    <Stack gap="xs" role="status" aria-live="polite" aria-label={label}>
      {Array.from({ length: rows }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <Skeleton key={index} height={28} radius="sm" />
      ))}
    </Stack>
  );
}

/** An error as a readable message, with a retry button when the caller can retry. */
export function ErrorState({ error, onRetry, title = 'Could not load this' }: { error: unknown; onRetry?: () => void; title?: string }) {
  return (
    <Alert color="red" title={title} role="alert" variant="light">
      <Stack gap="xs">
        <Text size="sm">{describeError(error)}</Text>
        {onRetry && (
          <Group>
            <Button size="xs" variant="default" onClick={onRetry}>
              Try again
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack gap={4} py="md" align="center" ta="center" data-empty-state>
      <Text fw={600}>{title}</Text>
      {children && (
        <Text size="sm" c="dimmed" maw={460}>
          {children}
        </Text>
      )}
    </Stack>
  );
}
