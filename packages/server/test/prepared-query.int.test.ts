/**
 * Prepared queries (src/db/prepared-query.ts: compiled once, run with new values) answer exactly
 * what the same query built anew answers, on each database: one template per `in` list length,
 * constants kept, no value of an earlier call leaking into a later one.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import { PREPARED_MARK } from '../src/db/pg-named-statements.js';
import { PreparedQuery } from '../src/db/prepared-query.js';
import type { Executor } from '../src/db/stores.js';
import { BACKENDS, startTestPlatform, type TestPlatform } from './harness.js';

describe.each(BACKENDS)('prepared queries on $name', (backend) => {
  let t: TestPlatform;
  let db: Executor;
  let handle: DatabaseHandle | undefined;
  const projects: string[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    // A connection of the test's own to the platform's database.
    handle = openDatabase({ databaseUrl: t.platform.config.databaseUrl, sqlitePath: t.platform.config.sqlitePath });
    db = handle.db;
    for (const name of ['alpha', 'beta', 'gamma']) projects.push((await t.admin.call('project/new', { name })).id);
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
    await t?.close();
  });

  const byId = new PreparedQuery((db: Executor, id: string) => db.selectFrom('projects').select(['id', 'name']).where('id', '=', id));
  const byIds = new PreparedQuery((db: Executor, ids: readonly string[], name: string) =>
    db.selectFrom('projects').select(['id', 'name']).where('id', 'in', ids).where('name', '!=', name).where('class', '=', 'project').orderBy('name'),
  );

  it('answers each call with its own values, as the query built anew does', async () => {
    for (const [index, id] of projects.entries()) {
      expect(await byId.first(db, id)).toEqual({ id, name: ['alpha', 'beta', 'gamma'][index] });
      expect(await byId.first(db, id)).toEqual(await db.selectFrom('projects').select(['id', 'name']).where('id', '=', id).executeTakeFirst());
    }
    expect(await byId.first(db, 'project-000000000000000000000000')).toBeUndefined();
  });

  it('compiles one template per in-list length and keeps the constants', async () => {
    const [a, b, c] = projects as [string, string, string];
    expect((await byIds.execute(db, [a], 'none')).map((row) => row.name)).toEqual(['alpha']);
    expect((await byIds.execute(db, [a, b, c], 'beta')).map((row) => row.name)).toEqual(['alpha', 'gamma']);
    expect((await byIds.execute(db, [c, b], 'none')).map((row) => row.name)).toEqual(['beta', 'gamma']);
    expect((await byIds.execute(db, [b], 'beta')).map((row) => row.name)).toEqual([]);
    expect(await byIds.execute(db, [a, b, c], 'gamma')).toEqual(
      await db
        .selectFrom('projects')
        .select(['id', 'name'])
        .where('id', 'in', [a, b, c])
        .where('name', '!=', 'gamma')
        .where('class', '=', 'project')
        .orderBy('name')
        .execute(),
    );
  });

  it('runs inside a transaction on its connection', async () => {
    const [a] = projects as [string];
    const seen = await db.transaction().execute(async (tx) => {
      await tx.updateTable('projects').set({ name: 'renamed in tx' }).where('id', '=', a).execute();
      return byId.first(tx, a);
    });
    expect(seen?.name).toBe('renamed in tx');
  });

  it.runIf(backend.db === 'postgres')('is a named prepared statement on PostgreSQL, and survives a table changed under it', async () => {
    const [a] = projects as [string];
    await db.connection().execute(async (connection) => {
      await byId.first(connection, a);
      const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(connection);
      expect(rows.some((row) => row.name.startsWith('panx_'))).toBe(true);

      await sql`create temporary table prep_probe (id text)`.execute(connection);
      await sql`insert into prep_probe values ('x')`.execute(connection);
      const probe = CompiledQuery.raw(`${PREPARED_MARK}select * from prep_probe`, []);
      expect((await connection.executeQuery(probe)).rows).toEqual([{ id: 'x' }]);
      // Another server's migration adds a column: the plan prepared here no longer fits.
      await sql`alter table prep_probe add column extra text default 'y'`.execute(connection);
      expect((await connection.executeQuery(probe)).rows).toEqual([{ id: 'x', extra: 'y' }]);
    });
  });
});
