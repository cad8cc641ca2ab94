import type { ClusterBus } from '../../cluster/cluster-bus.js';
import { createHash } from 'node:crypto';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import {
  atLeast,
  BACKUP_CODE_PATTERN,
  OTP_REQUIRED,
  type PermissionLevel,
  SECURITY_LEVELS,
  SESSION_TIMEOUT_MS,
  type SecurityLevel,
  TOTP_CODE_PATTERN,
  TWO_FACTOR_SETUP_PATH,
  TWO_FACTOR_SETUP_REQUIRED,
} from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidAuthentication, invalidInput, notFound, permissionDenied } from '../../errors.js';
import { newId, newSecret } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import type { Caller } from './caller.js';
import type { TokenRow } from './tokens.repository.js';
import { matchTotpStep } from './totp.js';

const HUNDRED_YEARS_MS = 100 * 365 * 86_400_000;
/** How long a verified token is trusted without asking the database again. */
const AUTH_CACHE_MS = 2_000;
const LAST_USED_PRECISION_MS = 60_000;

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The stricter (shorter-lived) of the account's security level and the one asked for. */
export function stricterLevel(account: SecurityLevel, requested: SecurityLevel | undefined): SecurityLevel {
  const accountLevel = SECURITY_LEVELS.includes(account) ? account : 'normal';
  if (!requested) return accountLevel;
  return SESSION_TIMEOUT_MS[requested] < SESSION_TIMEOUT_MS[accountLevel] ? requested : accountLevel;
}

export function hashPassword(password: string): Promise<string> {
  // argon2id with the library's defaults (m=19 MiB, t=2, p=1: the OWASP baseline).
  return argonHash(password);
}

export interface IssuedToken extends Record<string, unknown> {
  access_token: string;
  token_type: 'Bearer';
  expires: number;
  user_id: string;
  token_id: string;
}

/** What sign-in asks of the two-factor module (modules/two-factor): backup codes and enforced set-up. */
export interface SecondFactor {
  /** Uses up one of the user's backup codes; false when it is not one of them (or already used). */
  consumeBackupCode(userId: string, code: string): Promise<boolean>;
  /** The subjects (the user, their orgs) that require two-factor authentication of this user; empty when none. */
  requiredBy(userId: string): Promise<string[]>;
  /** A short-lived token that serves only to set two-factor authentication up. */
  newEnrolmentToken(userId: string, now: number): Promise<{ token: string; expires: number }>;
}

export class AuthService {
  private readonly cache = new Map<string, { caller: Caller; expires: number; until: number }>();
  private secondFactor: SecondFactor | undefined;

  constructor(
    private readonly stores: Stores,
    private readonly bus?: ClusterBus,
  ) {
    bus?.subscribe((event) => {
      if (event.type === 'auth-invalidated') this.cache.clear();
    });
  }

  /** Resolves a bearer token to its caller, or throws InvalidAuthentication. */
  async authenticate(authorization: string | undefined, now: number): Promise<Caller> {
    if (!authorization) throw invalidAuthentication('Authentication required: send "Authorization: Bearer <token>"');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw invalidAuthentication('The Authorization header must be "Bearer <token>"');
    // Keyed by the secret itself: a cache hit needs no hashing (the secret is in this process's memory anyway).
    const cached = this.cache.get(match[1]);
    if (cached && cached.until > now && cached.expires > now) return cached.caller;
    const secretHash = hashSecret(match[1]);

    const token = await this.stores.tokens.findBySecretHash(secretHash);
    if (!token || token.revoked) throw invalidAuthentication('The token could not be found or has been revoked');
    if (token.expires <= now) throw invalidAuthentication('The token has expired; sign in again');
    const user = await this.stores.users.findById(token.userId);
    if (!user) throw invalidAuthentication('The token belongs to an account that no longer exists');
    if (user.disabled) throw invalidAuthentication(`The account ${user.id} is disabled`);
    const caller: Caller = {
      userId: user.id,
      tokenId: token.id,
      tokenKind: token.kind as Caller['tokenKind'],
      isAdmin: user.isAdmin === 1,
      scope: parseJson<Caller['scope']>(token.scope, null),
    };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(match[1], { caller, expires: token.expires, until: now + AUTH_CACHE_MS });
    // `lastUsed` (shown in token lists) is recorded to the minute, not on every call.
    if (token.lastUsed === null || token.lastUsed < now - LAST_USED_PRECISION_MS) await this.stores.tokens.touch(token.id, now);
    return caller;
  }

