import { sql } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { FilePartsTable, ObjectCopiesTable, ObjectsTable } from '../../db/schema.js';
import { likeGlob, likePrefix } from '../../db/sql-helpers.js';
import type { Executor } from '../../db/stores.js';
import { PreparedQuery } from '../../db/prepared-query.js';

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
  /** A glob with wildcards, tested by the database as well (its literal prefix is `namePrefix`). */
  nameGlob?: string;
  ids?: readonly string[];
  folder?: string;
  recurse?: boolean;
  created?: { after?: number; before?: number };
  modified?: { after?: number; before?: number };
  /** Keyset cursor: rows strictly after this (projectId, objectId). */
  after?: { projectId: string; objectId: string };
  limit: number;
}

const joinedCopies = (db: Executor) =>
  db
    .selectFrom('objectCopies as c')
    .innerJoin('objects as o', 'o.id', 'c.objectId')
    .selectAll('c')
    .select(['o.state', 'o.media', 'o.size', 'o.blobKey', 'o.uploadId', 'o.content', 'o.createdBy', 'o.stateChanged']);

// The queries of every describe, compiled once (db/prepared-query.ts).
const objectById = new PreparedQuery((db, id: string) => db.selectFrom('objects').selectAll().where('id', '=', id));
const copyInContainer = new PreparedQuery((db, projectId: string, objectId: string) =>
  joinedCopies(db).where('c.projectId', '=', projectId).where('c.objectId', '=', objectId),
);
const containersHolding = new PreparedQuery((db, objectId: string) =>
  db.selectFrom('objectCopies').select('projectId').where('objectId', '=', objectId).orderBy('projectId'),
);
const closedBytes = new PreparedQuery((db, projectId: string) =>
  db
    .selectFrom('objectCopies as c')
    .innerJoin('objects as o', 'o.id', 'c.objectId')
    .select((eb) => eb.fn.sum<number>('o.size').as('bytes'))
    .where('c.projectId', '=', projectId)
    .where('o.state', '=', 'closed'),
);
const partsOf = new PreparedQuery((db, fileId: string) => db.selectFrom('fileParts').selectAll().where('fileId', '=', fileId).orderBy('partIndex'));

/** How far a glob reads along the primary key on SQLite before it scans the name index (ObjectsRepository.sqliteWalk). */
export interface WalkPlan {
  /** Rows of the first walk. */
  first: number;
  /** At most this many rows more, when the first walk's matches predict the page within them. */
  second: number;
}

/** The SQLite walk plans; tests pass small ones to reach every branch with few objects. */
export interface FindOptions {
  prefixlessWalk?: WalkPlan;
  widePrefixWalk?: WalkPlan;
  /** Name-index matches from which a prefix counts as wide. */
  widePrefixMatches?: number;
}

export type FoundName = { projectId: string; objectId: string; name: string };

// Walking costs about 2.7 µs a row (the name is read from the table), the name index about 0.25 µs a
// match plus the sort; on a loaded 2-core machine 10,000 rows walk in about 30 ms.
const PREFIXLESS_WALK: WalkPlan = { first: 10_000, second: 20_000 };
// A prefix with 50,000 matches or more costs at least 12 ms by the name index, more as it is wider; it
// is walked on when its first 1,000 rows predict the page within 10,000 more (15 % of the names match).
const WIDE_PREFIX_MATCHES = 50_000;
const WIDE_PREFIX_WALK: WalkPlan = { first: 1_000, second: 10_000 };

/** What an object adds to its containers' closed bytes. */
const contribution = (object: { state: string; size: number | null }): number => (object.state === 'closed' ? Number(object.size ?? 0) : 0);

/** Data objects (shared state) and their per-container copies (name, folder, tags, ...), plus file parts. */
export class ObjectsRepository {
  constructor(
    private readonly db: Executor,
    readonly dialect: Dialect,
  ) {}

  private joined() {
    return joinedCopies(this.db);
  }

