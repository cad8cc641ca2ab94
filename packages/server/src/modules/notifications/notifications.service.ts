import { DAY_MS, NOTIFICATIONS_LIMIT, type NotificationKind, type RouteOutput, type RouteParsedInput } from '@panx/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { invalidInput, permissionDenied } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Caller } from '../auth/caller.js';
import { OrgsRepository } from '../orgs/orgs.repository.js';
import { UsersRepository } from '../users/users.repository.js';
import { type NotificationRow, type NotificationTables, NotificationsRepository } from './notifications.repository.js';

/** Notifications older than this are deleted when new ones arrive for the same user. */
export const NOTIFICATION_RETENTION_MS = 90 * DAY_MS;
/** Sharing with an org notifies at most this many of its members. */
const ORG_FAN_OUT_LIMIT = 1000;

/** A project was shared (project-xxxx/invite) with a user or an org. */
export interface ProjectSharedEvent {
  projectId: string;
  projectName: string;
  /** `user-…` or `org-…` */
  invitee: string;
  level: string;
  /** The user who shared it. */
  sharedBy: string;
}

/**
 * A root execution (job or analysis) reached a final state. The job engine calls
 * `NotificationsService.executionFinished(event, now)` once per execution; the launching user is notified.
 */
export interface ExecutionFinishedEvent {
  /** `job-…` or `analysis-…` */
  id: string;
  name: string;
  state: 'done' | 'failed' | 'terminated';
  /** The project the execution ran in (its outputs' project). */
  project: string;
  /** The user who launched it: the one notified. */
  launchedBy: string;
  failureReason?: string;
  failureMessage?: string;
}

export interface NewNotification {
  kind: NotificationKind;
  title: string;
  message: string;
  link?: string | null;
  subject?: string | null;
  actor?: string | null;
}

const toApi = (row: NotificationRow) => ({
  id: row.id,
  kind: row.kind as NotificationKind,
  title: row.title,
  message: row.message,
  link: row.link,
  subject: row.subject,
  actor: row.actor,
  created: row.created,
  unread: row.readAt === null,
});

/** Cursor of `notifications/get`: `<created>.<id>` of the last notification of the previous page. */
function parseCursor(starting: string): { created: number; id: string } {
  const match = /^(\d{1,16})\.(notification-[0-9A-Za-z]{24})$/.exec(starting);
  if (!match) throw invalidInput('"starting" must be the "next" of a previous notifications/get answer');
  return { created: Number(match[1]), id: match[2] ?? '' };
}

/** The signed-in user's notifications (SPEC §3): a server-side store fed by sharing and by the job engine. */
export class NotificationsService {
  private readonly repo: NotificationsRepository;
  private readonly users: UsersRepository;
  private readonly orgs: OrgsRepository;

  constructor(db: Kysely<Database>) {
    this.repo = new NotificationsRepository(db.withTables<NotificationTables>());
    this.users = new UsersRepository(db);
    this.orgs = new OrgsRepository(db);
  }

  async get(caller: Caller, input: RouteParsedInput<'notifications/get'>): Promise<RouteOutput<'notifications/get'>> {
    this.requireOwnReach(caller);
    const limit = input.limit ?? NOTIFICATIONS_LIMIT;
    const rows = await this.repo.list(caller.userId, {
      limit: limit + 1,
      after: input.starting ? parseCursor(input.starting) : undefined,
      unreadOnly: input.unreadOnly,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      notifications: page.map(toApi),
      unreadCount: await this.repo.countUnread(caller.userId),
      next: rows.length > limit && last ? `${last.created}.${last.id}` : null,
    };
  }

  async markRead(caller: Caller, input: RouteParsedInput<'notifications/markRead'>, now: number): Promise<RouteOutput<'notifications/markRead'>> {
    this.requireOwnReach(caller);
    await this.repo.markRead(caller.userId, input.all ? { before: input.before } : { ids: input.ids ?? [] }, now);
    return { unreadCount: await this.repo.countUnread(caller.userId) };
  }

  /** Stores one notification for each user (duplicates removed); old ones of those users are pruned. */
  async notify(userIds: string[], notification: NewNotification, now: number): Promise<void> {
    const recipients = [...new Set(userIds)].filter((id) => id.startsWith('user-'));
    await this.repo.insertMany(
      recipients.map((userId) => ({
        id: newId('notification'),
        userId,
        kind: notification.kind,
        title: notification.title,
        message: notification.message,
        link: notification.link ?? null,
        subject: notification.subject ?? null,
        actor: notification.actor ?? null,
        created: now,
        readAt: null,
      })),
    );
    for (const userId of recipients) await this.repo.deleteOlderThan(userId, now - NOTIFICATION_RETENTION_MS);
  }

  /** project-xxxx/invite gave a user (or an org's members) access: tell them, but not the one who shared. */
  async projectShared(event: ProjectSharedEvent, now: number): Promise<void> {
    const recipients = event.invitee.startsWith('org-')
      ? (await this.orgs.listMembers(event.invitee, { limit: ORG_FAN_OUT_LIMIT })).map((member) => member.userId)
      : [event.invitee];
    const sharer = await this.users.findById(event.sharedBy);
    const who = sharer ? [sharer.first, sharer.last].filter(Boolean).join(' ') || sharer.handle : event.sharedBy;
    const through = event.invitee.startsWith('org-') ? ` through ${event.invitee}` : '';
    await this.notify(
      recipients.filter((id) => id !== event.sharedBy),
      {
        kind: 'projectShared',
        title: 'Project shared with you',
        message: `${who} shared "${event.projectName}" with you${through} (${event.level})`,
        link: `/panx/projects/${event.projectId}/data/`,
        subject: event.projectId,
        actor: event.sharedBy,
      },
      now,
    );
  }

  /** For the job engine: a root execution finished, failed or was terminated; its launcher is told. */
  async executionFinished(event: ExecutionFinishedEvent, now: number): Promise<void> {
    const executionClass = event.id.startsWith('analysis-') ? 'analysis' : 'job';
    const what = executionClass === 'analysis' ? 'Analysis' : 'Job';
    const byState = {
      done: { kind: 'executionDone', title: `${what} finished`, message: `"${event.name}" finished successfully` },
      failed: {
        kind: 'executionFailed',
        title: `${what} failed`,
        message: `"${event.name}" failed${event.failureReason ? `: ${event.failureReason}` : ''}${event.failureMessage ? ` (${event.failureMessage})` : ''}`,
      },
      terminated: { kind: 'executionTerminated', title: `${what} terminated`, message: `"${event.name}" was terminated` },
    } as const;
    const content = byState[event.state];
    await this.notify(
      [event.launchedBy],
      {
        kind: content.kind,
        title: content.title,
        message: content.message.slice(0, 2000),
        link: `/panx/projects/${event.project}/monitor/${executionClass}/${event.id}`,
        subject: event.id,
        actor: null,
      },
      now,
    );
  }

  /** A user's own notifications: not for job tokens, nor for tokens scoped to some projects. */
  private requireOwnReach(caller: Caller): void {
    if (caller.tokenKind === 'job' || caller.scope) throw permissionDenied('Notifications need a web session or an unscoped API token');
  }
}
