import { Alert, Card, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { UserDescribe } from '@panx/contract';
import { useSearchParams } from 'react-router';
import { orEmpty } from '../../lib/format';

/** Billing settings: where the user's projects are billed; spending limits are not tracked by this server yet. */
export function Billing({ user }: { user: UserDescribe }) {
  const [params] = useSearchParams();
  const currency = (user as { currency?: { code?: unknown } }).currency;
  const billTo = typeof user.billTo === 'string' ? user.billTo : undefined;
  const billedToOrg = billTo?.startsWith('org-') ?? false;
  return (
    <Stack gap="md">
      {params.size > 0 && (
        <Alert color="blue" variant="light" title="Back from the billing provider">
          Changes made there show here once the provider has confirmed them.
        </Alert>
      )}
      <Card withBorder padding="md" component="section" aria-labelledby="billing-title">
        <Title order={2} size="h4" mb="sm" id="billing-title">
          Billing account
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <div>
            <Text size="xs" c="dimmed">
              New projects are billed to
            </Text>
            <Text size="sm" data-testid="bill-to">
              {orEmpty(billTo)}
            </Text>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              Billed through an organization
            </Text>
            <Text size="sm">{billedToOrg ? 'Yes' : 'No'}</Text>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              Currency
            </Text>
            <Text size="sm">{orEmpty(typeof currency?.code === 'string' ? currency.code : undefined)}</Text>
          </div>
          <div>
            <Text size="xs" c="dimmed">
              Spending limit
            </Text>
            <Text size="sm" data-testid="spending-limit">
              {orEmpty(undefined)}
            </Text>
          </div>
        </SimpleGrid>
        <Text size="sm" c="dimmed" mt="md">
          This server does not track compute and storage charges yet, so there is no spending limit or usage to show.
        </Text>
      </Card>
    </Stack>
  );
}
