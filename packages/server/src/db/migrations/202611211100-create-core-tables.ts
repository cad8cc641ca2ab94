import { type Kysely, sql } from 'kysely';

/**
 * Accounts, orgs, projects, folders, data objects and file parts. Name columns use the "C"
 * collation on PostgreSQL so that prefix (glob) searches can use the index, as SQLite does with
 * case-sensitive LIKE.
 */
export async function up(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  const nameType = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first', 'text', (c) => c.notNull())
    .addColumn('middle', 'text', (c) => c.notNull())
    .addColumn('last', 'text', (c) => c.notNull())
    .addColumn('passwordHash', 'text', (c) => c.notNull())
    .addColumn('isAdmin', 'integer', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull())
    .addColumn('securityLevel', 'text', (c) => c.notNull())
    .addColumn('otpSecret', 'text')
    .addColumn('otpEnabled', 'integer', (c) => c.notNull())
    .addColumn('sshPublicKey', 'text')
    .addColumn('sessionData', 'text', (c) => c.notNull())
    .addColumn('billTo', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('userId', 'text', (c) => c.notNull())
    .addColumn('secretHash', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('securityLevel', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .addColumn('lastUsed', 'bigint')
    .addColumn('revoked', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tokens_user').on('tokens').columns(['userId', 'created']).execute();

  await db.schema
    .createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('handle', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('policies', 'text', (c) => c.notNull())
    .addColumn('phiFeaturesEnabled', 'integer', (c) => c.notNull())
    .addColumn('defaultRegion', 'text', (c) => c.notNull())
    .addColumn('permittedRegions', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('orgMembers')
    .addColumn('orgId', 'text', (c) => c.notNull())
    .addColumn('userId', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('allowBillableActivities', 'integer', (c) => c.notNull())
    .addColumn('appAccess', 'integer', (c) => c.notNull())
    .addColumn('projectAccess', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('orgMembers_pk', ['orgId', 'userId'])
    .execute();
  await db.schema.createIndex('orgMembers_user').on('orgMembers').column('userId').execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('name', nameType, (c) => c.notNull())
    .addColumn('billTo', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('containsPHI', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('pendingTransfer', 'text')
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('projects_billTo').on('projects').column('billTo').execute();

  await db.schema
    .createTable('projectMembers')
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('memberId', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('projectMembers_pk', ['projectId', 'memberId'])
    .execute();
  await db.schema.createIndex('projectMembers_member').on('projectMembers').column('memberId').execute();

  await db.schema
    .createTable('folders')
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('path', nameType, (c) => c.notNull())
    .addPrimaryKeyConstraint('folders_pk', ['projectId', 'path'])
    .execute();

  await db.schema
    .createTable('objects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('media', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint')
    .addColumn('blobKey', 'text')
    .addColumn('uploadId', 'text')
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('stateChanged', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('objects_state').on('objects').columns(['state', 'stateChanged']).execute();

  await db.schema
    .createTable('objectCopies')
    .addColumn('projectId', 'text', (c) => c.notNull())
    .addColumn('objectId', 'text', (c) => c.notNull())
    .addColumn('class', 'text', (c) => c.notNull())
    .addColumn('name', nameType, (c) => c.notNull())
    .addColumn('folder', nameType, (c) => c.notNull())
    .addColumn('hidden', 'integer', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('types', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('objectCopies_pk', ['projectId', 'objectId'])
    .execute();
  await db.schema.createIndex('objectCopies_folder').on('objectCopies').columns(['projectId', 'folder', 'objectId']).execute();
  await db.schema.createIndex('objectCopies_name').on('objectCopies').columns(['projectId', 'name']).execute();
  await db.schema.createIndex('objectCopies_object').on('objectCopies').column('objectId').execute();

  await db.schema
    .createTable('fileParts')
    .addColumn('fileId', 'text', (c) => c.notNull())
    .addColumn('partIndex', 'integer', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('md5', 'text', (c) => c.notNull())
    .addColumn('partRef', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('fileParts_pk', ['fileId', 'partIndex'])
    .execute();

  await db.schema
    .createTable('nonces')
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('callerId', 'text', (c) => c.notNull())
    .addColumn('bodyHash', 'text', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('nonces_pk', ['route', 'nonce', 'callerId'])
    .execute();
  await db.schema.createIndex('nonces_created').on('nonces').column('created').execute();

  const serial = dialect === 'postgres' ? sql`bigserial` : sql`integer`;
  await db.schema
    .createTable('blobDeletions')
    .addColumn('id', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('blobKey', 'text', (c) => c.notNull())
    .addColumn('uploadOf', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
}
