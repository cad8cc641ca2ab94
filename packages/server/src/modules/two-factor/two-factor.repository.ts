import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Tables of this module (migration 202611231000-create-account-tables). */
export type TwoFactorTables = {
  twoFactorBackupCodes: { userId: string; codeHash: string; created: number };
  twoFactorEnrolments: { secretHash: string; userId: string; created: number; expires: number };
  twoFactorRequirements: { subjectId: string; setBy: string; modified: number };
};

export type TwoFactorExecutor = Kysely<Database & TwoFactorTables> | Transaction<Database & TwoFactorTables>;

export class TwoFactorRepository {
  constructor(private readonly db: TwoFactorExecutor) {}

  async replaceBackupCodes(userId: string, codeHashes: string[], now: number): Promise<void> {
    await this.db.deleteFrom('twoFactorBackupCodes').where('userId', '=', userId).execute();
    if (codeHashes.length) {
      await this.db
        .insertInto('twoFactorBackupCodes')
        .values(codeHashes.map((codeHash) => ({ userId, codeHash, created: now })))
        .execute();
    }
  }

  /** Deletes the code if the user has it: true exactly once per code, even under concurrent sign-ins. */
  async consumeBackupCode(userId: string, codeHash: string): Promise<boolean> {
    const result = await this.db.deleteFrom('twoFactorBackupCodes').where('userId', '=', userId).where('codeHash', '=', codeHash).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async countBackupCodes(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('twoFactorBackupCodes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertEnrolment(row: TwoFactorTables['twoFactorEnrolments']): Promise<void> {
    await this.db.insertInto('twoFactorEnrolments').values(row).execute();
  }

  findEnrolment(secretHash: string): Promise<TwoFactorTables['twoFactorEnrolments'] | undefined> {
    return this.db.selectFrom('twoFactorEnrolments').selectAll().where('secretHash', '=', secretHash).executeTakeFirst();
  }

  /** An enrolment token serves once: deleting it is the use (true for the one caller that deleted it). */
  async consumeEnrolment(secretHash: string): Promise<boolean> {
    const result = await this.db.deleteFrom('twoFactorEnrolments').where('secretHash', '=', secretHash).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async deleteEnrolmentsOf(userId: string): Promise<void> {
    await this.db.deleteFrom('twoFactorEnrolments').where('userId', '=', userId).execute();
  }

  async deleteExpiredEnrolments(now: number): Promise<void> {
    await this.db.deleteFrom('twoFactorEnrolments').where('expires', '<=', now).execute();
  }

  async setRequirement(subjectId: string, required: boolean, setBy: string, now: number): Promise<void> {
    if (!required) {
      await this.db.deleteFrom('twoFactorRequirements').where('subjectId', '=', subjectId).execute();
      return;
    }
    await this.db
      .insertInto('twoFactorRequirements')
      .values({ subjectId, setBy, modified: now })
      .onConflict((oc) => oc.column('subjectId').doUpdateSet({ setBy, modified: now }))
      .execute();
  }

  /** Which of these subjects (a user and their orgs) require two-factor authentication. */
  async requiringAmong(subjectIds: string[]): Promise<string[]> {
    if (!subjectIds.length) return [];
    const rows = await this.db.selectFrom('twoFactorRequirements').select('subjectId').where('subjectId', 'in', subjectIds).orderBy('subjectId').execute();
    return rows.map((row) => row.subjectId);
  }
}