  /** Forget cached verifications (after a revoke, a disable or a password change). */
  invalidateCache(): void {
    this.cache.clear();
    this.bus?.publish({ type: 'auth-invalidated' });
  }

  async login(input: { username: string; password: string; otp?: string; securityLevel?: SecurityLevel }, now: number): Promise<IssuedToken> {
    const userId = input.username.startsWith('user-') ? input.username : `user-${input.username}`;
    const user = await this.stores.users.findById(userId);
    // One message for unknown users and wrong passwords, so sign-in cannot probe for accounts.
    const refused = () => invalidAuthentication('Incorrect username or password');
    if (!user) {
      await hashPassword(input.password); // spend the same time as a real check
      throw refused();
    }
    if (!(await argonVerify(user.passwordHash, input.password))) throw refused();
    if (user.disabled) throw invalidAuthentication(`The account ${user.id} is disabled`);
    if (user.otpEnabled) {
      if (!input.otp) {
        throw new ApiError('InvalidAuthentication', 'This account has two-factor authentication: send "otp" with the 6-digit code (or a backup code)', {
          reason: OTP_REQUIRED,
        });
      }
      const code = input.otp.trim();
      if (TOTP_CODE_PATTERN.test(code)) {
        const step = user.otpSecret === null ? undefined : matchTotpStep(user.otpSecret, code, now);
        if (step === undefined) throw invalidAuthentication('The one-time code is not valid');
        // Each code signs in once (RFC 6238 §5.2): a replayed or shoulder-surfed code is refused.
        if (!(await this.stores.users.claimOtpStep(user.id, step))) {
          throw invalidAuthentication('This one-time code has already been used: wait for the next code of your authenticator app');
        }
      } else if (!(BACKUP_CODE_PATTERN.test(code) && (await this.secondFactor?.consumeBackupCode(user.id, code)) === true)) {
        throw invalidAuthentication('The one-time code is not valid');
      }
    } else if (this.secondFactor) {
      // An org policy or the account's own flag requires two-factor authentication: no session until it is
      // set up; the answer carries a short-lived token that serves that set-up only.
      const requiredBy = await this.secondFactor.requiredBy(user.id);
      if (requiredBy.length) {
        const enrolment = await this.secondFactor.newEnrolmentToken(user.id, now);
        const who = requiredBy.map((subject) => (subject.startsWith('org-') ? `the policy of ${subject}` : 'your account settings')).join(' and ');
        throw new ApiError(
          'InvalidAuthentication',
          `Two-factor authentication is required by ${who}: set it up in the web app at ${TWO_FACTOR_SETUP_PATH} before signing in`,
          {
            reason: TWO_FACTOR_SETUP_REQUIRED,
            requiredBy,
            enrolmentToken: enrolment.token,
            expires: enrolment.expires,
            setupPath: TWO_FACTOR_SETUP_PATH,
          },
        );
      }
    }
    return this.startSession(user.id, user.securityLevel as SecurityLevel, input.securityLevel, now);
  }

  /** A web session token at the account's security level, or a stricter one when asked for (never a laxer one). */
  startSession(userId: string, accountLevel: SecurityLevel, requested: SecurityLevel | undefined, now: number): Promise<IssuedToken> {
    const level = stricterLevel(accountLevel, requested);
    return this.issue(userId, { kind: 'session', label: 'web session', expires: now + SESSION_TIMEOUT_MS[level], securityLevel: level, scope: null }, now);
  }

  /** Whether this is the account's password (for confirmations such as turning two-factor off). */
  async checkPassword(userId: string, password: string): Promise<boolean> {
    const user = await this.stores.users.findById(userId);
    return user !== undefined && (await argonVerify(user.passwordHash, password));
  }

  /** Backup codes and enforced set-up come from the two-factor module, wired in by the composition root. */
  useSecondFactor(secondFactor: SecondFactor): void {
    this.secondFactor = secondFactor;
  }

