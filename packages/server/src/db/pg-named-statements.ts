import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * PostgreSQL parses and plans every unnamed statement anew. Statements that PreparedQuery runs
 * (marked with PREPARED_MARK) are sent as named prepared statements instead: each connection parses
 * and plans them once. Only those: their number is small and fixed (one per query shape), whereas
 * naming every dynamic query would grow each connection's statement list without bound.
 */
export const PREPARED_MARK = '/* prepared */ ';

/** The pool as Kysely's PostgresDialect uses it, with marked statements named. */
export function namedStatementsPool(pool: pg.Pool): { connect(): Promise<pg.PoolClient>; end(): Promise<void> } {
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (!name) {
      name = `panx_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      // Kysely calls query(text, values) for statements and query(cursor) for streams.
      const named = (first: unknown, ...rest: unknown[]) => {
        if (typeof first !== 'string' || !first.startsWith(PREPARED_MARK)) return query(first, ...rest);
        return (query({ name: nameOf(first), text: first, values: rest[0] }) as Promise<unknown>).catch((error: { code?: string }) => {
          // A migration by another server changed a table under a statement prepared here
          // ("cached plan must not change result type"): run it unprepared.
          if (error?.code === '0A000') return query(first, rest[0]);
          throw error;
        });
      };
      return Object.assign(Object.create(client) as pg.PoolClient, { query: named, release: (error?: Error | boolean) => client.release(error) });
    },
    end: () => pool.end(),
  };
}
