import type { Kysely } from 'kysely';

/**
 * Two-factor backup codes, enrolment tokens and requirements; notifications; communities
 * (modules two-factor, notifications and communities; their row types live in those modules).
 */
export async function up(db: Kysely<unknown>, _dialect: 'sqlite' | 'postgres'): Promise<void> {
  // One row per unused backup code: SHA-256 of the user id and the normalised code.
  await db.schema
    .createTable('twoFactorBackupCodes')
    .addColumn('userId', 'text', (c) => c.notNull())
    .addColumn('codeHash', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('twoFactorBackupCodes_pk', ['userId', 'codeHash'])
    .execute();

  // Enrolment-only tokens handed out by a sign-in that two-factor set-up must precede.
  await db.schema
    .createTable('twoFactorEnrolments')
    .addColumn('secretHash', 'text', (c) => c.primaryKey())
    .addColumn('userId', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('twoFactorEnrolments_user').on('twoFactorEnrolments').columns(['userId']).execute();

  // Who must have two-factor authentication: a user (`user-…`) or every member of an org (`org-…`).
  await db.schema
    .createTable('twoFactorRequirements')
    .addColumn('subjectId', 'text', (c) => c.primaryKey())
    .addColumn('setBy', 'text', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('userId', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('link', 'text')
    .addColumn('subject', 'text')
    .addColumn('actor', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('readAt', 'bigint')
    .execute();
  await db.schema.createIndex('notifications_user_created').on('notifications').columns(['userId', 'created', 'id']).execute();

  await db.schema
    .createTable('communities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('orgId', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('widgets', 'text', (c) => c.notNull())
    .addColumn('assets', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('modified', 'bigint', (c) => c.notNull())
    .addColumn('createdBy', 'text', (c) => c.notNull())
    .execute();
}