  async insert(object: ObjectRow, copy: CopyRow): Promise<void> {
    return this.atomically((repo) => repo.insertNow(object, copy));
  }

  private async insertNow(object: ObjectRow, copy: CopyRow): Promise<void> {
    await this.db.insertInto('objects').values(object).execute();
    await this.db.insertInto('objectCopies').values(copy).execute();
    await this.addClosedBytes([copy.projectId], contribution(object));
  }

  async insertCopies(copies: readonly CopyRow[]): Promise<void> {
    return this.atomically((repo) => repo.insertCopiesNow(copies));
  }

  private async insertCopiesNow(copies: readonly CopyRow[]): Promise<void> {
    for (let i = 0; i < copies.length; i += 200) {
      const batch = copies.slice(i, i + 200);
      await this.db.insertInto('objectCopies').values(batch).execute();
      // The closed files among them now count in their new containers too.
      const byProject = new Map<string, string[]>();
      for (const copy of batch) byProject.set(copy.projectId, [...(byProject.get(copy.projectId) ?? []), copy.objectId]);
      for (const [projectId, objectIds] of byProject) await this.addClosedBytes([projectId], await this.closedBytesOf(objectIds));
    }
  }

  // ---- closed bytes per container (projects.closedBytes, a project's dataUsage) ----
  // Every change to copies, or to a file's state or size, adjusts the counters of the containers
  // concerned by what it changed (rows inserted, deleted or moved from one state to another), so
  // that concurrent changes add up instead of overwriting each other.

  /**
   * A change and its counter updates as one transaction (the caller's, when it has one). SQLite runs
   * transactions one at a time; on PostgreSQL the states are read FOR SHARE (closedBytesOf) against
   * the row lock of a state change, so a copy added or removed while its file closes counts once.
   */
  private atomically<T>(change: (repo: ObjectsRepository) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return change(this);
    return this.db.transaction().execute((tx) => change(new ObjectsRepository(tx, this.dialect)));
  }

  /** Bytes of the closed objects among these (their rows held FOR SHARE on PostgreSQL). */
  private async closedBytesOf(objectIds: readonly string[]): Promise<number> {
    if (!objectIds.length) return 0;
    let ids = this.db.selectFrom('objects').select(['id', 'state', 'size']).where('id', 'in', objectIds);
    if (this.dialect === 'postgres') ids = ids.forShare();
    let bytes = 0;
    for (const row of await ids.execute()) bytes += contribution(row);
    return bytes;
  }

  private async addClosedBytes(projectIds: readonly string[], bytes: number): Promise<void> {
    if (!bytes || !projectIds.length) return;
    await this.db
      .updateTable('projects')
      .set((eb) => ({ closedBytes: eb('closedBytes', '+', bytes) }))
      .where('id', 'in', projectIds)
      .execute();
  }

  /** A change of an object's state or size: its containers' counters follow (before → after). */
  private async objectChanged(id: string, before: number, after: number): Promise<void> {
    if (before === after) return;
    await this.addClosedBytes(await this.containersOf(id), after - before);
  }

  /** The bytes of closed files in a container, summed from its copies (checks; describe reads the counter). */
  async sumClosedBytes(projectId: string): Promise<number> {
    const row = await closedBytes.first(this.db, projectId);
    return Number(row?.bytes ?? 0);
  }

  findObject(id: string): Promise<ObjectRow | undefined> {
    return objectById.first(this.db, id);
  }

  findInContainer(projectId: string, objectId: string): Promise<ObjectInContainer | undefined> {
    return copyInContainer.first(this.db, projectId, objectId);
  }

  findManyInContainer(projectId: string, objectIds: readonly string[]): Promise<ObjectInContainer[]> {
    if (!objectIds.length) return Promise.resolve([]);
    return this.joined().where('c.projectId', '=', projectId).where('c.objectId', 'in', objectIds).execute();
  }

