import {
  BACKUP_CODE_COUNT,
  BACKUP_CODE_PATTERN,
  ENROLMENT_TOKEN_TTL_MS,
  type RouteOutput,
  type RouteParsedInput,
  type SecurityLevel,
  TOTP_CODE_PATTERN,
} from '@panx/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { invalidAuthentication, invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import { newSecret } from '../../lib/ids.js';
import { type AuthService, hashSecret, type SecondFactor } from '../auth/auth.service.js';
import type { Caller } from '../auth/caller.js';
import { verifyTotp } from '../auth/totp.js';
import { OrgsRepository } from '../orgs/orgs.repository.js';
import { UsersRepository } from '../users/users.repository.js';
import { hashBackupCode, newBackupCode, newTotpSecret, otpauthUri } from './otp.js';
import { TwoFactorRepository, type TwoFactorTables } from './two-factor.repository.js';

type Input<P extends 'system/startTwoFactorEnrolment' | 'system/confirmTwoFactorEnrolment' | 'system/disableTwoFactor' | 'system/setTwoFactorRequirement'> =
  RouteParsedInput<P>;

/**
 * Two-factor authentication (TOTP, RFC 6238) beyond sign-in itself: enrolment with a QR code, backup
 * codes, turning it off, and requirements set on a user or an org. An account that must have it and does
 * not is refused a session at sign-in and handed an enrolment token instead (auth.service), which serves
 * only `startTwoFactorEnrolment` and `confirmTwoFactorEnrolment`, once, for 15 minutes.
 *
 * While an enrolment is pending the new secret sits in `users.otpSecret` with `otpEnabled` still 0, so
 * sign-in ignores it until a code confirms it.
 */
