import type { AppNamesTable, AppsTable } from '../../db/schema.js';
import type { Executor } from '../../db/stores.js';

export type AppRow = AppsTable;
export type AppNameRow = AppNamesTable;

/** App versions, what all versions of a name share (categories, authorized users, developers), and installs. */
export class AppsRepository {
  constructor(private readonly db: Executor) {}

  async insert(row: AppRow): Promise<void> {
    await this.db.insertInto('apps').values(row).execute();
  }

  findById(id: string): Promise<AppRow | undefined> {
    return this.db.selectFrom('apps').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findVersion(name: string, version: string): Promise<AppRow | undefined> {
    return this.db.selectFrom('apps').selectAll().where('name', '=', name).where('version', '=', version).executeTakeFirst();
  }

  listVersions(name: string): Promise<AppRow[]> {
    return this.db.selectFrom('apps').selectAll().where('name', '=', name).orderBy('created').execute();
  }

  listAll(options: { names?: readonly string[] } = {}): Promise<AppRow[]> {
    let q = this.db.selectFrom('apps').selectAll().where('deleted', '=', 0).orderBy('name').orderBy('created');
    if (options.names) q = q.where('name', 'in', options.names.length ? options.names : ['']);
    return q.execute();
  }

  async update(id: string, patch: Partial<AppRow>): Promise<void> {
    await this.db.updateTable('apps').set(patch).where('id', '=', id).execute();
  }

  findName(name: string): Promise<AppNameRow | undefined> {
    return this.db.selectFrom('appNames').selectAll().where('name', '=', name).executeTakeFirst();
  }

  listNames(): Promise<AppNameRow[]> {
    return this.db.selectFrom('appNames').selectAll().execute();
  }

  async insertName(row: AppNameRow): Promise<void> {
    await this.db.insertInto('appNames').values(row).execute();
  }

  async updateName(name: string, patch: Partial<AppNameRow>): Promise<void> {
    await this.db.updateTable('appNames').set(patch).where('name', '=', name).execute();
  }

  async install(name: string, userId: string, now: number): Promise<void> {
    await this.db
      .insertInto('appInstalls')
      .values({ name, userId, created: now })
      .onConflict((oc) => oc.columns(['name', 'userId']).doNothing())
      .execute();
  }

  async uninstall(name: string, userId: string): Promise<void> {
    await this.db.deleteFrom('appInstalls').where('name', '=', name).where('userId', '=', userId).execute();
  }

  installedBy(userId: string): Promise<string[]> {
    return this.db
      .selectFrom('appInstalls')
      .select('name')
      .where('userId', '=', userId)
      .execute()
      .then((rows) => rows.map((row) => row.name));
  }

  async installCount(name: string): Promise<number> {
    const row = await this.db
      .selectFrom('appInstalls')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
