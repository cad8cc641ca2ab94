import type { Kysely } from 'kysely';

/**
 * The 30-second step of the last one-time code a user signed in with: a code is accepted once only
 * (RFC 6238 §5.2), so a code seen over someone's shoulder or replayed from a log cannot open a second session.
 */
export async function up(db: Kysely<unknown>, _dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema.alterTable('users').addColumn('otpLastStep', 'bigint').execute();
}
