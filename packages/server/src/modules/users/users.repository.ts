import type { Executor } from '../../db/stores.js';
import type { UsersTable } from '../../db/schema.js';

export type UserRow = UsersTable;

export class UsersRepository {
  constructor(private readonly db: Executor) {}

  async insert(row: UserRow): Promise<void> {
    await this.db.insertInto('users').values(row).execute();
  }

  findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async update(id: string, patch: Partial<UserRow>): Promise<void> {
    await this.db.updateTable('users').set(patch).where('id', '=', id).execute();
  }

  /**
   * Records that a one-time code of `step` was used, if no code of that step or a later one was: true
   * when this call is the first to use it (one conditional update, so two racing sign-ins cannot both win).
   */
  async claimOtpStep(id: string, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('users')
      .set({ otpLastStep: step })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('otpLastStep', 'is', null), eb('otpLastStep', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Users ordered by id, after `afterId`, optionally only some ids and only enabled ones. */
  listPage(options: { ids?: string[]; includeDisabled: boolean; afterId?: string; limit: number }): Promise<UserRow[]> {
    let query = this.db.selectFrom('users').selectAll().orderBy('id');
    if (options.ids) query = query.where('id', 'in', options.ids.length ? options.ids : ['']);
    if (!options.includeDisabled) query = query.where('disabled', '=', 0);
    if (options.afterId) query = query.where('id', '>', options.afterId);
    return query.limit(options.limit).execute();
  }
}
