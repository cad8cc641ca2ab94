import { Group, Paper, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** One row of a table, as a card on narrow screens: a title, an action, and label/value lines. */
export function ItemCard({ title, action, fields }: { title: ReactNode; action?: ReactNode; fields: [string, ReactNode][] }) {
  return (
    <Paper withBorder p="sm" radius="sm">
      <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
        <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
          {title}
        </Text>
        {action}
      </Group>
      <Stack gap={2} mt={4}>
        {fields.map(([label, value]) => (
          <Text key={label} size="xs" style={{ overflowWrap: 'anywhere' }}>
            <Text span c="dimmed" size="xs">
              {label}:
            </Text>{' '}
            {value}
          </Text>
        ))}
      </Stack>
    </Paper>
  );
}
