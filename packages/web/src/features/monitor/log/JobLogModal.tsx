import { ActionIcon, Button, Group, Modal, Paper, Portal, Text, Tooltip } from '@mantine/core';
import { useEffect, useReducer } from 'react';
import { LogViewer } from './LogViewer';
import { modalWindowReducer } from './modal-window';

export interface JobLogModalProps {
  /** Whether the modal is shown; `onClose` is called when the user closes it. */
  opened: boolean;
  onClose: () => void;
  /** The job whose log is shown. */
  jobId: string;
  /** One try of the job (default: its current try). */
  tryNumber?: number;
  project?: string;
  /** The job's name, for the title (default: its id). */
  title?: string;
  /**
   * When given, "Report a problem" calls it (e.g. to open the page's own FailureReportModal); otherwise
   * the log viewer's own button opens one for this job.
   */
  onReportFailure?: () => void;
}

/**
 * The job-log modal of SPEC §2/§4: the `LogViewer` in a dialog that can be maximised (whole window) or
 * minimised to a bar at the bottom of the page while the user keeps working, then restored.
 */
export function JobLogModal({ opened, onClose, jobId, tryNumber, project, title, onReportFailure }: JobLogModalProps) {
  const [state, dispatch] = useReducer(modalWindowReducer, opened ? 'OPEN' : 'CLOSED');
  useEffect(() => dispatch(opened ? 'open' : 'close'), [opened]);
  const heading = `Log of ${title ?? jobId}${tryNumber !== undefined ? ` (try ${tryNumber})` : ''}`;

  if (state === 'MINIMIZED') {
    return (
      <Portal>
        <Paper
          shadow="lg"
          withBorder
          p="xs"
          radius="md"
          style={{ position: 'fixed', right: 16, bottom: 16, zIndex: 300, maxWidth: 360 }}
          data-testid="job-log-minimized"
        >
          <Group gap="xs" wrap="nowrap">
            <Text size="sm" fw={600} truncate>
              {heading}
            </Text>
            <Button size="compact-xs" variant="light" onClick={() => dispatch('restore')}>
              Restore
            </Button>
            <ActionIcon variant="subtle" color="gray" aria-label="Close the log" onClick={onClose}>
              ✕
            </ActionIcon>
          </Group>
        </Paper>
      </Portal>
    );
  }

  const maximized = state === 'MAXIMIZED';
  return (
    <Modal
      opened={state === 'OPEN' || maximized}
      onClose={onClose}
      size={maximized ? '100%' : 'min(1100px, 95vw)'}
      fullScreen={maximized}
      title={
        <Text fw={600} truncate>
          {heading}
        </Text>
      }
      data-testid="job-log-modal"
    >
      <Group justify="space-between" mb="xs" gap="xs">
        <Text size="xs" c="dimmed">
          {jobId}
        </Text>
        <Group gap={6}>
          {onReportFailure && (
            <Button size="xs" variant="light" color="red" onClick={onReportFailure}>
              Report a problem
            </Button>
          )}
          <Tooltip label="Keep the log in a bar while you work">
            <Button size="xs" variant="default" onClick={() => dispatch('minimize')}>
              Minimise
            </Button>
          </Tooltip>
          <Button size="xs" variant="default" onClick={() => dispatch(maximized ? 'restore' : 'maximize')}>
            {maximized ? 'Restore size' : 'Maximise'}
          </Button>
        </Group>
      </Group>
      <LogViewer
        jobId={jobId}
        tryNumber={tryNumber}
        project={project}
        reportProblem={!onReportFailure}
        height={maximized ? 'calc(100vh - 190px)' : 'min(60vh, 560px)'}
      />
    </Modal>
  );
}
