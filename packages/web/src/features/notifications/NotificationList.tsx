import { Anchor, Badge, Group, Stack, Text, UnstyledButton } from '@mantine/core';
import type { Notification } from '@panx/contract';
import { useNavigate } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { describeError } from '../../ui/describe-error';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import classes from './Notifications.module.css';
import { useMarkRead, useNotifications } from './hooks';
import { safeLink, timeAgo, toneOf } from './notification-rules';

/**
 * The latest notifications (at most 25) with their loading, error and empty states. Opening one marks it
 * read and follows its link; `limit` shows fewer (the home page).
 */
export function NotificationList({ limit, onNavigate }: { limit?: number; onNavigate?: () => void }) {
  const notifications = useNotifications();
  const markRead = useMarkRead();
  const navigate = useNavigate();

  if (notifications.isPending) return <LoadingState rows={3} label="Loading notifications" />;
  if (notifications.isError && !notifications.data) {
    return <ErrorState error={notifications.error} onRetry={() => void notifications.refetch()} title="Could not load your notifications" />;
  }
  const items = notifications.data.notifications.slice(0, limit);
  if (items.length === 0) {
    return <EmptyState title="No notifications">You will see here when a project is shared with you or one of your jobs ends.</EmptyState>;
  }

  const open = (item: Notification) => {
    if (item.unread) markRead.mutate([item.id]);
    const link = safeLink(item.link);
    if (link) {
      onNavigate?.();
      navigate(link);
    }
  };

  return (
    <>
      {markRead.isError && (
        <Text size="xs" c="red" role="alert" px="sm" py={4}>
          Could not mark it read: {describeError(markRead.error)}
        </Text>
      )}
      <Stack gap={0} component="ul" className={classes.list} aria-label="Latest notifications">
        {items.map((item) => (
          <li key={item.id}>
            <NotificationItem item={item} onOpen={() => open(item)} />
          </li>
        ))}
      </Stack>
    </>
  );
}

function NotificationItem({ item, onOpen }: { item: Notification; onOpen: () => void }) {
  const { language } = useRuntime();
  const tone = toneOf(item.kind);
  return (
    <UnstyledButton
      className={classes.item}
      data-unread={item.unread || undefined}
      onClick={onOpen}
      aria-label={`${item.unread ? 'Unread: ' : ''}${item.title}. ${item.message}`}
    >
      <span className={classes.symbol} data-color={tone.color} aria-hidden="true">
        {tone.symbol}
      </span>
      <span className={classes.body}>
        <Group gap={6} wrap="nowrap" justify="space-between" align="flex-start">
          <Text size="sm" fw={item.unread ? 700 : 500} className={classes.title}>
            {item.title}
          </Text>
          <Text size="xs" c="dimmed" className={classes.time} title={new Date(item.created).toISOString()}>
            {timeAgo(item.created, Date.now(), language)}
          </Text>
        </Group>
        <Text size="xs" c="dimmed" className={classes.message}>
          {item.message}
        </Text>
      </span>
      {item.unread && <span className={classes.dot} role="presentation" />}
    </UnstyledButton>
  );
}

/** "Mark all read", disabled when nothing is unread. */
export function MarkAllRead() {
  const notifications = useNotifications();
  const markRead = useMarkRead();
  const unread = notifications.data?.unreadCount ?? 0;
  return (
    <Anchor component="button" type="button" size="xs" disabled={unread === 0 || markRead.isPending} onClick={() => markRead.mutate('all')}>
      Mark all read
    </Anchor>
  );
}

export function UnreadBadge({ count }: { count: number }) {
  if (count <= 0) return null;
  return (
    <Badge size="sm" variant="filled" color="red" circle={count < 10}>
      {count > 99 ? '99+' : count}
    </Badge>
  );
}
