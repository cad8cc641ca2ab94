import { ActionIcon, Button, CloseButton, Group, Paper, Progress, ScrollArea, Stack, Text, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { useStore } from '../../lib/store';
import { formatBytes } from '../viewer/formats';
import classes from './DataPage.module.css';
import { totalProgress } from './upload-planner';
import { type UploadItem, uploader } from './uploader';

const LABELS: Record<UploadItem['status'], string> = {
  queued: 'Waiting',
  preparing: 'Preparing',
  uploading: 'Uploading',
  paused: 'Paused',
  closing: 'Finishing',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Progress of every upload (per file and in total), with pause, resume and cancel. */
export function UploadPanel() {
  const items = useStore(uploader().items);
  const interrupted = useStore(uploader().interrupted);
  const [collapsed, setCollapsed] = useState(false);
  if (items.length === 0 && interrupted.length === 0) return null;
  const running = items.filter((item) => !['done', 'cancelled'].includes(item.status));
  const total = totalProgress(running.length ? running : items);
  return (
    <Paper withBorder shadow="md" className={classes.uploadPanel} role="region" aria-label="Uploads">
      <Group justify="space-between" px="sm" py={6} className={classes.uploadHead} wrap="nowrap">
        <Text size="sm" fw={600}>
          {running.length ? `Uploading ${running.length} file${running.length === 1 ? '' : 's'}` : 'Uploads'}
        </Text>
        <Group gap={4} wrap="nowrap">
          <Button size="compact-xs" variant="subtle" onClick={() => setCollapsed((c) => !c)}>
            {collapsed ? 'Show' : 'Hide'}
          </Button>
          {running.length === 0 && <CloseButton size="sm" aria-label="Clear finished uploads" onClick={() => uploader().clearFinished()} />}
        </Group>
      </Group>
      <div className={classes.uploadTotal}>
        <Progress value={total.fraction * 100} size="sm" aria-label="Total upload progress" />
        <Text size="xs" c="dimmed" mt={2}>
          {formatBytes(total.sent)} of {formatBytes(total.size)} ({Math.floor(total.fraction * 100)}%)
        </Text>
      </div>
      {!collapsed && (
        <ScrollArea.Autosize mah={260}>
          <Stack gap={6} p="sm" pt={4}>
            {interrupted.map((record) => (
              <Text key={`${record.project}${record.folder}${record.name}`} size="xs" c="orange.8">
                “{record.name}” ({formatBytes(record.size)}) was interrupted: drop or pick the same file again into {record.folder} to resume.
              </Text>
            ))}
            {items.map((item) => (
              <div key={item.key} data-upload={item.name}>
                <Group justify="space-between" gap={4} wrap="nowrap">
                  <Text size="xs" className={classes.ellipsis} title={`${item.folder}/${item.name}`}>
                    {item.name}
                  </Text>
                  <Group gap={2} wrap="nowrap">
                    <Text size="xs" c={item.status === 'failed' ? 'red' : 'dimmed'} data-status={item.status}>
                      {LABELS[item.status]}
                      {item.resumed && item.status !== 'done' ? ' (resumed)' : ''}
                    </Text>
                    {(item.status === 'uploading' || item.status === 'queued' || item.status === 'preparing') && (
                      <Tooltip label="Pause" withinPortal>
                        <ActionIcon size="sm" variant="subtle" aria-label={`Pause ${item.name}`} onClick={() => uploader().pause(item.key)}>
                          ⏸
                        </ActionIcon>
                      </Tooltip>
                    )}
                    {(item.status === 'paused' || item.status === 'failed') && (
                      <Tooltip label="Resume" withinPortal>
                        <ActionIcon size="sm" variant="subtle" aria-label={`Resume ${item.name}`} onClick={() => uploader().resume(item.key)}>
                          ▶
                        </ActionIcon>
                      </Tooltip>
                    )}
                    {!['done', 'cancelled', 'closing'].includes(item.status) && (
                      <Tooltip label="Cancel" withinPortal>
                        <ActionIcon size="sm" variant="subtle" color="red" aria-label={`Cancel ${item.name}`} onClick={() => void uploader().cancel(item.key)}>
                          ✕
                        </ActionIcon>
                      </Tooltip>
                    )}
                  </Group>
                </Group>
                <Progress
                  value={item.size ? (item.sent / item.size) * 100 : item.status === 'done' ? 100 : 0}
                  size="xs"
                  color={item.status === 'failed' ? 'red' : item.status === 'done' ? 'green' : item.status === 'paused' ? 'gray' : 'blue'}
                  aria-label={`Progress of ${item.name}`}
                />
                {item.error && (
                  <Text size="xs" c="red">
                    {item.error}
                  </Text>
                )}
              </div>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      )}
    </Paper>
  );
}
