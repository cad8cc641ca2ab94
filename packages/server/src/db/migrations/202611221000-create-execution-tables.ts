import { type Kysely, sql } from 'kysely';

/**
 * The execution engine: jobs (one row per job, its tries' history in JSON), their log lines, the
 * API servers that run them (for reconciliation), and apps (versions, per-name settings, installs).
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  const nameType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  const serial = dialect === 'postgres' ? sql`bigserial` : sql`integer`;

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('name', nameType, (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('executable', 'text', (c) => c.notNull())
    .addColumn('executableName', 'text', (c) => c.notNull())
    .addColumn('function', 'text', (c) => c.notNull())
    .addColumn('project', 'text', (c) => c.notNull())
    .addColumn('folder', 'text', (c) => c.notNull())
    .addColumn('workspace', 'text', (c) => c.notNull())
    .addColumn('rootExecution', 'text', (c) => c.notNull())
    .addColumn('originJob', 'text', (c) => c.notNull())
    .addColumn('parentJob', 'text')
    .addColumn('parentTry', 'integer')
    .addColumn('launchedBy', 'text', (c) => c.notNull())
    .addColumn('billTo', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('instanceType', 'text', (c) => c.notNull())
    .addColumn('cores', 'integer', (c) => c.notNull())
    .addColumn('memoryMB', 'integer', (c) => c.notNull())
    .addColumn('pricePerHour', 'real', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('priorityRank', 'integer', (c) => c.notNull())
    .addColumn('try', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addColumn('stateChanged', 'bigint', (c) => c.notNull())
    .addColumn('startedRunning', 'bigint')
    .addColumn('stoppedRunning', 'bigint')
    .addColumn('deadline', 'bigint')
    .addColumn('accruedPrice', 'real', (c) => c.notNull())
    .addColumn('costLimit', 'real')
    .addColumn('failureReason', 'text')
    .addColumn('failureMessage', 'text')
    .addColumn('failureFrom', 'text')
    .addColumn('tokenId', 'text')
    .addColumn('claimedBy', 'text')
    .addColumn('executorHandle', 'text')
    .addColumn('reuseKey', 'text')
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('output', 'text')
    .addColumn('outcome', 'text')
    .addColumn('stateTransitions', 'text', (c) => c.notNull())
    .addColumn('tries', 'text', (c) => c.notNull())
    .addColumn('logOffsets', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('spec', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'priorityRank', 'stateChanged']).execute();
  await db.schema.createIndex('jobs_root').on('jobs').column('rootExecution').execute();
  await db.schema.createIndex('jobs_origin').on('jobs').column('originJob').execute();
  await db.schema.createIndex('jobs_parent').on('jobs').column('parentJob').execute();
  await db.schema.createIndex('jobs_project').on('jobs').columns(['project', 'created']).execute();
  await db.schema.createIndex('jobs_launcher').on('jobs').columns(['launchedBy', 'created']).execute();
  await db.schema.createIndex('jobs_token').on('jobs').column('tokenId').execute();
  await db.schema.createIndex('jobs_reuse').on('jobs').column('reuseKey').execute();
  await db.schema.createIndex('jobs_claimed').on('jobs').column('claimedBy').execute();

  await db.schema
    .createTable('jobLogs')
    .addColumn('id', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('jobId', 'text', (c) => c.notNull())
    .addColumn('try', 'integer', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('msg', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobLogs_job').on('jobLogs').columns(['jobId', 'try', 'id']).execute();

  await db.schema
    .createTable('engineServers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('started', 'bigint', (c) => c.notNull())
    .addColumn('heartbeat', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', nameType, (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('published', 'bigint', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .addColumn('billTo', 'text', (c) => c.notNull())
    .addColumn('resources', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('spec', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('apps_name_version', ['name', 'version'])
    .execute();

  await db.schema
    .createTable('appNames')
    .addColumn('name', nameType, (c) => c.primaryKey())
    .addColumn('categories', 'text', (c) => c.notNull())
    .addColumn('authorizedUsers', 'text', (c) => c.notNull())
    .addColumn('developers', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('appInstalls')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('userId', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('appInstalls_pk', ['name', 'userId'])
    .execute();
}
