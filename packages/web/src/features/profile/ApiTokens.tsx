import { ActionIcon, Alert, Button, Card, Code, CopyButton, Group, Modal, SegmentedControl, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useMemo, useState } from 'react';
import { useRuntime } from '../../app/runtime';
import { formatDateTime } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { ItemCard } from '../../ui/ItemCard';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useNarrow } from '../../ui/use-narrow';
import { useVisibleProjects } from '../home/hooks';
import { ConfirmRevoke } from './ConfirmRevoke';
import { useCreateApiToken, useRevokeToken, useTokens } from './hooks';
import {
  buildScope,
  describeScope,
  EXPIRY_CHOICES,
  type ExpiryChoice,
  expiresFor,
  GRANTABLE_LEVELS,
  type GrantableLevel,
  neverExpires,
  type ScopeRow,
} from './token-scope';

/** API tokens for the CLI and scripts: list, create (with an expiry and project scope), revoke. */
export function ApiTokens() {
  const { language } = useRuntime();
  const tokens = useTokens('api');
  const projects = useVisibleProjects();
  const revoke = useRevokeToken('api');
  const narrow = useNarrow();
  const [creating, setCreating] = useState(false);
  const [confirming, setConfirming] = useState<{ id: string; label: string } | null>(null);
  const names = useMemo(() => new Map((projects.data ?? []).map((project) => [project.id, project.name])), [projects.data]);

  return (
    <Card withBorder padding="md" component="section" id="apiTokens" aria-labelledby="tokens-title">
      <Group justify="space-between" mb="sm" wrap="wrap">
        <div>
          <Title order={2} size="h4" id="tokens-title">
            API tokens
          </Title>
          <Text size="sm" c="dimmed">
            For <code>px login --token</code>, dxpy and scripts. A token acts as you; limit it to the projects it needs.
          </Text>
        </div>
        <Button onClick={() => setCreating(true)}>New token</Button>
      </Group>
      {tokens.isPending ? (
        <LoadingState rows={3} label="Loading tokens" />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} title="Could not load your tokens" />
      ) : tokens.data.length === 0 ? (
        <EmptyState title="No API tokens">Create one to use the command-line client or the API from scripts.</EmptyState>
      ) : narrow ? (
        <Stack gap="xs" data-testid="api-tokens">
          {tokens.data.map((token) => (
            <ItemCard
              key={token.id}
              title={token.label}
              action={
                <Button size="xs" variant="subtle" color="red" onClick={() => setConfirming({ id: token.id, label: token.label })}>
                  Revoke
                </Button>
              }
              fields={[
                ['Access', describeScope(token.scope, names)],
                ['Created', formatDateTime(token.created, language)],
                ['Expires', neverExpires(token) ? 'Never' : formatDateTime(token.expires, language)],
                ['Last used', formatDateTime(token.lastUsed, language)],
              ]}
            />
          ))}
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table verticalSpacing={6} data-testid="api-tokens">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Label</Table.Th>
                <Table.Th>Access</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {tokens.data.map((token) => (
                <Table.Tr key={token.id}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{token.label}</Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>{describeScope(token.scope, names)}</Table.Td>
                  <Table.Td>{formatDateTime(token.created, language)}</Table.Td>
                  <Table.Td>{neverExpires(token) ? 'Never' : formatDateTime(token.expires, language)}</Table.Td>
                  <Table.Td>{formatDateTime(token.lastUsed, language)}</Table.Td>
                  <Table.Td ta="right">
                    <Button size="xs" variant="subtle" color="red" onClick={() => setConfirming({ id: token.id, label: token.label })}>
                      Revoke
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <NewTokenModal opened={creating} onClose={() => setCreating(false)} projects={projects.data ?? []} projectsError={projects.error} />
      <ConfirmRevoke
        target={confirming}
        title="Revoke this token?"
        action="Revoke"
        pending={revoke.isPending}
        error={revoke.error}
        onCancel={() => {
          setConfirming(null);
          revoke.reset();
        }}
        onConfirm={(id) => revoke.mutate(id, { onSuccess: () => setConfirming(null) })}
      >
        Anything using it stops working at once. This cannot be undone.
      </ConfirmRevoke>
    </Card>
  );
}

function NewTokenModal({
  opened,
  onClose,
  projects,
  projectsError,
}: {
  opened: boolean;
  onClose: () => void;
  projects: { id: string; name: string }[];
  projectsError: unknown;
}) {
  const create = useCreateApiToken();
  const [label, setLabel] = useState('');
  const [expiry, setExpiry] = useState<ExpiryChoice>('90');
  const [mode, setMode] = useState<'all' | 'projects'>('all');
  const [rows, setRows] = useState<ScopeRow[]>([{ project: null, level: 'VIEW' }]);
  const [formError, setFormError] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const projectOptions = projects.map((project) => ({
    value: project.id,
    label: project.name === project.id ? project.id : `${project.name} (${project.id})`,
  }));

  const close = () => {
    setLabel('');
    setExpiry('90');
    setMode('all');
    setRows([{ project: null, level: 'VIEW' }]);
    setFormError(null);
    setSecret(null);
    create.reset();
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!label.trim()) return setFormError('Give the token a label, so you can recognise it later.');
    const scope = buildScope(mode, rows);
    if (!scope.ok) return setFormError(scope.error);
    setFormError(null);
    create.mutate({ label, expires: expiresFor(expiry, Date.now()), scope: scope.scope }, { onSuccess: (result) => setSecret(result.access_token) });
  };

  const setRow = (index: number, row: Partial<ScopeRow>) => setRows((current) => current.map((value, i) => (i === index ? { ...value, ...row } : value)));

  return (
    <Modal opened={opened} onClose={close} title={secret ? 'Your new API token' : 'New API token'} size="lg" centered closeOnClickOutside={!secret}>
      {secret ? (
        <Stack>
          <Alert color="yellow" variant="light">
            Copy the token now. It is not shown again; if you lose it, revoke it and create another.
          </Alert>
          <Group wrap="nowrap" align="flex-start">
            <Code block style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="new-token-secret">
              {secret}
            </Code>
            <CopyButton value={secret}>
              {({ copied, copy }) => (
                <ActionIcon variant="light" onClick={copy} aria-label="Copy token" size="lg">
                  {copied ? '✓' : '⧉'}
                </ActionIcon>
              )}
            </CopyButton>
          </Group>
          <Text size="sm" c="dimmed">
            Use it with <code>px login --token …</code> or send it as <code>Authorization: Bearer …</code>.
          </Text>
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput label="Label" required data-autofocus maxLength={256} value={label} onChange={(e) => setLabel(e.currentTarget.value)} />
            <Select
              label="Expires after"
              data={EXPIRY_CHOICES.map((choice) => ({ value: choice.value, label: choice.label }))}
              value={expiry}
              allowDeselect={false}
              onChange={(value) => value && setExpiry(value as ExpiryChoice)}
              maw={240}
            />
            <div>
              <Text size="sm" fw={500} mb={4}>
                Access
              </Text>
              <SegmentedControl
                value={mode}
                onChange={(value) => setMode(value as 'all' | 'projects')}
                data={[
                  { value: 'all', label: 'All my projects' },
                  { value: 'projects', label: 'Selected projects' },
                ]}
              />
            </div>
            {mode === 'projects' && (
              <Stack gap="xs" data-testid="token-scope">
                {projectsError !== null && projectsError !== undefined && (
                  <Text c="red" size="sm">
                    Could not load your projects: {describeError(projectsError)}
                  </Text>
                )}
                {rows.map((row, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity until a project is chosen
                  <Group key={index} gap="xs" wrap="nowrap" align="flex-end">
                    <Select
                      label={index === 0 ? 'Project' : undefined}
                      aria-label={`Project ${index + 1}`}
                      placeholder="Choose a project"
                      data={projectOptions}
                      value={row.project}
                      onChange={(value) => setRow(index, { project: value })}
                      searchable
                      nothingFoundMessage="No such project"
                      style={{ flex: 1 }}
                    />
                    <Select
                      label={index === 0 ? 'Level' : undefined}
                      aria-label={`Level ${index + 1}`}
                      data={[...GRANTABLE_LEVELS]}
                      value={row.level}
                      allowDeselect={false}
                      onChange={(value) => value && setRow(index, { level: value as GrantableLevel })}
                      w={150}
                    />
                    <ActionIcon
                      variant="subtle"
                      color="gray"
                      size="lg"
                      aria-label={`Remove project ${index + 1}`}
                      onClick={() => setRows((current) => current.filter((_, i) => i !== index))}
                    >
                      ✕
                    </ActionIcon>
                  </Group>
                ))}
                <Group>
                  <Button variant="subtle" size="xs" onClick={() => setRows((current) => [...current, { project: null, level: 'VIEW' }])}>
                    Add a project
                  </Button>
                </Group>
              </Stack>
            )}
            {(formError || create.isError) && (
              <Text c="red" size="sm" role="alert">
                {formError ?? describeError(create.error)}
              </Text>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create token
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
