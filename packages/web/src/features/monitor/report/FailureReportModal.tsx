import { Alert, Button, Code, Collapse, Group, Modal, Stack, Text, Textarea, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useReducer, useState } from 'react';
import { api } from '../../../lib/api';
import { describeError } from '../../../ui/describe-error';
import { browserFacts, buildReport, failureReportReducer, initialReportState, LOG_TAIL_LINES, MESSAGE_MAX, messageProblem } from './report-state';

export interface FailureReportModalProps {
  /** Whether the modal is shown; `onClose` is called when the user closes it (also after sending). */
  opened: boolean;
  onClose: () => void;
  /**
   * The execution reported (`job-…` or `analysis-…`) and what the page shows of it (for the summary);
   * with the id alone, the modal describes the execution itself.
   */
  execution: { id: string; name?: string; state?: string; failureReason?: string | null; failureMessage?: string | null };
  /** The try the user is looking at (jobs). */
  tryNumber?: number;
}

function currentBrowser() {
  let timeZone: string | undefined;
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    timeZone = undefined;
  }
  return browserFacts({ navigator, screen: window.screen, devicePixelRatio: window.devicePixelRatio, location: window.location, timeZone });
}

/**
 * The failure-report modal (SPEC §3/§4, states INITIAL → SENDING → DONE or ERROR): the user says what
 * went wrong; the report (their words, the execution, the last lines of its log and the browser) goes to
 * `system/reportFailure`, the platform's support inbox, where administrators read it. The server adds
 * the execution's own state and failure reason.
 */
export function FailureReportModal({ opened, onClose, execution, tryNumber }: FailureReportModalProps) {
  const [state, dispatch] = useReducer(failureReportReducer, undefined, initialReportState);
  const [showDetails, setShowDetails] = useState(false);
  const [touched, setTouched] = useState(false);
  useEffect(() => {
    if (opened) {
      dispatch({ type: 'initialize' });
      setTouched(false);
      setShowDetails(false);
    }
  }, [opened]);

  const isJob = execution.id.startsWith('job-');
  const tail = useQuery({
    queryKey: ['failure-report-log-tail', execution.id, tryNumber],
    enabled: opened && isJob,
    staleTime: 0,
    queryFn: async () => {
      const page = await api().call('job-xxxx/getLog', execution.id, {
        numRecentMessages: LOG_TAIL_LINES,
        limit: LOG_TAIL_LINES,
        ...(tryNumber !== undefined ? { try: tryNumber } : {}),
      });
      return page.messages.map((m) => `${m.level} ${m.msg}`);
    },
  });
  const logLines = tail.data ?? [];
  // What the page did not pass (the log viewer knows only the id) is read from the execution itself.
  const described = useQuery({
    queryKey: ['failure-report-execution', execution.id],
    enabled: opened && execution.state === undefined,
    queryFn: async () => {
      const fields = { name: true, state: true, failureReason: true, failureMessage: true };
      const row = (
        isJob ? await api().call('job-xxxx/describe', execution.id, { fields }) : await api().call('analysis-xxxx/describe', execution.id, { fields })
      ) as { name?: string; state?: string; failureReason?: string | null; failureMessage?: string | null };
      return row;
    },
  });
  const shown = {
    ...described.data,
    ...Object.fromEntries(Object.entries(execution).filter(([, value]) => value !== undefined)),
  } as FailureReportModalProps['execution'];
  const browser = useMemo(() => (opened ? currentBrowser() : {}), [opened]);

  const send = async () => {
    setTouched(true);
    if (messageProblem(state.message) || state.status === 'SENDING') return;
    dispatch({ type: 'send' });
    try {
      const { id } = await api().call('system/reportFailure', buildReport({ execution: execution.id, message: state.message, tryNumber, logLines, browser }));
      dispatch({ type: 'success', reportId: id });
    } catch (error) {
      dispatch({ type: 'error', error: describeError(error) });
    }
  };

  const problem = touched ? messageProblem(state.message) : undefined;
  const sending = state.status === 'SENDING';

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title="Report a problem with this execution"
      size="lg"
      data-testid="failure-report-modal"
      closeOnClickOutside={!sending}
    >
      {state.status === 'DONE' ? (
        <Stack>
          <Alert color="green" variant="light" title="Report sent" role="status">
            <Text size="sm">
              The support team has your report <Code data-testid="failure-report-id">{state.reportId}</Code> with the execution, its last log lines and your
              browser. Quote its id if you write to them.
            </Text>
          </Alert>
          <Group justify="flex-end">
            <Button onClick={onClose} data-autofocus>
              Close
            </Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="sm">
          <Stack gap={2}>
            <Text size="sm" fw={600}>
              {shown.name ?? execution.id}
            </Text>
            <Text size="xs" c="dimmed">
              {execution.id}
              {tryNumber !== undefined ? ` · try ${tryNumber}` : ''}
              {shown.state ? ` · ${shown.state}` : ''}
            </Text>
            {(shown.failureReason || shown.failureMessage) && (
              <Text size="sm" c="red.8">
                {shown.failureReason}
                {shown.failureMessage ? `: ${shown.failureMessage}` : ''}
              </Text>
            )}
          </Stack>
          <Textarea
            label="What went wrong?"
            description="What you did, what you expected and what happened instead."
            placeholder="The job failed while reading my BAM file, which opens fine elsewhere…"
            autosize
            minRows={4}
            maxRows={12}
            value={state.message}
            onChange={(event) => dispatch({ type: 'edit', message: event.currentTarget.value })}
            onBlur={() => setTouched(true)}
            error={problem}
            disabled={sending}
            maxLength={MESSAGE_MAX + 1}
            data-autofocus
          />
          <UnstyledButton onClick={() => setShowDetails((v) => !v)} aria-expanded={showDetails}>
            <Text size="xs" c="blue">
              {showDetails ? '▾' : '▸'} What is sent with your message
            </Text>
          </UnstyledButton>
          <Collapse expanded={showDetails}>
            <Stack gap={4}>
              <Text size="xs" c="dimmed">
                The execution's id, state, failure reason and message;{' '}
                {isJob
                  ? `the last ${LOG_TAIL_LINES} lines of its log (${tail.isPending ? 'loading' : `${logLines.length} lines`})`
                  : 'no log (analyses have none)'}
                ; your browser: {Object.values(browser).filter(Boolean).join(' · ') || 'nothing known'}.
              </Text>
              {isJob && logLines.length > 0 && (
                <Code block mah={160} style={{ overflow: 'auto', fontSize: 11 }} data-testid="failure-report-log-tail">
                  {logLines.join('\n')}
                </Code>
              )}
              {tail.isError && (
                <Text size="xs" c="orange">
                  The log could not be read ({describeError(tail.error)}); the report is sent without it.
                </Text>
              )}
            </Stack>
          </Collapse>
          {state.status === 'ERROR' && (
            <Alert color="red" variant="light" title="The report was not sent" role="alert">
              <Text size="sm">{state.error}</Text>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={sending}>
              Cancel
            </Button>
            <Button color="red" onClick={() => void send()} loading={sending}>
              {state.status === 'ERROR' ? 'Try again' : 'Send report'}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
