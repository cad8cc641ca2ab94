import type { Notification } from '@panx/contract';
import { describe, expect, it } from 'vitest';
import { bellLabel, markedRead, newlyShared, safeLink, timeAgo, toneOf, unreadBadge } from './notification-rules';

const note = (id: string, unread: boolean): Notification => ({
  id,
  kind: 'projectShared',
  title: 't',
  message: 'm',
  link: null,
  subject: null,
  actor: null,
  created: 0,
  unread,
});

describe('notification rules', () => {
  it.each([
    [0, null],
    [-3, null],
    [Number.NaN, null],
    [1, '1'],
    [25, '25'],
    [99, '99'],
    [100, '99+'],
    [12345, '99+'],
  ])('badge of %s unread is %s', (count, badge) => {
    expect(unreadBadge(count)).toBe(badge);
  });

  it('names the bell with its count', () => {
    expect(bellLabel(0)).toBe('Notifications, none unread');
    expect(bellLabel(3)).toBe('Notifications, 3 unread');
    expect(bellLabel(250)).toBe('Notifications, more than 99 unread');
  });

  it.each([
    [0, 'just now'],
    [59_000, 'just now'],
    [60_000, '1 min ago'],
    [59 * 60_000, '59 min ago'],
    [3_600_000, '1 h ago'],
    [23 * 3_600_000, '23 h ago'],
    [86_400_000, 'yesterday'],
    [6 * 86_400_000, '6 days ago'],
    [-5_000, 'just now'],
  ])('%s ms ago reads "%s"', (age, text) => {
    const now = Date.UTC(2026, 10, 21, 12);
    expect(timeAgo(now - age, now)).toBe(text);
  });

  it('gives older notifications their date', () => {
    const now = Date.UTC(2026, 10, 21, 12);
    expect(timeAgo(Date.UTC(2026, 0, 5, 12), now)).toBe('Jan 05 2026');
  });

  it('has a tone for every kind, and a neutral one for kinds it does not know', () => {
    expect(toneOf('executionFailed')).toMatchObject({ color: 'red' });
    expect(toneOf('executionDone')).toMatchObject({ color: 'green' });
    expect(toneOf('accessRequest')).toMatchObject({ color: 'gray', label: 'Notification' });
  });

  it.each([
    ['/panx/projects/project-1/data/', '/panx/projects/project-1/data/'],
    ['https://evil.example/', undefined],
    ['javascript:alert(1)', undefined],
    ['//evil.example/panx/', undefined],
    ['/panx/\\evil', undefined],
    [null, undefined],
  ])('follows %s as %s', (link, safe) => {
    expect(safeLink(link)).toBe(safe);
  });

  it('marks the given ids, or all, read', () => {
    const data = { notifications: [note('a', true), note('b', true), note('c', false)], unreadCount: 2, next: null };
    expect(markedRead(data, ['a'], 1).notifications.map((n) => n.unread)).toEqual([false, true, false]);
    expect(markedRead(data, 'all', 0)).toMatchObject({ unreadCount: 0, notifications: [{ unread: false }, { unread: false }, { unread: false }] });
    expect(data.notifications[0]?.unread).toBe(true);
  });

  it('notices a newly shared project', () => {
    const older = { notifications: [note('a', true)] };
    expect(newlyShared(older, { notifications: [note('b', true), note('a', true)] })).toBe(true);
    expect(newlyShared(older, { notifications: [note('a', false)] })).toBe(false);
    expect(newlyShared(older, { notifications: [{ ...note('c', true), kind: 'executionDone' }] })).toBe(false);
  });
});
