import { sql } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { FilePartsTable, ObjectCopiesTable, ObjectsTable } from '../../db/schema.js';
import { likePrefix } from '../../db/sql-helpers.js';
import type { Executor } from '../../db/stores.js';

export type ObjectRow = ObjectsTable;
export type CopyRow = ObjectCopiesTable;
export type PartRow = FilePartsTable;

/** A copy of an object in one container, joined with the object's shared state. */
export interface ObjectInContainer extends CopyRow {
  state: string;
  media: string;
  size: number | null;
  blobKey: string | null;
  uploadId: string | null;
  content: string;
  createdBy: string;
  stateChanged: number;
}

export interface ObjectQuery {
  projectIds?: readonly string[];
  classes?: readonly string[];
  state?: string;
  visibility: 'visible' | 'hidden' | 'either';
  nameExact?: string;
  namePrefix?: string;
  ids?: readonly string[];
  folder?: string;
  recurse?: boolean;
  created?: { after?: number; before?: number };
  modified?: { after?: number; before?: number };
  /** Keyset cursor: rows strictly after this (projectId, objectId). */
  after?: { projectId: string; objectId: string };
  limit: number;
}

/** Data objects (shared state) and their per-container copies (name, folder, tags, ...), plus file parts. */
export class ObjectsRepository {
  constructor(
    private readonly db: Executor,
    readonly dialect: Dialect,
  ) {}

  private joined() {
    return this.db
      .selectFrom('objectCopies as c')
      .innerJoin('objects as o', 'o.id', 'c.objectId')
      .selectAll('c')
      .select(['o.state', 'o.media', 'o.size', 'o.blobKey', 'o.uploadId', 'o.content', 'o.createdBy', 'o.stateChanged']);
  }

  async insert(object: ObjectRow, copy: CopyRow): Promise<void> {
    await this.db.insertInto('objects').values(object).execute();
    await this.db.insertInto('objectCopies').values(copy).execute();
  }

  async insertCopies(copies: readonly CopyRow[]): Promise<void> {
    for (let i = 0; i < copies.length; i += 200) {
      await this.db
        .insertInto('objectCopies')
        .values(copies.slice(i, i + 200))
        .execute();
    }
  }

