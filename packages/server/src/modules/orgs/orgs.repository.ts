import type { Executor } from '../../db/stores.js';
import type { OrgMembersTable, OrgsTable } from '../../db/schema.js';
import { PreparedQuery } from '../../db/prepared-query.js';

export type OrgRow = OrgsTable;
export type OrgMemberRow = OrgMembersTable;

/** Read on every authorization check: compiled once (db/prepared-query.ts). */
const membershipsOf = new PreparedQuery((db, userId: string) => db.selectFrom('orgMembers').selectAll().where('userId', '=', userId).orderBy('orgId'));

export class OrgsRepository {
  constructor(private readonly db: Executor) {}

  async insert(row: OrgRow): Promise<void> {
    await this.db.insertInto('orgs').values(row).execute();
  }

  findById(id: string): Promise<OrgRow | undefined> {
    return this.db.selectFrom('orgs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, patch: Partial<OrgRow>): Promise<void> {
    await this.db.updateTable('orgs').set(patch).where('id', '=', id).execute();
  }

  findMember(orgId: string, userId: string): Promise<OrgMemberRow | undefined> {
    return this.db.selectFrom('orgMembers').selectAll().where('orgId', '=', orgId).where('userId', '=', userId).executeTakeFirst();
  }

  async upsertMember(row: OrgMemberRow): Promise<void> {
    await this.db
      .insertInto('orgMembers')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['orgId', 'userId']).doUpdateSet({
          level: row.level,
          allowBillableActivities: row.allowBillableActivities,
          appAccess: row.appAccess,
          projectAccess: row.projectAccess,
        }),
      )
      .execute();
  }

  async removeMember(orgId: string, userId: string): Promise<void> {
    await this.db.deleteFrom('orgMembers').where('orgId', '=', orgId).where('userId', '=', userId).execute();
  }

  listMembers(orgId: string, options: { level?: string; ids?: string[]; afterId?: string; limit: number }): Promise<OrgMemberRow[]> {
    let query = this.db.selectFrom('orgMembers').selectAll().where('orgId', '=', orgId).orderBy('userId');
    if (options.level) query = query.where('level', '=', options.level);
    if (options.ids) query = query.where('userId', 'in', options.ids.length ? options.ids : ['']);
    if (options.afterId) query = query.where('userId', '>', options.afterId);
    return query.limit(options.limit).execute();
  }

  countAdmins(orgId: string): Promise<number> {
    return this.db
      .selectFrom('orgMembers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', orgId)
      .where('level', '=', 'ADMIN')
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  }

  /** The orgs a user belongs to, with the membership terms. */
  membershipsOfUser(userId: string): Promise<OrgMemberRow[]> {
    return membershipsOf.execute(this.db, userId);
  }
}
