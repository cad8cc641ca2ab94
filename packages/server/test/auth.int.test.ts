import { createHash } from 'node:crypto';
import { createClient } from '@panx/client';
import { HOUR_MS, MINUTE_MS, SESSION_GRACE_PERIOD_MS, SESSION_TIMEOUT_MS } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../src/modules/auth/caller.js';
import { totpCode, verifyTotp } from '../src/modules/auth/totp.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** RFC 6238's SHA-1 test secret ("12345678901234567890") in base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP codes (RFC 6238)', () => {
  it('match the RFC test vectors (last six digits) and accept one step of drift either way', () => {
    expect(totpCode(RFC_SECRET, 59_000)).toBe('287082');
    expect(totpCode(RFC_SECRET, 1_111_111_109_000)).toBe('081804');
    expect(totpCode(RFC_SECRET, 1_234_567_890_000)).toBe('005924');
    const now = 1_700_000_000_000;
    expect(verifyTotp(RFC_SECRET, totpCode(RFC_SECRET, now - 30_000), now)).toBe(true);
    expect(verifyTotp(RFC_SECRET, totpCode(RFC_SECRET, now + 30_000), now)).toBe(true);
    expect(verifyTotp(RFC_SECRET, totpCode(RFC_SECRET, now - 90_000), now)).toBe(false);
    expect(verifyTotp(RFC_SECRET, '12345', now)).toBe(false);
  });
});