  findObject(id: string): Promise<ObjectRow | undefined> {
    return this.db.selectFrom('objects').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findInContainer(projectId: string, objectId: string): Promise<ObjectInContainer | undefined> {
    return this.joined().where('c.projectId', '=', projectId).where('c.objectId', '=', objectId).executeTakeFirst();
  }

  findManyInContainer(projectId: string, objectIds: readonly string[]): Promise<ObjectInContainer[]> {
    if (!objectIds.length) return Promise.resolve([]);
    return this.joined().where('c.projectId', '=', projectId).where('c.objectId', 'in', objectIds).execute();
  }

  /** Containers holding a copy of the object. */
  containersOf(objectId: string): Promise<string[]> {
    return this.db
      .selectFrom('objectCopies')
      .select('projectId')
      .where('objectId', '=', objectId)
      .orderBy('projectId')
      .execute()
      .then((rows) => rows.map((row) => row.projectId));
  }

  async updateObject(id: string, patch: Partial<ObjectRow>): Promise<void> {
    await this.db.updateTable('objects').set(patch).where('id', '=', id).execute();
  }

  /**
   * Updates the object only while it is in state `from`; answers whether it was. On PostgreSQL the
   * row lock orders this against concurrent transitions (close against a part upload, for example).
   */
  async updateObjectInState(id: string, from: string, patch: Partial<ObjectRow>, options: { changedBefore?: number } = {}): Promise<boolean> {
    let query = this.db.updateTable('objects').set(patch).where('id', '=', id).where('state', '=', from);
    if (options.changedBefore !== undefined) query = query.where('stateChanged', '<', options.changedBefore);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async updateCopy(projectId: string, objectId: string, patch: Partial<CopyRow>): Promise<void> {
    await this.db.updateTable('objectCopies').set(patch).where('projectId', '=', projectId).where('objectId', '=', objectId).execute();
  }

  /**
   * Objects directly in one folder, ordered by id, for listFolder paging. The page of copies is cut
   * first and only its rows are joined with `objects`: joined before the LIMIT, PostgreSQL merge-joins
   * along the whole `objects` primary key up to the page (docs/benchmarks.md).
   */
  listFolder(projectId: string, folder: string, options: { includeHidden: boolean; afterId?: string; limit: number }): Promise<ObjectInContainer[]> {
    let page = this.db.selectFrom('objectCopies as c').selectAll('c').where('c.projectId', '=', projectId).where('c.folder', '=', folder);
    if (!options.includeHidden) page = page.where('c.hidden', '=', 0);
    if (options.afterId) page = page.where('c.objectId', '>', options.afterId);
    return this.db
      .selectFrom(page.orderBy('c.objectId').limit(options.limit).as('c'))
      .innerJoin('objects as o', 'o.id', 'c.objectId')
      .selectAll('c')
      .select(['o.state', 'o.media', 'o.size', 'o.blobKey', 'o.uploadId', 'o.content', 'o.createdBy', 'o.stateChanged'])
      .orderBy('c.objectId')
      .execute();
  }

  /** Ids of objects in the folder or below it (up to `limit`). */
  idsUnderFolder(projectId: string, folder: string, limit: number): Promise<string[]> {
    return this.db
      .selectFrom('objectCopies')
      .select('objectId')
      .where('projectId', '=', projectId)
      .where((eb) => (folder === '/' ? eb.val(true) : eb.or([eb('folder', '=', folder), likePrefix('folder', `${folder}/`)])))
      .limit(limit)
      .execute()
      .then((rows) => rows.map((row) => row.objectId));
  }

  async countInFolder(projectId: string, folder: string): Promise<number> {
    const row = await this.db
      .selectFrom('objectCopies')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('projectId', '=', projectId)
      .where('folder', '=', folder)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async moveToFolder(projectId: string, objectIds: readonly string[], folder: string, now: number): Promise<void> {
    for (let i = 0; i < objectIds.length; i += 500) {
      await this.db
        .updateTable('objectCopies')
        .set({ folder, modified: now })
        .where('projectId', '=', projectId)
        .where('objectId', 'in', objectIds.slice(i, i + 500))
        .execute();
    }
  }

  /** Rewrites the folder of every copy under `from` to sit under `to` instead. */
  async rebaseFolders(projectId: string, from: string, to: string): Promise<void> {
    const rows = await this.db
      .selectFrom('objectCopies')
      .select(['objectId', 'folder'])
      .where('projectId', '=', projectId)
      .where((eb) => eb.or([eb('folder', '=', from), likePrefix('folder', `${from}/`)]))
      .execute();
    for (const row of rows) {
      await this.db
        .updateTable('objectCopies')
        .set({ folder: to + row.folder.slice(from.length) })
        .where('projectId', '=', projectId)
        .where('objectId', '=', row.objectId)
        .execute();
    }
  }

  /** Removes copies; answers the object ids that no container holds any more (their bytes can go). */
  async removeCopies(projectId: string, objectIds: readonly string[]): Promise<string[]> {
    const orphans: string[] = [];
    for (let i = 0; i < objectIds.length; i += 500) {
      const batch = objectIds.slice(i, i + 500);
      await this.db.deleteFrom('objectCopies').where('projectId', '=', projectId).where('objectId', 'in', batch).execute();
      const stillHeld = new Set(
        (await this.db.selectFrom('objectCopies').select('objectId').where('objectId', 'in', batch).execute()).map((row) => row.objectId),
      );
      orphans.push(...batch.filter((id) => !stillHeld.has(id)));
    }
    return orphans;
  }

  /** Deletes objects and their parts, queueing their blobs (and open uploads) for deletion after commit. */
  async deleteObjects(objectIds: readonly string[], now: number): Promise<void> {
    for (let i = 0; i < objectIds.length; i += 500) {
      const batch = objectIds.slice(i, i + 500);
      const rows = await this.db.selectFrom('objects').select(['id', 'blobKey', 'uploadId']).where('id', 'in', batch).execute();
      const deletions = rows.filter((row) => row.blobKey !== null).map((row) => ({ blobKey: row.blobKey as string, uploadOf: row.uploadId, created: now }));
      if (deletions.length) await this.db.insertInto('blobDeletions').values(deletions).execute();
      await this.db.deleteFrom('fileParts').where('fileId', 'in', batch).execute();
      await this.db.deleteFrom('objects').where('id', 'in', batch).execute();
    }
  }

  /** All copies in a container, for removing a whole project. */
  async removeAllCopies(projectId: string): Promise<string[]> {
    const ids = (await this.db.selectFrom('objectCopies').select('objectId').where('projectId', '=', projectId).execute()).map((row) => row.objectId);
    return this.removeCopies(projectId, ids);
  }

  /**
   * Keyset-paged search ordered by (projectId, objectId), in two steps (docs/benchmarks.md): the keys
   * of the page first, from an index where one fits (objectCopies_name_hidden_object covers a name
   * glob), then the rows of those keys only. Joining `objects` to every candidate before sorting
   * them cost 10-100× on a project of a million objects.
   */
  find(query: ObjectQuery): Promise<ObjectInContainer[]> {
    let q = this.db.selectFrom('objectCopies as c').select(['c.projectId', 'c.objectId']).orderBy('c.projectId').orderBy('c.objectId').limit(query.limit);
    if (query.projectIds) q = q.where('c.projectId', 'in', query.projectIds.length ? query.projectIds : ['']);
    if (query.classes) q = q.where('c.class', 'in', query.classes);
    if (query.state) {
      const state = query.state;
      q = q.where((eb) => eb.exists(eb.selectFrom('objects as o').select('o.id').whereRef('o.id', '=', 'c.objectId').where('o.state', '=', state)));
    }
    if (query.visibility === 'visible') q = q.where('c.hidden', '=', 0);
    if (query.visibility === 'hidden') q = q.where('c.hidden', '=', 1);
    if (query.nameExact !== undefined) q = q.where('c.name', '=', query.nameExact);
    if (query.namePrefix) q = q.where(likePrefix('c.name', query.namePrefix));
    if (query.ids) q = q.where('c.objectId', 'in', query.ids.length ? query.ids : ['']);
    if (query.folder !== undefined) {
      const folder = query.folder;
      if (!query.recurse) q = q.where('c.folder', '=', folder);
      else if (folder !== '/') q = q.where((eb) => eb.or([eb('c.folder', '=', folder), likePrefix('c.folder', `${folder}/`)]));
    }
    if (query.created?.after !== undefined) q = q.where('c.created', '>=', query.created.after);
    if (query.created?.before !== undefined) q = q.where('c.created', '<=', query.created.before);
    if (query.modified?.after !== undefined) q = q.where('c.modified', '>=', query.modified.after);
    if (query.modified?.before !== undefined) q = q.where('c.modified', '<=', query.modified.before);
    if (query.after) {
      const { projectId, objectId } = query.after;
      const only = query.projectIds?.length === 1 ? query.projectIds[0] : undefined;
      if (only === projectId && query.namePrefix) {
        // The name index drives a glob and the cursor only filters its matches. Written so that it
        // cannot be an index range: SQLite (no statistics) would otherwise walk the primary key from
        // the cursor to the end of the project, testing every name.
        q = q.where(sql<string>`${sql.ref('c.objectId')} || ''`, '>', objectId);
      } else if (only === projectId) {
        // Within one project the cursor is a range on the primary key; the OR below is not (PostgreSQL
        // then reads the project from its first copy on every page).
        q = q.where('c.objectId', '>', objectId);
      } else if (only !== undefined) {
        q = q.where('c.projectId', '>', projectId);
      } else {
        q = q.where((eb) => eb.or([eb('c.projectId', '>', projectId), eb.and([eb('c.projectId', '=', projectId), eb('c.objectId', '>', objectId)])]));
      }
    }
    const keys = q.as('k');
    return this.db
      .selectFrom(keys)
      .innerJoin('objectCopies as c', (join) => join.onRef('c.projectId', '=', 'k.projectId').onRef('c.objectId', '=', 'k.objectId'))
      .innerJoin('objects as o', 'o.id', 'c.objectId')
      .selectAll('c')
      .select(['o.state', 'o.media', 'o.size', 'o.blobKey', 'o.uploadId', 'o.content', 'o.createdBy', 'o.stateChanged'])
      .orderBy('c.projectId')
      .orderBy('c.objectId')
      .execute();
  }

  /** Bytes of closed files in a container. */
  async dataUsage(projectId: string): Promise<number> {
    const row = await this.db
      .selectFrom('objectCopies as c')
      .innerJoin('objects as o', 'o.id', 'c.objectId')
      .select((eb) => eb.fn.sum<number>('o.size').as('bytes'))
      .where('c.projectId', '=', projectId)
      .where('o.state', '=', 'closed')
      .executeTakeFirst();
    return Number(row?.bytes ?? 0);
  }

  // ---- file parts ----

  async upsertPart(row: PartRow): Promise<void> {
    await this.db
      .insertInto('fileParts')
      .values(row)
      .onConflict((oc) => oc.columns(['fileId', 'partIndex']).doUpdateSet({ size: row.size, md5: row.md5, partRef: row.partRef, created: row.created }))
      .execute();
  }

  listParts(fileId: string): Promise<PartRow[]> {
    return this.db.selectFrom('fileParts').selectAll().where('fileId', '=', fileId).orderBy('partIndex').execute();
  }

  async deleteParts(fileId: string): Promise<void> {
    await this.db.deleteFrom('fileParts').where('fileId', '=', fileId).execute();
  }

  /** Objects of a class in a state since before `before` (open uploads to abandon, closings to resume). */
  listInState(cls: string, state: string, before: number): Promise<ObjectRow[]> {
    return this.db
      .selectFrom('objects')
      .selectAll()
      .where('class', '=', cls)
      .where('state', '=', state)
      .where('stateChanged', '<', before)
      .limit(1000)
      .execute();
  }

  // ---- blob deletions ----

  listBlobDeletions(limit: number, afterId = 0): Promise<{ id: number; blobKey: string; uploadOf: string | null }[]> {
    return this.db.selectFrom('blobDeletions').select(['id', 'blobKey', 'uploadOf']).where('id', '>', afterId).orderBy('id').limit(limit).execute();
  }

  /** Queues one blob (or, with `uploadOf`, an upload) for deletion by the garbage collector. */
  async queueBlobDeletion(blobKey: string, uploadOf: string | null, now: number): Promise<void> {
    await this.db.insertInto('blobDeletions').values({ blobKey, uploadOf, created: now }).execute();
  }

  async removeBlobDeletion(id: number): Promise<void> {
    await this.db.deleteFrom('blobDeletions').where('id', '=', id).execute();
  }
}
