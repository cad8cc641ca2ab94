import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface CommunityRow {
  /** The org's handle (`acme` for org-acme), or `panx` for the platform's own. */
  id: string;
  orgId: string | null;
  name: string;
  widgets: string;
  assets: string;
  created: number;
  modified: number;
  createdBy: string;
}

/** Tables of this module (migration 202611231000-create-account-tables). */
export type CommunityTables = {
  communities: CommunityRow;
};

export class CommunitiesRepository {
  constructor(private readonly db: Kysely<Database & CommunityTables> | Transaction<Database & CommunityTables>) {}

  findById(id: string): Promise<CommunityRow | undefined> {
    return this.db.selectFrom('communities').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<CommunityRow[]> {
    return this.db.selectFrom('communities').selectAll().orderBy('name').orderBy('id').limit(1000).execute();
  }

  /** False when the id is taken (two creations racing included). */
  async insert(row: CommunityRow): Promise<boolean> {
    const result = await this.db
      .insertInto('communities')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async update(id: string, patch: Partial<Omit<CommunityRow, 'id'>>): Promise<void> {
    await this.db.updateTable('communities').set(patch).where('id', '=', id).execute();
  }
}