export class TwoFactorService implements SecondFactor {
  private readonly repo: TwoFactorRepository;
  private readonly users: UsersRepository;
  private readonly orgs: OrgsRepository;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly auth: AuthService,
    private readonly settings: { issuer: string },
  ) {
    this.repo = new TwoFactorRepository(db.withTables<TwoFactorTables>());
    this.users = new UsersRepository(db);
    this.orgs = new OrgsRepository(db);
  }

  // ---------- SecondFactor (called by sign-in) ----------

  async consumeBackupCode(userId: string, code: string): Promise<boolean> {
    if (!BACKUP_CODE_PATTERN.test(code)) return false;
    return this.repo.consumeBackupCode(userId, hashBackupCode(userId, code));
  }

  async requiredBy(userId: string): Promise<string[]> {
    const orgs = (await this.orgs.membershipsOfUser(userId)).map((membership) => membership.orgId);
    return this.repo.requiringAmong([userId, ...orgs]);
  }

  async newEnrolmentToken(userId: string, now: number): Promise<{ token: string; expires: number }> {
    await this.repo.deleteExpiredEnrolments(now);
    const token = newSecret();
    const expires = now + ENROLMENT_TOKEN_TTL_MS;
    await this.repo.insertEnrolment({ secretHash: hashSecret(token), userId, created: now, expires });
    return { token, expires };
  }

  // ---------- routes ----------

  async describe(caller: Caller): Promise<RouteOutput<'system/describeTwoFactor'>> {
    const user = await this.requireUser(caller.userId);
    const requiredBy = await this.requiredBy(user.id);
    return {
      enabled: user.otpEnabled === 1,
      pending: user.otpEnabled !== 1 && user.otpSecret !== null,
      required: requiredBy.length > 0,
      requiredBy,
      backupCodesLeft: user.otpEnabled === 1 ? await this.repo.countBackupCodes(user.id) : 0,
    };
  }

  /** A new secret for the caller (a session) or the holder of an enrolment token (no session yet). */
  async start(caller: Caller | undefined, input: Input<'system/startTwoFactorEnrolment'>, now: number): Promise<RouteOutput<'system/startTwoFactorEnrolment'>> {
    const userId = await this.enrollingUser(caller, input.enrolmentToken, now);
    const user = await this.requireUser(userId);
    if (user.otpEnabled === 1) throw invalidState('Two-factor authentication is already on for this account; turn it off first to enrol another app');
    const secret = newTotpSecret();
    await this.users.update(user.id, { otpSecret: secret, modified: now });
    const issuer = this.settings.issuer;
    return { secret, otpauthUri: otpauthUri(issuer, user.handle, secret), issuer, account: user.handle };
  }

  /** The first code from the app proves the enrolment: two-factor is on, and the backup codes are shown once. */
  async confirm(
    caller: Caller | undefined,
    input: Input<'system/confirmTwoFactorEnrolment'>,
    now: number,
  ): Promise<RouteOutput<'system/confirmTwoFactorEnrolment'>> {
    const userId = await this.enrollingUser(caller, input.enrolmentToken, now);
    const user = await this.requireUser(userId);
    if (user.otpEnabled === 1) throw invalidState('Two-factor authentication is already on for this account');
    if (!user.otpSecret) throw invalidState('No enrolment is in progress: start one first (system/startTwoFactorEnrolment)');
    if (!verifyTotp(user.otpSecret, input.code, now)) throw invalidInput('The code is not valid: check the time of your device and enter the code shown now');
    if (input.enrolmentToken !== undefined && caller === undefined && !(await this.repo.consumeEnrolment(hashSecret(input.enrolmentToken)))) {
      throw invalidAuthentication('This enrolment token has already been used; sign in again');
    }
    const backupCodes = Array.from({ length: BACKUP_CODE_COUNT }, () => newBackupCode());
    await this.db.transaction().execute(async (trx) => {
      await new UsersRepository(trx).update(user.id, { otpEnabled: 1, modified: now });
      const repo = new TwoFactorRepository(trx.withTables<TwoFactorTables>());
      await repo.replaceBackupCodes(
        user.id,
        backupCodes.map((code) => hashBackupCode(user.id, code)),
        now,
      );
      await repo.deleteEnrolmentsOf(user.id);
    });
    if (caller) return { backupCodes };
    // Enrolled from a refused sign-in: the password was checked then, and the code now, so sign in.
    const session = await this.auth.startSession(user.id, user.securityLevel as SecurityLevel, input.securityLevel, now);
    return { backupCodes, session };
  }

  async disable(caller: Caller, input: Input<'system/disableTwoFactor'>, now: number): Promise<void> {
    this.requireSession(caller, 'Turning two-factor authentication off');
    const user = await this.requireUser(caller.userId);
    if (user.otpEnabled !== 1) {
      // Abandon a pending enrolment, if any.
      if (user.otpSecret) await this.users.update(user.id, { otpSecret: null });
      return;
    }
    const requiredBy = await this.requiredBy(user.id);
    if (requiredBy.length) throw invalidState(`Two-factor authentication is required by ${requiredBy.join(', ')}: it cannot be turned off`);
    if (input.code === undefined && input.password === undefined)
      throw invalidInput('Send "code" (a current or backup code) or "password" to turn two-factor authentication off');
    let proven = false;
    if (input.code !== undefined) {
      proven = TOTP_CODE_PATTERN.test(input.code)
        ? user.otpSecret !== null && verifyTotp(user.otpSecret, input.code, now)
        : await this.consumeBackupCode(user.id, input.code);
    } else if (input.password !== undefined) {
      proven = await this.auth.checkPassword(user.id, input.password);
    }
    // InvalidInput, not InvalidAuthentication: the session itself is fine, and clients end sessions on the latter.
    if (!proven) throw invalidInput(input.code !== undefined ? 'The code is not valid' : 'The password is not correct');
    await this.db.transaction().execute(async (trx) => {
      await new UsersRepository(trx).update(user.id, { otpEnabled: 0, otpSecret: null });
      await new TwoFactorRepository(trx.withTables<TwoFactorTables>()).replaceBackupCodes(user.id, [], 0);
    });
  }

  async newBackupCodes(caller: Caller, code: string, now: number): Promise<string[]> {
    this.requireSession(caller, 'Replacing backup codes');
    const user = await this.requireUser(caller.userId);
    if (user.otpEnabled !== 1 || !user.otpSecret) throw invalidState('Two-factor authentication is off for this account');
    if (!verifyTotp(user.otpSecret, code, now)) throw invalidInput('The code is not valid');
    const backupCodes = Array.from({ length: BACKUP_CODE_COUNT }, () => newBackupCode());
    await this.repo.replaceBackupCodes(
      user.id,
      backupCodes.map((backup) => hashBackupCode(user.id, backup)),
      now,
    );
    return backupCodes;
  }

  /** Administrators require it of users and orgs; an org's ADMINs of their org. */
  async setRequirement(caller: Caller, input: Input<'system/setTwoFactorRequirement'>, now: number): Promise<RouteOutput<'system/setTwoFactorRequirement'>> {
    if (caller.scope) throw permissionDenied('A project-scoped token cannot change two-factor requirements');
    const { subject, required } = input;
    if (subject.startsWith('user-')) {
      if (!caller.isAdmin) throw permissionDenied('Only administrators can require two-factor authentication of a user');
      if (!(await this.users.findById(subject))) throw notFound(`The user ${subject} could not be found`);
    } else {
      const org = await this.orgs.findById(subject);
      const membership = org ? await this.orgs.findMember(subject, caller.userId) : undefined;
      if (!org || (!membership && !caller.isAdmin)) throw notFound(`The org ${subject} could not be found`);
      if (membership?.level !== 'ADMIN' && !caller.isAdmin) throw permissionDenied(`Only ADMINs of ${subject} can change its two-factor policy`);
    }
    await this.repo.setRequirement(subject, required, caller.userId, now);
    return { subject, required };
  }

  // ---------- helpers ----------

  /** The user who enrols: the signed-in caller (a session), or the holder of a valid enrolment token. */
  private async enrollingUser(caller: Caller | undefined, enrolmentToken: string | undefined, now: number): Promise<string> {
    if (caller) {
      this.requireSession(caller, 'Setting up two-factor authentication');
      return caller.userId;
    }
    if (!enrolmentToken) throw invalidAuthentication('Sign in, or send the "enrolmentToken" of the sign-in that asked for two-factor set-up');
    const enrolment = await this.repo.findEnrolment(hashSecret(enrolmentToken));
    if (!enrolment || enrolment.expires <= now) throw invalidAuthentication('This enrolment token is not valid or has expired; sign in again');
    return enrolment.userId;
  }

  /** Only an interactive session manages the second factor: not API tokens, job tokens or scoped tokens. */
  private requireSession(caller: Caller, action: string): void {
    if (caller.tokenKind !== 'session' || caller.scope) throw permissionDenied(`${action} needs a web session, not an API or job token`);
  }

  private async requireUser(userId: string) {
    const user = await this.users.findById(userId);
    if (!user) throw notFound(`The user ${userId} could not be found`);
    return user;
  }
}
