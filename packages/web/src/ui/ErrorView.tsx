import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { describeError } from './describe-error';

/** The error page shown in place of a page that failed to render (SPEC §2/§8). */
export function ErrorView({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  return (
    <Paper withBorder p="xl" maw={640} mx="auto" mt="xl" role="alert" data-testid="error-view">
      <Stack gap="sm">
        <Title order={2}>{title}</Title>
        <Text>{describeError(error)}</Text>
        <Text size="sm" c="dimmed">
          The problem has been reported. You can reload the page or go back to the home page.
        </Text>
        <Group>
          <Button onClick={() => window.location.reload()}>Reload</Button>
          <Button variant="default" component="a" href="/panx/home">
            Home
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
