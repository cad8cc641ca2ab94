import type { Executor } from '../../db/stores.js';
import type { TokensTable } from '../../db/schema.js';

export type TokenRow = TokensTable;

export class TokensRepository {
  constructor(private readonly db: Executor) {}

  async insert(row: TokenRow): Promise<void> {
    await this.db.insertInto('tokens').values(row).execute();
  }

  findBySecretHash(secretHash: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('secretHash', '=', secretHash).executeTakeFirst();
  }

  findById(id: string): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }

  listByUser(userId: string, options: { kind?: string; activeAt?: number }): Promise<TokenRow[]> {
    let query = this.db.selectFrom('tokens').selectAll().where('userId', '=', userId).orderBy('created', 'desc');
    if (options.kind) query = query.where('kind', '=', options.kind);
    if (options.activeAt !== undefined) query = query.where('revoked', '=', 0).where('expires', '>', options.activeAt);
    return query.execute();
  }

  async revoke(id: string): Promise<void> {
    await this.db.updateTable('tokens').set({ revoked: 1 }).where('id', '=', id).execute();
  }

  async revokeAllOfUser(userId: string): Promise<void> {
    await this.db.updateTable('tokens').set({ revoked: 1 }).where('userId', '=', userId).execute();
  }

  async touch(id: string, lastUsed: number, expires?: number): Promise<void> {
    await this.db
      .updateTable('tokens')
      .set(expires === undefined ? { lastUsed } : { lastUsed, expires })
      .where('id', '=', id)
      .execute();
  }

  /** Forget tokens that expired or were revoked more than `before` ago. */
  async deleteExpiredBefore(before: number): Promise<void> {
    await this.db.deleteFrom('tokens').where('expires', '<', before).execute();
  }
}
