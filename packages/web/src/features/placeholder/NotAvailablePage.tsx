import { Anchor, Badge, Paper, Stack, Text, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { matchRoute, stripBase } from '../../app/route-rules';

/**
 * Pages owned by later issues: the route exists and resolves as SPEC §2 says, and the page says plainly
 * that it is not built yet. It never shows made-up data.
 */
export function NotAvailablePage() {
  const location = useLocation();
  const match = matchRoute(stripBase(location.pathname) ?? '');
  const title = match?.route.title ?? 'This page';
  return (
    <Paper withBorder p="xl" radius="md" maw={720} mx="auto" mt="lg" data-testid="not-available">
      <Stack gap="sm">
        <Badge color="gray" variant="light" w="fit-content">
          Not available yet
        </Badge>
        <Title order={1} size="h2">
          {title}
        </Title>
        <Text>This page is not available yet in this version of Panx. Its address is reserved and will keep working once the page is built.</Text>
        <Text size="sm" c="dimmed">
          In the meantime the same data is reachable with the <code>px</code> command-line client and the <Anchor href="/api-docs">API</Anchor>.
        </Text>
        <Anchor component={Link} to="/panx/home">
          Back to the home page
        </Anchor>
      </Stack>
    </Paper>
  );
}