  /**
   * Which of these objects still have a copy in the container, their copies held (FOR SHARE on
   * PostgreSQL) until the transaction ends, so that a concurrent removal cannot delete them meanwhile.
   */
  async holdCopies(projectId: string, objectIds: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (let i = 0; i < objectIds.length; i += 500) {
      let query = this.db
        .selectFrom('objectCopies')
        .select('objectId')
        .where('projectId', '=', projectId)
        .where('objectId', 'in', objectIds.slice(i, i + 500));
      if (this.dialect === 'postgres') query = query.forShare();
      for (const row of await query.execute()) held.add(row.objectId);
    }
    return held;
  }

  /** Containers holding a copy of the object. */
  containersOf(objectId: string): Promise<string[]> {
    return containersHolding.execute(this.db, objectId).then((rows) => rows.map((row) => row.projectId));
  }

  async updateObject(id: string, patch: Partial<ObjectRow>): Promise<void> {
    return this.atomically((repo) => repo.updateObjectNow(id, patch));
  }

  private async updateObjectNow(id: string, patch: Partial<ObjectRow>): Promise<void> {
    if (patch.state === undefined && patch.size === undefined) {
      await this.db.updateTable('objects').set(patch).where('id', '=', id).execute();
      return;
    }
    const before = await this.db.selectFrom('objects').select(['state', 'size']).where('id', '=', id).executeTakeFirst();
    await this.db.updateTable('objects').set(patch).where('id', '=', id).execute();
    if (before) await this.objectChanged(id, contribution(before), contribution({ state: patch.state ?? before.state, size: patch.size ?? before.size }));
  }

  /**
   * Updates the object only while it is in state `from`; answers whether it was. On PostgreSQL the
   * row lock orders this against concurrent transitions (close against a part upload, for example).
   */
  async updateObjectInState(id: string, from: string, patch: Partial<ObjectRow>, options: { changedBefore?: number } = {}): Promise<boolean> {
    return this.atomically((repo) => repo.updateObjectInStateNow(id, from, patch, options));
  }

