import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** The better-sqlite3 surface used here (so that tests can count what is prepared). */
interface PreparingDatabase {
  prepare(sql: string): SqliteStatement;
  close(): void;
  /** Whether a transaction is open (better-sqlite3's `inTransaction`). */
  readonly inTransaction?: boolean;
}

/** What a statement that did nothing answers. */
const NOTHING_RUN = { changes: 0, lastInsertRowid: 0 } as const;

/**
 * Kysely's SQLite driver prepares every query anew; compiling the SQL costs about as much as running
 * a small query. This keeps the last `size` statements by their SQL text and reuses them (a
 * better-sqlite3 statement may run any number of times, one at a time, and SQLite re-prepares it by
 * itself after a schema change). `iterate` (streamed results) always gets a statement of its own,
 * since an open iterator keeps its statement busy.
 */
export function cachingStatements(database: PreparingDatabase, size = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => {
      cache.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      let statement = cache.get(sql);
      if (statement) {
        // Most recently used last: the first entry is the one to evict.
        cache.delete(sql);
      } else {
        statement = database.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, statement);
      const cached = statement;
      // Some failures (SQLITE_FULL, SQLITE_IOERR, ...) roll the transaction back themselves; Kysely's
      // ROLLBACK then failed with "no transaction is active", and that error replaced the one that
      // said what went wrong (a full disk answered as an internal error).
      const nothingToRollBack = sql === 'rollback' ? () => database.inTransaction === false : () => false;
      return {
        reader: cached.reader,
        all: (parameters) => cached.all(parameters),
        run: (parameters) => (nothingToRollBack() ? NOTHING_RUN : cached.run(parameters)),
        iterate: (parameters) => database.prepare(sql).iterate(parameters),
      };
    },
  };
}