  async createApiToken(
    caller: Caller,
    input: { label?: string; expires?: number; scope?: { projects: Record<string, PermissionLevel> } },
    now: number,
  ): Promise<IssuedToken> {
    if (caller.scope) {
      if (!input.scope) throw permissionDenied('A project-scoped token cannot create an unscoped token');
      // A scoped token may only hand on part of its own reach: the same projects or fewer, at its levels or lower.
      for (const [projectId, level] of Object.entries(input.scope.projects)) {
        const own = caller.scope.projects[projectId];
        if (!own || !atLeast(own, level)) {
          throw permissionDenied(`A project-scoped token cannot create a token reaching further than itself (${projectId} at ${level})`);
        }
      }
    }
    if (input.expires !== undefined && input.expires <= now) throw invalidInput('"expires" must be in the future');
    return this.issue(
      caller.userId,
      { kind: 'api', label: input.label ?? 'API token', expires: input.expires ?? now + HUNDRED_YEARS_MS, securityLevel: null, scope: input.scope ?? null },
      now,
    );
  }

  /** Stores a token whose secret is already known (the configured admin token). */
  async registerKnownToken(userId: string, secret: string, label: string, now: number): Promise<void> {
    if (await this.stores.tokens.findBySecretHash(hashSecret(secret))) return;
    await this.stores.tokens.insert({
      id: newId('token'),
      userId,
      secretHash: hashSecret(secret),
      kind: 'api',
      label,
      scope: null,
      securityLevel: null,
      created: now,
      expires: now + HUNDRED_YEARS_MS,
      lastUsed: null,
      revoked: 0,
    });
  }

  async issue(
    userId: string,
    spec: { kind: TokenRow['kind']; label: string; expires: number; securityLevel: string | null; scope: object | null },
    now: number,
  ): Promise<IssuedToken> {
    const secret = newSecret();
    const id = newId('token');
    await this.stores.tokens.insert({
      id,
      userId,
      secretHash: hashSecret(secret),
      kind: spec.kind,
      label: spec.label,
      scope: spec.scope ? toJson(spec.scope) : null,
      securityLevel: spec.securityLevel,
      created: now,
      expires: spec.expires,
      lastUsed: null,
      revoked: 0,
    });
    return { access_token: secret, token_type: 'Bearer', expires: spec.expires, user_id: userId, token_id: id };
  }

  /** Slides a session token's expiry forward by its security level's timeout. */
  async heartbeat(caller: Caller, now: number): Promise<{ expires: number; securityLevel: SecurityLevel }> {
    const token = await this.stores.tokens.findById(caller.tokenId);
    if (!token) throw invalidAuthentication('The token could not be found');
    if (token.kind !== 'session') {
      return { expires: token.expires, securityLevel: 'normal' };
    }
    const level = (token.securityLevel ?? 'normal') as SecurityLevel;
    const expires = now + SESSION_TIMEOUT_MS[level];
    await this.stores.tokens.touch(token.id, now, expires);
    this.invalidateCache();
    return { expires, securityLevel: level };
  }

  async list(caller: Caller, options: { kind?: string; includeExpired?: boolean }, now: number) {
    const rows = await this.stores.tokens.listByUser(caller.userId, { kind: options.kind, activeAt: options.includeExpired ? undefined : now });
    return rows.map((row) => ({
      id: row.id,
      label: row.label,
      kind: row.kind as 'session' | 'api' | 'job',
      created: row.created,
      expires: row.expires,
      lastUsed: row.lastUsed,
      scope: parseJson<{ projects: Record<string, 'VIEW' | 'UPLOAD' | 'CONTRIBUTE' | 'ADMINISTER'> } | null>(row.scope, null),
    }));
  }

  async revoke(caller: Caller, tokenId: string | undefined): Promise<void> {
    const id = tokenId ?? caller.tokenId;
    if (caller.scope && id !== caller.tokenId) throw permissionDenied('A project-scoped token can only revoke itself');
    const token = await this.stores.tokens.findById(id);
    if (!token || (token.userId !== caller.userId && !caller.isAdmin)) throw notFound(`The token ${id} could not be found`);
    await this.stores.tokens.revoke(id);
    this.invalidateCache();
  }
}