describe.each(BACKENDS)('authentication on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 60_000);
  afterAll(() => t?.close());

  const anonymous = () => createClient({ baseUrl: t.url, retries: 0 });
  const withToken = (token: string) => createClient({ baseUrl: t.url, token, retries: 0 });

  /** A user whose password the test knows. */
  async function account(handle = `u${Math.random().toString(36).slice(2, 10)}`) {
    const password = `pw-${handle}-secret`;
    const { id } = await t.admin.call('user/new', { username: handle, email: `${handle}@example.org`, first: 'A', last: 'B', password });
    return { id, handle, password };
  }

  it('signs in with username (or user id) and password, for a session of the account’s security level', async () => {
    const { id, handle, password } = await account();
    const before = Date.now();
    const session = await anonymous().call('system/newAuthToken', { username: handle, password });
    expect(session).toMatchObject({ token_type: 'Bearer', user_id: id, token_id: expect.stringMatching(/^token-/) });
    expect(session.expires).toBeGreaterThanOrEqual(before + SESSION_TIMEOUT_MS.normal);
    expect(session.expires).toBeLessThanOrEqual(Date.now() + SESSION_TIMEOUT_MS.normal);
    expect(await withToken(session.access_token).call('system/whoami', {})).toEqual({ id });
    expect(await withToken(session.access_token).call('system/getUserInfo', {})).toMatchObject({ username: handle, user_id: id });
    const byId = await anonymous().call('system/newAuthToken', { username: id, password });
    expect(byId.user_id).toBe(id);
  });

  it('refuses unknown users and wrong passwords with one and the same answer', async () => {
    const { handle } = await account();
    const errors = [];
    for (const attempt of [
      { username: handle, password: 'wrong-password' },
      { username: 'nobody-at-all', password: 'wrong-password' },
    ]) {
      try {
        await anonymous().call('system/newAuthToken', attempt);
        throw new Error('signed in');
      } catch (error) {
        const e = error as { type: string; status: number; message: string };
        errors.push({ type: e.type, status: e.status, message: e.message });
      }
    }
    expect(errors[0]).toEqual({ type: 'InvalidAuthentication', status: 401, message: 'Incorrect username or password' });
    expect(errors[1]).toEqual(errors[0]);
    await expectApiError(anonymous().call('system/newAuthToken', { username: handle }), 'InvalidInput', 'password');
    await expectApiError(anonymous().call('system/newAuthToken', {}), 'InvalidInput');
  });

  it('keeps only hashes of tokens and passwords in the database', async () => {
    const { id, handle, password } = await account();
    const session = await anonymous().call('system/newAuthToken', { username: handle, password });
    const api = await withToken(session.access_token).call('system/newAuthToken', { label: 'ci' });
    const rows = await t.platform.stores.tokens.listByUser(id, {});
    expect(rows).toHaveLength(2);
    for (const [issued, row] of [
      [session, rows.find((r) => r.id === session.token_id)],
      [api, rows.find((r) => r.id === api.token_id)],
    ] as const) {
      expect(row?.secretHash).toBe(sha256(issued.access_token));
      expect(JSON.stringify(row)).not.toContain(issued.access_token);
    }
    const user = await t.platform.stores.users.findById(id);
    expect(user?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(user)).not.toContain(password);
    // Nor does listing tokens ever show a secret.
    const listed = JSON.stringify(await withToken(session.access_token).call('system/findAuthTokens', {}));
    expect(listed).not.toContain(session.access_token);
    expect(listed).not.toContain(api.access_token);
  });

  it('shuts disabled users out: no sign-in, and their tokens stop working at once', async () => {
    const { id, handle, password } = await account();
    const session = await anonymous().call('system/newAuthToken', { username: handle, password });
    const user = withToken(session.access_token);
    const api = await user.call('system/newAuthToken', { label: 'long-lived' });
    await user.call('system/whoami', {});
    await withToken(api.access_token).call('system/whoami', {});

    await t.admin.call('user-xxxx/update', id, { disabled: true });
    await expectApiError(anonymous().call('system/newAuthToken', { username: handle, password }), 'InvalidAuthentication', 'disabled');
    await expectApiError(user.call('system/whoami', {}), 'InvalidAuthentication');
    await expectApiError(withToken(api.access_token).call('system/whoami', {}), 'InvalidAuthentication');

    await t.admin.call('user-xxxx/update', id, { disabled: false });
    const again = await anonymous().call('system/newAuthToken', { username: handle, password });
    await withToken(again.access_token).call('system/whoami', {});
    // Re-enabling does not bring old tokens back.
    await expectApiError(withToken(api.access_token).call('system/whoami', {}), 'InvalidAuthentication');
  });

  it('creates, lists and revokes API tokens, and logs a session out', async () => {
    const me = await t.newUser();
    const other = await t.newUser();
    const expires = Date.now() + 7 * 86_400_000;
    const api = await me.client.call('system/newAuthToken', { label: 'pipeline', expires });
    expect(api.expires).toBe(expires);
    const listed = (await me.client.call('system/findAuthTokens', {})).results;
    expect(listed.find((token) => token.id === api.token_id)).toMatchObject({ label: 'pipeline', kind: 'api', expires, scope: null, lastUsed: null });
    expect(listed.find((token) => token.kind === 'session')).toBeDefined();
    expect((await me.client.call('system/findAuthTokens', { kind: 'api' })).results.map((token) => token.id)).toEqual([api.token_id]);

    await expectApiError(me.client.call('system/newAuthToken', { label: 'stale', expires: Date.now() - 1 }), 'InvalidInput', 'future');
    // Someone else's token is not there to revoke.
    await expectApiError(other.client.call('system/destroyAuthToken', { tokenId: api.token_id }), 'ResourceNotFound');
    await withToken(api.access_token).call('system/whoami', {});

    await me.client.call('system/destroyAuthToken', { tokenId: api.token_id });
    await expectApiError(withToken(api.access_token).call('system/whoami', {}), 'InvalidAuthentication');
    expect((await me.client.call('system/findAuthTokens', {})).results.map((token) => token.id)).not.toContain(api.token_id);
    expect((await me.client.call('system/findAuthTokens', { includeExpired: true })).results.map((token) => token.id)).toContain(api.token_id);

    // Without an id: the calling token itself (logout).
    await me.client.call('system/destroyAuthToken', {});
    await expectApiError(me.client.call('system/whoami', {}), 'InvalidAuthentication');
  });

  it('limits a project-scoped token to its projects and levels, and never lets it reach further', async () => {
    const me = await t.newUser();
    const owner = await t.newUser();
    const { id: mine } = await me.client.call('project/new', { name: 'mine, in scope' });
    const { id: other } = await me.client.call('project/new', { name: 'mine, out of scope' });
    const { id: shared } = await owner.client.call('project/new', { name: 'shared with me at VIEW' });
    await owner.client.call('project-xxxx/invite', shared, { invitee: me.id, level: 'VIEW' });
    const scoped = await me.client.call('system/newAuthToken', { label: 'scoped', scope: { projects: { [mine]: 'UPLOAD', [shared]: 'ADMINISTER' } } });
    const s = withToken(scoped.access_token);

    expect((await s.call('project-xxxx/describe', mine, {})).level).toBe('UPLOAD');
    await s.call('project-xxxx/newFolder', mine, { folder: '/in-scope' });
    await expectApiError(s.call('project-xxxx/removeFolder', mine, { folder: '/in-scope' }), 'PermissionDenied');
    await expectApiError(s.call('project-xxxx/describe', other, {}), 'ResourceNotFound');
    // A scope caps a level; it never raises one.
    expect((await s.call('project-xxxx/describe', shared, {})).level).toBe('VIEW');
    expect((await s.call('system/findProjects', {})).results.map((p) => p.id).sort()).toEqual([mine, shared].sort());

    // Nothing outside the projects: no new projects, orgs, accounts or wider tokens.
    await expectApiError(s.call('project/new', { name: 'x' }), 'PermissionDenied');
    await expectApiError(s.call('org/new', { handle: `scoped${Date.now()}`, name: 'x' }), 'PermissionDenied');
    await expectApiError(s.call('user-xxxx/update', me.id, { first: 'Changed' }), 'PermissionDenied');
    await expectApiError(s.call('system/newAuthToken', { label: 'unscoped' }), 'PermissionDenied');
    await expectApiError(s.call('system/newAuthToken', { scope: { projects: { [mine]: 'ADMINISTER' } } }), 'PermissionDenied');
    await expectApiError(s.call('system/newAuthToken', { scope: { projects: { [other]: 'VIEW' } } }), 'PermissionDenied');
    const narrower = await s.call('system/newAuthToken', { scope: { projects: { [mine]: 'VIEW' } } });
    expect((await withToken(narrower.access_token).call('project-xxxx/describe', mine, {})).level).toBe('VIEW');
    // It may end itself, not the user's other tokens.
    await expectApiError(s.call('system/destroyAuthToken', { tokenId: narrower.token_id }), 'PermissionDenied');
    await s.call('system/destroyAuthToken', {});
    await expectApiError(s.call('system/whoami', {}), 'InvalidAuthentication');
  });

  it('expires sessions after their security level’s timeout, and a heartbeat slides the expiry', async () => {
    const auth = t.platform.services.auth;
    const t0 = Date.UTC(2030, 0, 1);
    const cases = [
      ['normal', undefined, SESSION_TIMEOUT_MS.normal],
      ['high', undefined, SESSION_TIMEOUT_MS.high],
      ['low', undefined, SESSION_TIMEOUT_MS.low],
      // A sign-in may ask for a stricter session, never a laxer one.
      ['normal', 'high', SESSION_TIMEOUT_MS.high],
      ['high', 'low', SESSION_TIMEOUT_MS.high],
    ] as const;
    expect(SESSION_TIMEOUT_MS).toEqual({ high: 15 * MINUTE_MS, normal: HOUR_MS, low: 6 * HOUR_MS });
    for (const [accountLevel, requested, timeout] of cases) {
      const { id, handle, password } = await account();
      if (accountLevel !== 'normal') await t.admin.call('user-xxxx/update', id, { securityLevel: accountLevel });
      const session = await auth.login({ username: handle, password, securityLevel: requested }, t0);
      const what = `${accountLevel} account, ${requested ?? 'no'} level asked`;
      expect(session.expires - t0, what).toBe(timeout);
      const bearer = `Bearer ${session.access_token}`;
      await auth.authenticate(bearer, t0 + timeout - 1);
      await expectApiError(auth.authenticate(bearer, t0 + timeout), 'InvalidAuthentication', 'expired');
    }

    const { handle, password } = await account();
    const session = await auth.login({ username: handle, password }, t0);
    const bearer = `Bearer ${session.access_token}`;
    const caller = await auth.authenticate(bearer, t0 + 10 * MINUTE_MS);
    const beat = await auth.heartbeat(caller, t0 + 10 * MINUTE_MS);
    expect(beat).toEqual({ expires: t0 + 70 * MINUTE_MS, securityLevel: 'normal' });
    await auth.authenticate(bearer, t0 + 69 * MINUTE_MS);
    await expectApiError(auth.authenticate(bearer, t0 + 70 * MINUTE_MS), 'InvalidAuthentication');

    // The web app warns the grace period before expiry; the server's expiry is the timeout itself.
    const ui = await anonymous().call('system/getUIConfig', {});
    expect(ui.sessionTimeout).toEqual({
      gracePeriod: SESSION_GRACE_PERIOD_MS,
      highSecurity: SESSION_TIMEOUT_MS.high,
      normalSecurity: SESSION_TIMEOUT_MS.normal,
      lowSecurity: SESSION_TIMEOUT_MS.low,
    });
  });

  it('answers a heartbeat over HTTP with the new expiry; API tokens keep theirs', async () => {
    const { handle, password } = await account();
    const session = await anonymous().call('system/newAuthToken', { username: handle, password });
    const before = Date.now();
    const beat = await withToken(session.access_token).call('system/heartbeat', {});
    expect(beat.securityLevel).toBe('normal');
    expect(beat.expires).toBeGreaterThanOrEqual(before + SESSION_TIMEOUT_MS.normal);
    const api = await withToken(session.access_token).call('system/newAuthToken', { label: 'api', expires: Date.now() + HOUR_MS });
    expect((await withToken(api.access_token).call('system/heartbeat', {})).expires).toBe(api.expires);
  });

  it('asks for a one-time code once two-factor authentication is on', async () => {
    const { id, handle, password } = await account();
    await t.platform.stores.users.update(id, { otpSecret: RFC_SECRET, otpEnabled: 1 });
    t.platform.services.auth.invalidateCache();
    await expectApiError(anonymous().call('system/newAuthToken', { username: handle, password }), 'InvalidAuthentication', 'otp');
    const now = Date.now();
    const wrong = totpCode(RFC_SECRET, now + 10 * MINUTE_MS);
    await expectApiError(anonymous().call('system/newAuthToken', { username: handle, password, otp: wrong }), 'InvalidAuthentication', 'one-time code');
    await expectApiError(anonymous().call('system/newAuthToken', { username: handle, password, otp: 'abcdef' }), 'InvalidInput');
    // The code alone is not enough either.
    await expectApiError(
      anonymous().call('system/newAuthToken', { username: handle, password: 'wrong-password', otp: totpCode(RFC_SECRET, now) }),
      'InvalidAuthentication',
      'Incorrect',
    );
    const session = await anonymous().call('system/newAuthToken', { username: handle, password, otp: totpCode(RFC_SECRET, Date.now()) });
    expect(session.user_id).toBe(id);
    // Service level, with a chosen clock: the previous step still counts, one from two minutes ago does not.
    const auth = t.platform.services.auth;
    const t0 = Date.UTC(2030, 5, 1);
    await auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t0 - 30_000) }, t0);
    await expectApiError(auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t0 - 120_000) }, t0), 'InvalidAuthentication');
    // Each code signs in once: the same code again, or an older one still within the drift, is refused; the next one works.
    await expectApiError(auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t0 - 30_000) }, t0), 'InvalidAuthentication', 'already been used');
    await auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t0) }, t0);
    await expectApiError(
      auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t0 - 30_000) }, t0 + 1000),
      'InvalidAuthentication',
      'already been used',
    );
    await auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t0 + 30_000) }, t0 + 30_000);
    // Two sign-ins racing with one code: one session.
    const t1 = t0 + 10 * MINUTE_MS;
    const raced = await Promise.allSettled([1, 2, 3].map(() => auth.login({ username: handle, password, otp: totpCode(RFC_SECRET, t1) }, t1)));
    expect(raced.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  });

  it('authenticates every non-public call and tells whoami who called', async () => {
    const me = await t.newUser();
    expect(await me.client.call('system/whoami', {})).toEqual({ id: me.id });
    await expectApiError(anonymous().call('system/whoami', {}), 'InvalidAuthentication');
    await expectApiError(withToken('not-a-token').call('system/whoami', {}), 'InvalidAuthentication');
    const caller: Caller = await t.platform.services.auth.authenticate(`Bearer ${me.token}`, Date.now());
    expect(caller).toMatchObject({ userId: me.id, tokenKind: 'session', isAdmin: false, scope: null });
  });
});