  private async updateObjectInStateNow(id: string, from: string, patch: Partial<ObjectRow>, options: { changedBefore?: number } = {}): Promise<boolean> {
    const tracked = patch.state !== undefined || patch.size !== undefined;
    // Closed is final in practice; a file leaving it (or changing size in it) is read first.
    const before =
      tracked && from === 'closed' ? await this.db.selectFrom('objects').select(['state', 'size']).where('id', '=', id).executeTakeFirst() : undefined;
    let query = this.db.updateTable('objects').set(patch).where('id', '=', id).where('state', '=', from);
    if (options.changedBefore !== undefined) query = query.where('stateChanged', '<', options.changedBefore);
    const result = await query.executeTakeFirst();
    const updated = Number(result.numUpdatedRows) > 0;
    if (updated && tracked) {
      const after = await this.db.selectFrom('objects').select(['state', 'size']).where('id', '=', id).executeTakeFirst();
      if (after) await this.objectChanged(id, before ? contribution(before) : 0, contribution(after));
    }
    return updated;
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

  /**
   * The ids alone of a `listFolder` page (a listing without describe): read from the folder index
   * (projectId, folder, objectId), with no `objects` row and no JSON column to fetch and convert.
   */
  async listFolderIds(projectId: string, folder: string, options: { includeHidden: boolean; afterId?: string; limit: number }): Promise<string[]> {
    let page = this.db.selectFrom('objectCopies').select('objectId').where('projectId', '=', projectId).where('folder', '=', folder);
    if (!options.includeHidden) page = page.where('hidden', '=', 0);
    if (options.afterId) page = page.where('objectId', '>', options.afterId);
    const rows = await page.orderBy('objectId').limit(options.limit).execute();
    return rows.map((row) => row.objectId);
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
    return this.atomically((repo) => repo.removeCopiesNow(projectId, objectIds));
  }

  private async removeCopiesNow(projectId: string, objectIds: readonly string[]): Promise<string[]> {
    const orphans: string[] = [];
    for (let i = 0; i < objectIds.length; i += 500) {
      const batch = objectIds.slice(i, i + 500);
      // What was really deleted counts (a concurrent removal of the same copies subtracts nothing twice).
      const removed = await this.db
        .deleteFrom('objectCopies')
        .where('projectId', '=', projectId)
        .where('objectId', 'in', batch)
        .returning('objectId')
        .execute();
      await this.addClosedBytes([projectId], -(await this.closedBytesOf(removed.map((row) => row.objectId))));
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
  async find(query: ObjectQuery, options: FindOptions = {}): Promise<ObjectInContainer[]> {
    const walk = await this.sqliteWalk(query, options);
    if (walk) {
      const ids = (await this.walkThenScan(query, walk)).map((key) => key.objectId);
      if (!ids.length) return [];
      return this.joined()
        .where('c.projectId', '=', query.projectIds?.[0] ?? '')
        .where('c.objectId', 'in', ids)
        .orderBy('c.objectId')
        .execute();
    }
    const keys = this.findKeysQuery(query).as('k');
    // Ordered by the keys' columns (the same values): SQLite then keeps the order of the page of keys
    // instead of sorting the joined rows again in a temporary b-tree.
    return this.db
      .selectFrom(keys)
      .innerJoin('objectCopies as c', (join) => join.onRef('c.projectId', '=', 'k.projectId').onRef('c.objectId', '=', 'k.objectId'))
      .innerJoin('objects as o', 'o.id', 'c.objectId')
      .selectAll('c')
      .select(['o.state', 'o.media', 'o.size', 'o.blobKey', 'o.uploadId', 'o.content', 'o.createdBy', 'o.stateChanged'])
      .orderBy('k.projectId')
      .orderBy('k.objectId')
      .execute();
  }

  /**
   * The first step of `find` alone, with the names: for searches that need nothing else of a row (no
   * describe, no tag or property test). A name glob is then answered from the name index alone; the
   * rows of a 1,000-result page cost several times more than finding them (docs/benchmarks.md).
   */
  async findNames(query: ObjectQuery, options: FindOptions = {}): Promise<FoundName[]> {
    const walk = await this.sqliteWalk(query, options);
    if (walk) return this.walkThenScan(query, walk);
    return this.findKeysQuery(query).select('c.name').execute();
  }

  /**
   * SQLite has no statistics, so it drives a glob with a literal prefix by the name index (sorting all
   * its matches by id) and one without by the primary key (testing every name in id order until the
   * page is full). Each is slow where the other is fast: `sample_*` matching every name sorts a million
   * of them (0.2 s) where the key finds the page in its first rows; `*_999999.bam` matching one name
   * walks the whole key (4 s) where a scan of the covering name index takes 0.2 s. A glob without a
   * prefix, or with a prefix matching many names (counted up to a cap), therefore walks the key for a
   * bounded number of rows, then scans the name index for the rest of the page (walkThenScan).
   */
  private async sqliteWalk(query: ObjectQuery, options: FindOptions): Promise<WalkPlan | undefined> {
    const only = query.projectIds?.length === 1 ? query.projectIds[0] : undefined;
    if (this.dialect !== 'sqlite' || only === undefined || query.nameGlob === undefined || query.ids !== undefined) return undefined;
    if (query.after !== undefined && query.after.projectId !== only) return undefined;
    if (!query.namePrefix) return options.prefixlessWalk ?? PREFIXLESS_WALK;
    const cap = options.widePrefixMatches ?? WIDE_PREFIX_MATCHES;
    const counted = await this.db
      .selectFrom(
        this.findKeysQuery({ ...query, limit: cap })
          .clearOrderBy()
          .as('m'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('matches'))
      .executeTakeFirst();
    return Number(counted?.matches ?? 0) >= cap ? (options.widePrefixWalk ?? WIDE_PREFIX_WALK) : undefined;
  }

  private async walkThenScan(query: ObjectQuery, plan: WalkPlan): Promise<FoundName[]> {
    const only = query.projectIds?.[0] ?? '';
    const found: FoundName[] = [];
    let from = query.after?.objectId;
    let rows = plan.first;
    // The first walk; when it found too few matches but enough to predict the page within `second`
    // rows, a second walk of that length (a glob matching 5-10 % of the names then skips the scan).
    // Then the scan, from where the walks ended.
    for (let walk = 0; walk < 2 && rows > 0; walk++) {
      const bound = await this.idAhead(only, from, rows);
      const walked = await this.findKeysQuery(
        { ...query, ...(from === undefined ? {} : { after: { projectId: only, objectId: from } }), limit: query.limit - found.length },
        { byKey: true, upTo: bound },
      )
        .select('c.name')
        .execute();
      found.push(...walked);
      if (bound === undefined || found.length >= query.limit) return found;
      from = bound;
      const predicted = walked.length ? Math.ceil((1.5 * (query.limit - found.length) * rows) / walked.length) : Number.POSITIVE_INFINITY;
      rows = predicted <= plan.second ? predicted : 0;
    }
    const rest = await this.findKeysQuery({ ...query, after: { projectId: only, objectId: from ?? '' }, limit: query.limit - found.length }, { byName: true })
      .select('c.name')
      .execute();
    return [...found, ...rest];
  }

  /** The id `rows` rows after `from` in the project, from the key's index alone; none when fewer remain. */
  private async idAhead(projectId: string, from: string | undefined, rows: number): Promise<string | undefined> {
    let ahead = this.db.selectFrom('objectCopies').select('objectId').where('projectId', '=', projectId);
    if (from !== undefined) ahead = ahead.where('objectId', '>', from);
    const row = await ahead
      .orderBy('objectId')
      .limit(1)
      .offset(rows - 1)
      .executeTakeFirst();
    return row?.objectId;
  }

  /**
   * The keys query of `find`. For SQLite's two plans of a glob: `byKey` keeps it off the name index
   * (the name test written as `+name`, which no index serves) and `upTo` bounds the walk along the
   * primary key; `byName` keeps it off the primary key (cursor and order written as `objectId || ''`,
   * the same order), so that it reads the covering name index and sorts the matches.
   */
  private findKeysQuery(query: ObjectQuery, shape: { byKey?: boolean; upTo?: string; byName?: boolean } = {}) {
    let q = this.db
      .selectFrom('objectCopies as c')
      .select(['c.projectId', 'c.objectId'])
      .orderBy('c.projectId')
      .orderBy(shape.byName ? sql<string>`${sql.ref('c.objectId')} || ''` : sql.ref('c.objectId'))
      .limit(query.limit);
    if (query.projectIds) q = q.where('c.projectId', 'in', query.projectIds.length ? query.projectIds : ['']);
    if (shape.upTo !== undefined) q = q.where('c.objectId', '<=', shape.upTo);
    if (query.classes) q = q.where('c.class', 'in', query.classes);
    if (query.state) {
      const state = query.state;
      q = q.where((eb) => eb.exists(eb.selectFrom('objects as o').select('o.id').whereRef('o.id', '=', 'c.objectId').where('o.state', '=', state)));
    }
    if (query.visibility === 'visible') q = q.where('c.hidden', '=', 0);
    if (query.visibility === 'hidden') q = q.where('c.hidden', '=', 1);
    if (query.nameExact !== undefined) q = q.where('c.name', '=', query.nameExact);
    if (query.nameGlob !== undefined) q = q.where(likeGlob(shape.byKey ? sql`+${sql.ref('c.name')}` : sql.ref('c.name'), query.nameGlob));
    else if (query.namePrefix) q = q.where(likePrefix('c.name', query.namePrefix));
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
      if (only === projectId && ((query.namePrefix && !shape.byKey) || shape.byName)) {
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
    return q;
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
    return partsOf.execute(this.db, fileId);
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
