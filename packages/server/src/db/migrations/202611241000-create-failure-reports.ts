import type { Kysely } from 'kysely';

/** The support inbox: failure reports sent from the web app (module support; row type in support.repository.ts). */
export async function up(db: Kysely<unknown>, _dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .createTable('failureReports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('reporter', 'text', (c) => c.notNull())
    .addColumn('execution', 'text', (c) => c.notNull())
    .addColumn('executionName', 'text', (c) => c.notNull())
    .addColumn('project', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('failureReason', 'text')
    .addColumn('failureMessage', 'text')
    .addColumn('tryNumber', 'integer')
    .addColumn('message', 'text', (c) => c.notNull())
    // JSON: an array of strings, and the browser object
    .addColumn('logTail', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('failureReports_created').on('failureReports').columns(['created', 'id']).execute();
  await db.schema.createIndex('failureReports_reporter_created').on('failureReports').columns(['reporter', 'created']).execute();
  await db.schema.createIndex('failureReports_execution').on('failureReports').columns(['execution']).execute();
}
