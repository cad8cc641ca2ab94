import type { Notification, NotificationKind } from '@panx/contract';
import { formatDate } from '../../lib/format';

/** The bell's badge: nothing at 0, the count up to 99, then `99+`. */
export function unreadBadge(count: number): string | null {
  if (!Number.isFinite(count) || count <= 0) return null;
  return count > 99 ? '99+' : String(Math.floor(count));
}

/** The bell's accessible name says how many are unread. */
export function bellLabel(count: number): string {
  if (count <= 0) return 'Notifications, none unread';
  return `Notifications, ${count > 99 ? 'more than 99' : count} unread`;
}

/** "just now", "5 min ago", "3 h ago", "2 days ago", then the date (`MMM DD YYYY`). */
export function timeAgo(created: number, now: number, language = 'en'): string {
  const seconds = Math.max(0, Math.floor((now - created) / 1000));
  if (seconds < 60) return 'just now';
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 7) return days === 1 ? 'yesterday' : `${days} days ago`;
  return formatDate(created, language);
}

export interface NotificationTone {
  color: string;
  symbol: string;
  label: string;
}

const TONES: Record<NotificationKind, NotificationTone> = {
  projectShared: { color: 'blue', symbol: '⇄', label: 'Project shared' },
  executionDone: { color: 'green', symbol: '✓', label: 'Finished' },
  executionFailed: { color: 'red', symbol: '✕', label: 'Failed' },
  executionTerminated: { color: 'gray', symbol: '■', label: 'Terminated' },
};

export function toneOf(kind: string): NotificationTone {
  return TONES[kind as NotificationKind] ?? { color: 'gray', symbol: '•', label: 'Notification' };
}

/** Only paths inside the app are followed (the server writes them; this is defence in depth). */
export function safeLink(link: string | null | undefined): string | undefined {
  if (!link?.startsWith('/panx/') || link.startsWith('//') || link.includes('\\')) return undefined;
  return link;
}

/** The list after marking some (or all) read, as the server will answer it. */
export function markedRead(
  data: { notifications: Notification[]; unreadCount: number; next: string | null },
  ids: readonly string[] | 'all',
  unreadCount: number,
): { notifications: Notification[]; unreadCount: number; next: string | null } {
  const marks = ids === 'all' ? undefined : new Set(ids);
  return {
    ...data,
    unreadCount,
    notifications: data.notifications.map((item) => (item.unread && (!marks || marks.has(item.id)) ? { ...item, unread: false } : item)),
  };
}

/** Whether the newer page has a project-shared notification the older one did not. */
export function newlyShared(older: { notifications: Notification[] }, newer: { notifications: Notification[] }): boolean {
  const seen = new Set(older.notifications.map((item) => item.id));
  return newer.notifications.some((item) => item.kind === 'projectShared' && !seen.has(item.id));
}
