import { Paper, Stack, Text, Title } from '@mantine/core';
import { useRuntime } from './runtime';

/** Shown while `maintenanceWindow.active` is on (SPEC §2/§7). */
export function MaintenancePage() {
  const { config } = useRuntime();
  const window = config.maintenanceWindow as { active: boolean; message?: unknown; end?: unknown };
  const message = typeof window.message === 'string' && window.message.trim() ? window.message : undefined;
  const end = typeof window.end === 'number' ? new Date(window.end) : undefined;
  return (
    <Paper withBorder p="xl" radius="md" maw={640} mx="auto" mt="xl" data-testid="maintenance">
      <Stack gap="sm">
        <Title order={1} size="h2">
          Panx is down for maintenance
        </Title>
        <Text>{message ?? 'The platform is being upgraded. Your data and running analyses are safe.'}</Text>
        {end && <Text c="dimmed">Expected back by {end.toLocaleString()}.</Text>}
        <Text size="sm" c="dimmed">
          Reload this page later to continue.
        </Text>
      </Stack>
    </Paper>
  );
}
