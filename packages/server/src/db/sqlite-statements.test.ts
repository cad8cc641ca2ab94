import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { cachingStatements } from './sqlite-statements.js';

interface Tables {
  items: { id: number; name: string };
}

describe('cachingStatements', () => {
  const open: SqliteDatabase.Database[] = [];
  afterEach(() => {
    for (const database of open.splice(0)) if (database.open) database.close();
  });

  function setup(size?: number) {
    const raw = new SqliteDatabase(':memory:');
    open.push(raw);
    const prepared: string[] = [];
    const counting = {
      prepare: (text: string) => {
        prepared.push(text);
        return raw.prepare(text);
      },
      close: () => raw.close(),
    };
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cachingStatements(counting, size) }) });
    return { raw, prepared, db };
  }

  it('prepares each SQL text once and answers the same results as fresh statements', async () => {
    const { prepared, db } = setup();
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    for (let i = 1; i <= 20; i++)
      await db
        .insertInto('items')
        .values({ id: i, name: `item ${i}` })
        .execute();
    for (let i = 1; i <= 20; i++) {
      const row = await db.selectFrom('items').selectAll().where('id', '=', i).executeTakeFirst();
      expect(row).toEqual({ id: i, name: `item ${i}` });
    }
    const update = await db.updateTable('items').set({ name: 'renamed' }).where('id', '<=', 5).executeTakeFirst();
    expect(Number(update.numUpdatedRows)).toBe(5);
    expect(await db.selectFrom('items').select('id').where('name', '=', 'renamed').execute()).toHaveLength(5);
    // create, insert, select by id, update, select by name: five texts, however many runs.
    expect(prepared).toHaveLength(5);
    await db.destroy();
  });

  it('keeps transactions working (begin, commit and rollback reuse their statements too)', async () => {
    const { db } = setup();
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('items').values({ id: 1, name: 'kept' }).execute();
    });
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('items').values({ id: 2, name: 'rolled back' }).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await db.selectFrom('items').select('name').execute()).toEqual([{ name: 'kept' }]);
    await db.destroy();
  });

  it('evicts the least recently used statement beyond its size', async () => {
    const { prepared, db } = setup(2);
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    const a = () => db.selectFrom('items').select('id').execute();
    const b = () => db.selectFrom('items').select('name').execute();
    const c = () => db.selectFrom('items').selectAll().execute();
    await a();
    await b();
    await a(); // a is now the most recent
    await c(); // evicts b
    await a();
    expect(prepared.length).toBe(4); // create, a, b, c
    await b();
    expect(prepared.length).toBe(5); // b again
  });

  it('streams a query on a statement of its own, and the cached one answers the same afterwards', async () => {
    const { prepared, db } = setup();
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    for (let i = 1; i <= 3; i++)
      await db
        .insertInto('items')
        .values({ id: i, name: `item ${i}` })
        .execute();
    const query = () => db.selectFrom('items').select('id').where('id', '>', 0);
    expect(await query().execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    const before = prepared.length;
    const seen: number[] = [];
    for await (const row of query().stream()) seen.push(row.id);
    expect(seen).toEqual([1, 2, 3]);
    expect(prepared.length).toBe(before + 1);
    expect(await query().execute()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(prepared.length).toBe(before + 1);
  });

  it('lets the error that ended a transaction through when SQLite rolled it back itself (a full database)', async () => {
    const raw = new SqliteDatabase(':memory:');
    open.push(raw);
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: cachingStatements(raw) }) });
    await sql`create table items (id integer primary key, name text not null)`.execute(db);
    // A database that may not grow: the next pages cannot be had, as on a full disk.
    raw.pragma(`max_page_count = ${raw.pragma('page_count', { simple: true })}`);
    const filling = db.transaction().execute(async (tx) => {
      for (let i = 1; i <= 10_000; i++) {
        await tx
          .insertInto('items')
          .values({ id: i, name: 'x'.repeat(2000) })
          .execute();
      }
    });
    await expect(filling).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(raw.inTransaction).toBe(false);
    // The connection is usable again, and nothing of the failed transaction was kept.
    expect(await db.selectFrom('items').selectAll().execute()).toEqual([]);
  });
});
