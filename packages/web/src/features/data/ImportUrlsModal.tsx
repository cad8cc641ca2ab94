import { Alert, Anchor, Badge, Button, Group, List, Loader, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { displayUrl, expectedName, parseUrlList, textWithoutStarted, URL_FETCHER_APP } from './import-urls';
import type { DataModalsState, ModalAction } from './modal-state';

export interface StartedImport {
  job: string;
  url: string;
  name: string;
}

/**
 * The import-urls modal (SPEC §3/§4: status NONE → REQUESTING → SUCCESS or FAIL): one url_fetcher job
 * per URL, into the folder on screen. The pasted text stays when something fails (less the URLs whose
 * jobs started), and cannot change while the jobs are being created.
 */
export function ImportUrlsModal({
  state,
  projectId,
  folder,
  dispatch,
  onStarted,
}: {
  state: DataModalsState['import-urls'];
  projectId: string;
  folder: string;
  dispatch: (action: ModalAction) => void;
  onStarted: (imports: StartedImport[]) => void;
}) {
  const [text, setText] = useState('');
  const parsed = parseUrlList(text);
  const busy = state.status === 'REQUESTING';

  const submit = async () => {
    dispatch({ type: 'importRequest' });
    const started: StartedImport[] = [];
    try {
      // A clear message when the installation has no url_fetcher, before any job starts.
      await api()
        .call('app-xxxx/describe', URL_FETCHER_APP, {})
        .catch((error: unknown) => {
          throw new Error(
            `Importing needs the url_fetcher app, which this installation does not have (${describeError(error)}). An administrator can install the bundled apps (PANX_BUNDLED_APPS=1).`,
          );
        });
      for (const url of parsed.urls) {
        const name = expectedName(url);
        const { id } = await api().call('app-xxxx/run', URL_FETCHER_APP, {
          project: projectId,
          folder,
          name: `Import ${name}`,
          input: { url },
        });
        started.push({ job: id, url: displayUrl(url), name });
      }
      setText('');
      dispatch({ type: 'importSuccess' });
      onStarted(started);
    } catch (error) {
      // Some jobs may have started before the failure: they are reported, and their URLs removed from the text.
      if (started.length > 0) {
        onStarted(started);
        setText(textWithoutStarted(text, parsed.urls.slice(0, started.length)));
      }
      dispatch({ type: 'importFail', error: describeError(error) });
    }
  };

  return (
    <Modal opened={state.isOpen} onClose={() => dispatch({ type: 'close', modal: 'import-urls' })} title="Import from URLs" centered size="lg">
      <form
        onSubmit={(event: FormEvent) => {
          event.preventDefault();
          if (parsed.urls.length > 0 && parsed.problems.length === 0) void submit();
        }}
      >
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            The server fetches each URL into <b>{folder}</b> as a job of the url_fetcher app; the files appear when their jobs finish.
          </Text>
          <Textarea
            label="URLs, one per line"
            placeholder={'https://example.org/data/sample1.vcf.gz\nftp://ftp.example.org/reads/sample1_R1.fastq.gz'}
            autosize
            minRows={4}
            maxRows={12}
            data-autofocus
            value={text}
            readOnly={busy}
            onChange={(event) => setText(event.currentTarget.value)}
            error={parsed.problems.length > 0 ? parsed.problems.join('; ') : undefined}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
          />
          {parsed.urls.length > 0 && (
            <Text size="sm">
              {parsed.urls.length} file{parsed.urls.length === 1 ? '' : 's'} to import
              {parsed.urls.length <= 5 && (
                <List size="sm" mt={4}>
                  {parsed.urls.map((url) => (
                    <List.Item key={url}>{expectedName(url)}</List.Item>
                  ))}
                </List>
              )}
            </Text>
          )}
          {state.status === 'FAIL' && state.error && (
            <Alert color="red" role="alert" title="Could not start the import">
              <Text size="sm">{state.error}</Text>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => dispatch({ type: 'close', modal: 'import-urls' })}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} disabled={parsed.urls.length === 0 || parsed.problems.length > 0}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const TERMINAL = new Set(['done', 'failed', 'terminated']);
const STATE_COLOURS: Record<string, string> = { done: 'green', failed: 'red', terminated: 'gray' };

/**
 * Imports started from this page: their jobs' states, polled every 3 s until all have ended; the folder
 * listing is refreshed as each one finishes, so the new files appear without a reload.
 */
export function ImportProgress({
  projectId,
  imports,
  onFinished,
  onDismiss,
}: {
  projectId: string;
  imports: StartedImport[];
  onFinished: () => void;
  onDismiss: () => void;
}) {
  const [ended, setEnded] = useState(0);
  const states = useQuery({
    queryKey: ['imports', projectId, imports.map((item) => item.job)],
    queryFn: async () => {
      const { results } = await api().call('system/describeExecutions', {
        executions: imports.map((item) => item.job),
        describe: { fields: { state: true, failureMessage: true } },
      });
      return results.map((result) => (result as { describe?: { state?: string; failureMessage?: string } }).describe ?? {});
    },
    refetchInterval: (query) => (query.state.data?.every((described) => TERMINAL.has(described.state ?? '')) ? false : 3000),
    enabled: imports.length > 0,
  });
  const finished = (states.data ?? []).filter((described) => TERMINAL.has(described.state ?? '')).length;
  useEffect(() => {
    if (finished > ended) {
      setEnded(finished);
      onFinished();
    }
  }, [finished, ended, onFinished]);
  if (imports.length === 0) return null;
  const running = imports.length - finished;
  return (
    <Alert
      color={running > 0 ? 'blue' : 'gray'}
      title={running > 0 ? `Importing ${running} of ${imports.length} file${imports.length === 1 ? '' : 's'}` : 'Imports finished'}
      withCloseButton
      closeButtonLabel="Dismiss the imports"
      onClose={onDismiss}
      data-testid="import-progress"
    >
      <Stack gap={4}>
        {imports.map((item, index) => {
          const described = states.data?.[index];
          const state = described?.state ?? 'starting';
          return (
            <Group key={item.job} gap="xs" wrap="nowrap">
              <Badge size="sm" variant="light" color={STATE_COLOURS[state] ?? 'blue'} leftSection={TERMINAL.has(state) ? undefined : <Loader size={8} />}>
                {state}
              </Badge>
              <Text size="sm" truncate title={item.url}>
                {item.name}
              </Text>
              <Anchor component={Link} size="xs" to={`/panx/projects/${projectId}/monitor/job/${item.job}`}>
                log
              </Anchor>
              {state === 'failed' && described?.failureMessage && (
                <Text size="xs" c="red" truncate>
                  {described.failureMessage}
                </Text>
              )}
            </Group>
          );
        })}
      </Stack>
    </Alert>
  );
}
