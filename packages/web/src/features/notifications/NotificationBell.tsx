import { Group, Text } from '@mantine/core';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { DROPDOWN_Z_INDEX } from '../../ui/dropdown';
import { useNotifications } from './hooks';
import { bellLabel, unreadBadge } from './notification-rules';
import { MarkAllRead, NotificationList } from './NotificationList';
import classes from './Notifications.module.css';

/** The header bell (SPEC §3/§9): unread count, and the latest 25 notifications in a panel. */
export function NotificationBell() {
  const notifications = useNotifications();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  const count = notifications.data?.unreadCount ?? 0;
  const badge = unreadBadge(count);
  const { refetch, dataUpdatedAt } = notifications;

  const close = useCallback((focusBell: boolean) => {
    setOpen(false);
    if (focusBell) button.current?.focus();
  }, []);

  const toggle = () => {
    setOpen((current) => !current);
    // Opening shows what is new now, not what the last poll saw.
    if (!open && Date.now() - dataUpdatedAt > 5_000) void refetch();
  };

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) close(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') close(true);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, close]);

  return (
    <div ref={root} className={classes.bellRoot}>
      <button
        ref={button}
        type="button"
        className={classes.bell}
        aria-label={bellLabel(count)}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={toggle}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
          <path
            fill="currentColor"
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-5-1.6-1.6V10a5.4 5.4 0 0 0-4.4-5.3V4a1 1 0 1 0-2 0v.7A5.4 5.4 0 0 0 6.6 10v5.4L5 17v1h14v-1Z"
          />
        </svg>
        {badge && (
          <span className={classes.badge} data-testid="notification-count">
            {badge}
          </span>
        )}
      </button>
      {open && (
        <section id={panelId} role="dialog" aria-label="Notifications" className={classes.panel} style={{ zIndex: DROPDOWN_Z_INDEX }}>
          <Group justify="space-between" className={classes.panelHeader}>
            <Text fw={700} size="sm">
              Notifications
            </Text>
            <MarkAllRead />
          </Group>
          <div className={classes.scroll}>
            <NotificationList onNavigate={() => close(false)} />
          </div>
        </section>
      )}
    </div>
  );
}
