import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import * as createCoreTables from './migrations/202611211100-create-core-tables.js';
import * as createExecutionTables from './migrations/202611221000-create-execution-tables.js';
import * as findByNameIndex from './migrations/202611221200-find-by-name-index.js';
import * as createAccountTables from './migrations/202611231000-create-account-tables.js';
import * as createFailureReports from './migrations/202611241000-create-failure-reports.js';
import * as otpLastStep from './migrations/202611251000-otp-last-step.js';
import * as projectClosedBytes from './migrations/202611261000-project-closed-bytes.js';
import type { Database } from './schema.js';
import { cachingStatements } from './sqlite-statements.js';
import { namedStatementsPool } from './pg-named-statements.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

interface Migration {
  name: string;
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Every migration, in order. One set serves both dialects; a migration branches on `dialect` where they differ. */
const MIGRATIONS: Migration[] = [
  { name: '202611211100-create-core-tables', up: createCoreTables.up },
  { name: '202611221000-create-execution-tables', up: createExecutionTables.up },
  { name: '202611221200-find-by-name-index', up: findByNameIndex.up },
  { name: '202611231000-create-account-tables', up: createAccountTables.up },
  { name: '202611241000-create-failure-reports', up: createFailureReports.up },
  { name: '202611251000-otp-last-step', up: otpLastStep.up },
  { name: '202611261000-project-closed-bytes', up: projectClosedBytes.up },
];

// PostgreSQL answers int8 and numeric as strings; every such column here holds ms timestamps or byte counts.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
pg.types.setTypeParser(1700, (value) => Number.parseFloat(value));

export function openDatabase(options: { databaseUrl?: string; sqlitePath: string; onPoolError?: (error: Error) => void }): DatabaseHandle {
  if (options.databaseUrl?.startsWith('postgres')) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 16 });
    // An idle connection dropped by the server (restart, failover, admin termination) must not crash
    // the process: the pool opens a new one on next use, and queries in flight fail on their own.
    pool.on('error', (error) => options.onPoolError?.(error));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namedStatementsPool(pool) }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(path.dirname(options.sqlitePath), { recursive: true });
  const sqlite = new SqliteDatabase(options.sqlitePath);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL keeps WAL commits durable across process crashes (only an OS crash can lose the last ones).
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Case-sensitive LIKE matches DNAnexus name semantics and lets prefix globs use the name index.
  sqlite.pragma('case_sensitive_like = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** Applies pending migrations, each in its own transaction; safe to call on every start. */
export async function migrate(handle: DatabaseHandle): Promise<string[]> {
  const { db, dialect } = handle;
  if (dialect === 'postgres') {
    // Several API servers may start together: one migrates while the others wait on this lock.
    return db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(727379)`.execute(connection);
      try {
        return await applyMigrations({ ...handle, db: connection as Kysely<Database> });
      } finally {
        await sql`select pg_advisory_unlock(727379)`.execute(connection);
      }
    });
  }
  return applyMigrations(handle);
}

async function applyMigrations(handle: DatabaseHandle): Promise<string[]> {
  const { db, dialect } = handle;
  await sql`create table if not exists "panxMigrations" ("name" text primary key, "appliedAt" bigint not null)`.execute(db);
  const applied = new Set((await sql<{ name: string }>`select "name" from "panxMigrations"`.execute(db)).rows.map((row) => row.name));
  const ran: string[] = [];
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.name)) continue;
    await db.transaction().execute(async (trx) => {
      await migration.up(trx as unknown as Kysely<unknown>, dialect);
      await sql`insert into "panxMigrations" ("name", "appliedAt") values (${migration.name}, ${Date.now()})`.execute(trx);
    });
    ran.push(migration.name);
  }
  return ran;
}
