import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface NotificationRow {
  id: string;
  userId: string;
  kind: string;
  title: string;
  message: string;
  link: string | null;
  subject: string | null;
  actor: string | null;
  created: number;
  readAt: number | null;
}

/** Tables of this module (migration 202611231000-create-account-tables). */
export type NotificationTables = {
  notifications: NotificationRow;
};

export type NotificationsExecutor = Kysely<Database & NotificationTables> | Transaction<Database & NotificationTables>;

export class NotificationsRepository {
  constructor(private readonly db: NotificationsExecutor) {}

  async insertMany(rows: NotificationRow[]): Promise<void> {
    if (rows.length) await this.db.insertInto('notifications').values(rows).execute();
  }

  /** Newest first; `after` continues a page from the last (created, id) seen. */
  list(userId: string, options: { limit: number; after?: { created: number; id: string }; unreadOnly?: boolean }): Promise<NotificationRow[]> {
    let query = this.db.selectFrom('notifications').selectAll().where('userId', '=', userId);
    if (options.unreadOnly) query = query.where('readAt', 'is', null);
    const after = options.after;
    if (after) query = query.where((eb) => eb.or([eb('created', '<', after.created), eb.and([eb('created', '=', after.created), eb('id', '<', after.id)])]));
    return query.orderBy('created', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
  }

  async countUnread(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('userId', '=', userId)
      .where('readAt', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async markRead(userId: string, options: { ids?: string[]; before?: number }, now: number): Promise<void> {
    let query = this.db.updateTable('notifications').set({ readAt: now }).where('userId', '=', userId).where('readAt', 'is', null);
    if (options.ids) query = query.where('id', 'in', options.ids.length ? options.ids : ['']);
    if (options.before !== undefined) query = query.where('created', '<=', options.before);
    await query.execute();
  }

  /** Notifications older than `before` go (read or not): the store is a recent history, not an archive. */
  async deleteOlderThan(userId: string, before: number): Promise<void> {
    await this.db.deleteFrom('notifications').where('userId', '=', userId).where('created', '<', before).execute();
  }
}
