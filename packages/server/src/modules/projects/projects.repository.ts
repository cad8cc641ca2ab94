import type { Executor } from '../../db/stores.js';
import type { ProjectMembersTable, ProjectsTable } from '../../db/schema.js';
import { likePrefix } from '../../db/sql-helpers.js';
import { PreparedQuery } from '../../db/prepared-query.js';

export type ProjectRow = ProjectsTable;
export type ProjectMemberRow = ProjectMembersTable;

// The queries of every authorization check, compiled once (db/prepared-query.ts).
const projectById = new PreparedQuery((db, id: string) => db.selectFrom('projects').selectAll().where('id', '=', id));
const membersOf = new PreparedQuery((db, projectId: string) =>
  db.selectFrom('projectMembers').selectAll().where('projectId', '=', projectId).orderBy('memberId'),
);
const grantsToMembers = new PreparedQuery((db, projectId: string, memberIds: readonly string[]) =>
  db.selectFrom('projectMembers').selectAll().where('projectId', '=', projectId).where('memberId', 'in', memberIds),
);

/** Projects and containers, their members and their folders. */
export class ProjectsRepository {
  constructor(private readonly db: Executor) {}

  /** A new container holds nothing yet: its closed bytes start at 0. */
  async insert(row: Omit<ProjectRow, 'closedBytes'>): Promise<void> {
    await this.db
      .insertInto('projects')
      .values({ ...row, closedBytes: 0 })
      .execute();
    await this.db.insertInto('folders').values({ projectId: row.id, path: '/' }).execute();
  }

  findById(id: string): Promise<ProjectRow | undefined> {
    return projectById.first(this.db, id);
  }

  findByIds(ids: readonly string[]): Promise<ProjectRow[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.db.selectFrom('projects').selectAll().where('id', 'in', ids).execute();
  }

  async update(id: string, patch: Partial<ProjectRow>): Promise<void> {
    await this.db.updateTable('projects').set(patch).where('id', '=', id).execute();
  }

  /** Removes the container row, its members and its folders (objects are removed by the objects repository). */
  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('projectMembers').where('projectId', '=', id).execute();
    await this.db.deleteFrom('folders').where('projectId', '=', id).execute();
    await this.db.deleteFrom('projects').where('id', '=', id).execute();
  }

  // ---- members ----

  listMembers(projectId: string): Promise<ProjectMemberRow[]> {
    return membersOf.execute(this.db, projectId);
  }

  /** Explicit grants to any of `memberIds` (a user and their orgs) on one project. */
  grantsTo(projectId: string, memberIds: readonly string[]): Promise<ProjectMemberRow[]> {
    return grantsToMembers.execute(this.db, projectId, memberIds.length ? memberIds : ['']);
  }

  /** Every grant to any of `memberIds`, across projects. */
  allGrantsTo(memberIds: readonly string[]): Promise<ProjectMemberRow[]> {
    return this.db
      .selectFrom('projectMembers')
      .selectAll()
      .where('memberId', 'in', memberIds.length ? memberIds : [''])
      .execute();
  }

  idsBilledTo(billTo: readonly string[]): Promise<string[]> {
    if (!billTo.length) return Promise.resolve([]);
    return this.db
      .selectFrom('projects')
      .select('id')
      .where('billTo', 'in', billTo)
      .where('class', '=', 'project')
      .execute()
      .then((rows) => rows.map((row) => row.id));
  }

  async setMember(row: ProjectMemberRow): Promise<void> {
    await this.db
      .insertInto('projectMembers')
      .values(row)
      .onConflict((oc) => oc.columns(['projectId', 'memberId']).doUpdateSet({ level: row.level }))
      .execute();
  }

  async removeMember(projectId: string, memberId: string): Promise<void> {
    await this.db.deleteFrom('projectMembers').where('projectId', '=', projectId).where('memberId', '=', memberId).execute();
  }

  async removeMemberEverywhere(memberId: string, projectIds: readonly string[]): Promise<void> {
    if (!projectIds.length) return;
    await this.db.deleteFrom('projectMembers').where('memberId', '=', memberId).where('projectId', 'in', projectIds).execute();
  }

  // ---- folders ----

  async folderExists(projectId: string, path: string): Promise<boolean> {
    const row = await this.db.selectFrom('folders').select('path').where('projectId', '=', projectId).where('path', '=', path).executeTakeFirst();
    return row !== undefined;
  }

  listFolders(projectId: string): Promise<string[]> {
    return this.db
      .selectFrom('folders')
      .select('path')
      .where('projectId', '=', projectId)
      .orderBy('path')
      .execute()
      .then((rows) => rows.map((row) => row.path));
  }

  /** The folder and everything below it. */
  foldersUnder(projectId: string, path: string): Promise<string[]> {
    if (path === '/') return this.listFolders(projectId);
    return this.db
      .selectFrom('folders')
      .select('path')
      .where('projectId', '=', projectId)
      .where((eb) => eb.or([eb('path', '=', path), likePrefix('path', `${path}/`)]))
      .orderBy('path')
      .execute()
      .then((rows) => rows.map((row) => row.path));
  }

  async insertFolders(projectId: string, paths: readonly string[]): Promise<void> {
    if (!paths.length) return;
    await this.db
      .insertInto('folders')
      .values(paths.map((path) => ({ projectId, path })))
      .onConflict((oc) => oc.columns(['projectId', 'path']).doNothing())
      .execute();
  }

  async deleteFolders(projectId: string, paths: readonly string[]): Promise<void> {
    for (let i = 0; i < paths.length; i += 500) {
      await this.db
        .deleteFrom('folders')
        .where('projectId', '=', projectId)
        .where('path', 'in', paths.slice(i, i + 500))
        .execute();
    }
  }
}
