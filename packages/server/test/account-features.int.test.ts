/**
 * Two-factor enrolment, backup codes and enforcement; notifications; communities. Over HTTP, on every backend.
 */
import { createClient, isApiError, type PanxClient } from '@panx/client';
import { BACKUP_CODE_COUNT, NOTIFICATIONS_LIMIT, TWO_FACTOR_SETUP_REQUIRED, twoFactorSetupRequiredSchema } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../src/modules/auth/totp.js';
import { base32Decode } from '../src/modules/auth/totp.js';
import { base32Encode, hashBackupCode, newBackupCode, normaliseBackupCode, otpauthUri } from '../src/modules/two-factor/otp.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe('two-factor helpers', () => {
  it('encodes base32 as authenticator apps read it, and builds the otpauth URI', () => {
    expect(base32Encode(Buffer.from('12345678901234567890'))).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Encode(Buffer.from('f'))).toBe('MY');
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 7, 9]);
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
    expect(otpauthUri('Panx', 'alice', 'ABC')).toBe('otpauth://totp/Panx:alice?secret=ABC&issuer=Panx&algorithm=SHA1&digits=6&period=30');
  });

  it('makes backup codes that survive dashes, spaces and case when typed', () => {
    const code = newBackupCode();
    expect(code).toMatch(/^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
    expect(normaliseBackupCode(` ${code.toUpperCase().replace(/-/g, ' ')} `)).toBe(code.replace(/-/g, ''));
    expect(hashBackupCode('user-a', code)).toBe(hashBackupCode('user-a', code.toUpperCase()));
    expect(hashBackupCode('user-a', code)).not.toBe(hashBackupCode('user-b', code));
  });
});

describe.each(BACKENDS)('account features on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 120_000);
  afterAll(() => t?.close());

  const anonymous = () => createClient({ baseUrl: t.url, retries: 0 });
  const withToken = (token: string) => createClient({ baseUrl: t.url, token, retries: 0 });

  async function account(handle = `u${Math.random().toString(36).slice(2, 10)}`) {
    const password = `pw-${handle}-secret`;
    const { id } = await t.admin.call('user/new', { username: handle, email: `${handle}@example.org`, first: 'Ada', last: 'Tester', password });
    const { access_token } = await anonymous().call('system/newAuthToken', { username: handle, password });
    return { id, handle, password, client: withToken(access_token) };
  }

  /** The error of a call that must fail. */
  async function failure(promise: Promise<unknown>) {
    try {
      await promise;
    } catch (error) {
      if (isApiError(error)) return error;
      throw error;
    }
    throw new Error('expected the call to fail');
  }

  /** A code of the next 30-second step (a code of the current step may already have been used in this test). */
  const code = (secret: string, offset = 0) => totpCode(secret, Date.now() + offset);

  async function enrol(client: PanxClient) {
    const started = await client.call('system/startTwoFactorEnrolment', {});
    const confirmed = await client.call('system/confirmTwoFactorEnrolment', { code: code(started.secret) });
    return { secret: started.secret, backupCodes: confirmed.backupCodes };
  }

  describe('two-factor authentication', () => {
    it('enrols: a secret and its otpauth URI, off until a valid code confirms it, then ten backup codes once', async () => {
      const alice = await account();
      expect(await alice.client.call('system/describeTwoFactor', {})).toEqual({
        enabled: false,
        pending: false,
        required: false,
        requiredBy: [],
        backupCodesLeft: 0,
      });
      const started = await alice.client.call('system/startTwoFactorEnrolment', {});
      expect(started.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(started.otpauthUri).toBe(`otpauth://totp/Panx:${alice.handle}?secret=${started.secret}&issuer=Panx&algorithm=SHA1&digits=6&period=30`);
      expect(await alice.client.call('system/describeTwoFactor', {})).toMatchObject({ enabled: false, pending: true });
      // Pending: sign-in does not ask for a code yet.
      await anonymous().call('system/newAuthToken', { username: alice.handle, password: alice.password });

      await expectApiError(
        alice.client.call('system/confirmTwoFactorEnrolment', { code: totpCode(started.secret, Date.now() - 600_000) }),
        'InvalidInput',
        'not valid',
      );
      await expectApiError(alice.client.call('system/confirmTwoFactorEnrolment', { code: '12345' as string }), 'InvalidInput', '6-digit');
      const confirmed = await alice.client.call('system/confirmTwoFactorEnrolment', { code: code(started.secret) });
      expect(confirmed.session).toBeUndefined();
      expect(confirmed.backupCodes).toHaveLength(BACKUP_CODE_COUNT);
      expect(new Set(confirmed.backupCodes).size).toBe(BACKUP_CODE_COUNT);
      expect(await alice.client.call('system/describeTwoFactor', {})).toEqual({
        enabled: true,
        pending: false,
        required: false,
        requiredBy: [],
        backupCodesLeft: BACKUP_CODE_COUNT,
      });
      expect(await alice.client.call('user-xxxx/describe', alice.id, { fields: { otpEnabled: true } })).toMatchObject({ otpEnabled: true });
      // Stored hashed: the codes themselves are nowhere in the database.
      const stored = await t.platform.stores.users.findById(alice.id);
      expect(stored?.otpSecret).toBe(started.secret);
      await expectApiError(alice.client.call('system/startTwoFactorEnrolment', {}), 'InvalidState', 'already on');

      // Sign-in now needs the second factor.
      const asked = await failure(anonymous().call('system/newAuthToken', { username: alice.handle, password: alice.password }));
      expect(asked).toMatchObject({ type: 'InvalidAuthentication', details: { reason: 'OtpRequired' } });
      await expectApiError(
        anonymous().call('system/newAuthToken', { username: alice.handle, password: alice.password, otp: '000000' }),
        'InvalidAuthentication',
        'not valid',
      );
      const session = await anonymous().call('system/newAuthToken', { username: alice.handle, password: alice.password, otp: code(started.secret) });
      expect(session.user_id).toBe(alice.id);
    });

    it('signs in once with each backup code, in any case and with or without dashes', async () => {
      const bob = await account();
      const { backupCodes } = await enrol(bob.client);
      const [first = '', second = ''] = backupCodes;
      const signIn = (otp: string) => anonymous().call('system/newAuthToken', { username: bob.handle, password: bob.password, otp });
      expect((await signIn(first)).user_id).toBe(bob.id);
      await expectApiError(signIn(first), 'InvalidAuthentication', 'not valid');
      expect((await signIn(second.toUpperCase().replace(/-/g, ''))).user_id).toBe(bob.id);
      expect(await bob.client.call('system/describeTwoFactor', {})).toMatchObject({ backupCodesLeft: BACKUP_CODE_COUNT - 2 });
      await expectApiError(signIn('aaaa-bbbb-cccc'), 'InvalidAuthentication', 'not valid');
      await expectApiError(signIn('not-a-code'), 'InvalidInput', 'backup code');
      // Another user's code is not yours.
      const other = await account();
      const theirs = (await enrol(other.client)).backupCodes[0] ?? '';
      await expectApiError(signIn(theirs), 'InvalidAuthentication', 'not valid');

      // New codes replace the old ones.
      const { secret } = { secret: (await t.platform.stores.users.findById(bob.id))?.otpSecret ?? '' };
      const renewed = await bob.client.call('system/newTwoFactorBackupCodes', { code: code(secret) });
      expect(renewed.backupCodes).toHaveLength(BACKUP_CODE_COUNT);
      await expectApiError(signIn(backupCodes[2] ?? ''), 'InvalidAuthentication', 'not valid');
      expect((await signIn(renewed.backupCodes[0] ?? '')).user_id).toBe(bob.id);
    });

    it('turns off with a current code, a backup code or the password, from a web session only', async () => {
      const carol = await account();
      const { secret, backupCodes } = await enrol(carol.client);
      await expectApiError(carol.client.call('system/disableTwoFactor', {}), 'InvalidInput', '"code"');
      await expectApiError(carol.client.call('system/disableTwoFactor', { password: 'wrong' }), 'InvalidInput', 'password');
      await expectApiError(carol.client.call('system/disableTwoFactor', { code: '000000' }), 'InvalidInput', 'not valid');
      const api = withToken((await carol.client.call('system/newAuthToken', { label: 'ci' })).access_token);
      await expectApiError(api.call('system/disableTwoFactor', { code: code(secret) }), 'PermissionDenied', 'web session');
      await expectApiError(api.call('system/startTwoFactorEnrolment', {}), 'PermissionDenied', 'web session');

      await carol.client.call('system/disableTwoFactor', { code: backupCodes[0] });
      expect(await carol.client.call('system/describeTwoFactor', {})).toMatchObject({ enabled: false, pending: false, backupCodesLeft: 0 });
      await anonymous().call('system/newAuthToken', { username: carol.handle, password: carol.password });
      // The old backup codes went with it.
      const again = await enrol(carol.client);
      await expectApiError(
        anonymous().call('system/newAuthToken', { username: carol.handle, password: carol.password, otp: backupCodes[1] }),
        'InvalidAuthentication',
        'not valid',
      );
      await carol.client.call('system/disableTwoFactor', { password: carol.password });
      await carol.client.call('system/disableTwoFactor', { code: code(again.secret) }); // already off: nothing to do
    });

    it('enforces an org policy at sign-in: an enrolment-only token, then set-up signs in', async () => {
      const admin = await account();
      const dave = await account();
      const { id: org } = await admin.client.call('org/new', { handle: `tfa${Math.random().toString(36).slice(2, 8)}`, name: 'Strict org' });
      await admin.client.call('org-xxxx/invite', org, { invitee: dave.id, level: 'MEMBER' });
      // Members cannot set the policy; ADMINs can; administrators can require it of a user.
      await expectApiError(dave.client.call('system/setTwoFactorRequirement', { subject: org, required: true }), 'PermissionDenied', 'ADMINs');
      await expectApiError(dave.client.call('system/setTwoFactorRequirement', { subject: dave.id, required: true }), 'PermissionDenied', 'administrators');
      expect(await admin.client.call('system/setTwoFactorRequirement', { subject: org, required: true })).toEqual({ subject: org, required: true });

      const refused = await failure(anonymous().call('system/newAuthToken', { username: dave.handle, password: dave.password }));
      expect(refused.type).toBe('InvalidAuthentication');
      expect(refused.message).toContain('/panx/setup/2fa');
      const details = twoFactorSetupRequiredSchema.parse(refused.details);
      expect(details).toMatchObject({ reason: TWO_FACTOR_SETUP_REQUIRED, requiredBy: [org], setupPath: '/panx/setup/2fa' });
      // A wrong password still gets the plain answer, with no token.
      const wrong = await failure(anonymous().call('system/newAuthToken', { username: dave.handle, password: 'nope' }));
      expect(wrong.details).toBeUndefined();

      // The enrolment token is no bearer token, and serves only the enrolment routes.
      await expectApiError(withToken(details.enrolmentToken).call('system/whoami', {}), 'InvalidAuthentication');
      await expectApiError(anonymous().call('system/startTwoFactorEnrolment', {}), 'InvalidAuthentication', 'enrolmentToken');
      await expectApiError(anonymous().call('system/startTwoFactorEnrolment', { enrolmentToken: 'x'.repeat(43) }), 'InvalidAuthentication', 'not valid');
      const started = await anonymous().call('system/startTwoFactorEnrolment', { enrolmentToken: details.enrolmentToken });
      expect(started.account).toBe(dave.handle);
      await expectApiError(
        anonymous().call('system/confirmTwoFactorEnrolment', { enrolmentToken: details.enrolmentToken, code: '000000' }),
        'InvalidInput',
        'not valid',
      );
      const confirmed = await anonymous().call('system/confirmTwoFactorEnrolment', { enrolmentToken: details.enrolmentToken, code: code(started.secret) });
      expect(confirmed.backupCodes).toHaveLength(BACKUP_CODE_COUNT);
      expect(confirmed.session?.user_id).toBe(dave.id);
      expect(await withToken(confirmed.session?.access_token ?? '').call('system/whoami', {})).toEqual({ id: dave.id });
      // Used once.
      await expectApiError(
        anonymous().call('system/startTwoFactorEnrolment', { enrolmentToken: details.enrolmentToken }),
        'InvalidAuthentication',
        'not valid',
      );

      // From now on: the usual second factor; and the policy keeps it on.
      await anonymous().call('system/newAuthToken', { username: dave.handle, password: dave.password, otp: confirmed.backupCodes[0] });
      const daveSession = withToken(confirmed.session?.access_token ?? '');
      expect(await daveSession.call('system/describeTwoFactor', {})).toMatchObject({ enabled: true, required: true, requiredBy: [org] });
      await expectApiError(daveSession.call('system/disableTwoFactor', { password: dave.password }), 'InvalidState', 'required by');

      // A user flag set by an administrator works the same; lifting it lets the user in again.
      const erin = await account();
      await t.admin.call('system/setTwoFactorRequirement', { subject: erin.id, required: true });
      const flagged = await failure(anonymous().call('system/newAuthToken', { username: erin.handle, password: erin.password }));
      expect(flagged.details).toMatchObject({ reason: TWO_FACTOR_SETUP_REQUIRED, requiredBy: [erin.id] });
      await t.admin.call('system/setTwoFactorRequirement', { subject: erin.id, required: false });
      await anonymous().call('system/newAuthToken', { username: erin.handle, password: erin.password });
      await expectApiError(t.admin.call('system/setTwoFactorRequirement', { subject: 'user-nobody', required: true }), 'ResourceNotFound');
      await expectApiError(dave.client.call('system/setTwoFactorRequirement', { subject: 'org-nowhere', required: true }), 'ResourceNotFound');
    });

    it('refuses an expired enrolment token', async () => {
      const frank = await account();
      const { token } = await t.platform.services.twoFactor.newEnrolmentToken(frank.id, Date.now() - 16 * 60_000);
      await expectApiError(anonymous().call('system/startTwoFactorEnrolment', { enrolmentToken: token }), 'InvalidAuthentication', 'expired');
    });
  });

  describe('notifications', () => {
    it('tells the invitee (not the one sharing) that a project was shared, with a link, and marks read', async () => {
      const owner = await account();
      const guest = await account();
      expect(await guest.client.call('notifications/get', {})).toEqual({ notifications: [], unreadCount: 0, next: null });
      const { id: project } = await owner.client.call('project/new', { name: 'Shared <genomes>' });
      await owner.client.call('project-xxxx/invite', project, { invitee: guest.id, level: 'VIEW' });
      // Inviting again at a level already held changes nothing, and says nothing.
      await owner.client.call('project-xxxx/invite', project, { invitee: guest.id, level: 'VIEW' });

      const got = await guest.client.call('notifications/get', {});
      expect(got.unreadCount).toBe(1);
      expect(got.notifications).toEqual([
        {
          id: expect.stringMatching(/^notification-[0-9A-Za-z]{24}$/),
          kind: 'projectShared',
          title: 'Project shared with you',
          message: 'Ada Tester shared "Shared <genomes>" with you (VIEW)',
          link: `/panx/projects/${project}/data/`,
          subject: project,
          actor: owner.id,
          created: expect.any(Number),
          unread: true,
        },
      ]);
      expect((await owner.client.call('notifications/get', {})).notifications).toEqual([]);

      const first = got.notifications[0]?.id ?? '';
      expect(await guest.client.call('notifications/markRead', { ids: [first, 'notification-000000000000000000000000'] })).toEqual({ unreadCount: 0 });
      expect((await guest.client.call('notifications/get', {})).notifications[0]).toMatchObject({ id: first, unread: false });
      expect((await guest.client.call('notifications/get', { unreadOnly: true })).notifications).toEqual([]);
      // Someone else's notification cannot be marked.
      await owner.client.call('project-xxxx/invite', project, { invitee: guest.id, level: 'CONTRIBUTE' });
      const second = (await guest.client.call('notifications/get', { unreadOnly: true })).notifications[0]?.id ?? '';
      expect(await owner.client.call('notifications/markRead', { ids: [second] })).toEqual({ unreadCount: 0 });
      expect((await guest.client.call('notifications/get', {})).unreadCount).toBe(1);
      await expectApiError(guest.client.call('notifications/markRead', {}), 'InvalidInput', '"all"');
    });

    it('reaches an org’s members, pages newest first by 25, and marks all read', async () => {
      const owner = await account();
      const member = await account();
      const { id: org } = await owner.client.call('org/new', { handle: `notif${Math.random().toString(36).slice(2, 8)}`, name: 'Lab' });
      await owner.client.call('org-xxxx/invite', org, { invitee: member.id, level: 'MEMBER' });
      const { id: project } = await owner.client.call('project/new', { name: 'Org project' });
      await owner.client.call('project-xxxx/invite', project, { invitee: org, level: 'CONTRIBUTE' });
      const [viaOrg] = (await member.client.call('notifications/get', {})).notifications;
      expect(viaOrg?.message).toBe(`Ada Tester shared "Org project" with you through ${org} (CONTRIBUTE)`);
      expect((await owner.client.call('notifications/get', {})).notifications).toEqual([]);

      // A job-like event, as the engine will send it, 30 times.
      const start = Date.now();
      for (let i = 0; i < 30; i++) {
        await t.platform.services.notifications.executionFinished(
          {
            id: `job-${String(i).padStart(24, '0')}`,
            name: `step ${i}`,
            state: i % 2 ? 'failed' : 'done',
            project,
            launchedBy: member.id,
            failureReason: 'AppError',
          },
          start + i,
        );
      }
      const page = await member.client.call('notifications/get', {});
      expect(page.notifications).toHaveLength(NOTIFICATIONS_LIMIT);
      expect(page.unreadCount).toBe(31);
      expect(page.notifications[0]).toMatchObject({
        kind: 'executionFailed',
        title: 'Job failed',
        message: '"step 29" failed: AppError',
        link: `/panx/projects/${project}/monitor/job/job-000000000000000000000029`,
      });
      expect(page.notifications[1]).toMatchObject({ kind: 'executionDone', title: 'Job finished', message: '"step 28" finished successfully' });
      const rest = await member.client.call('notifications/get', { starting: page.next ?? '' });
      expect(rest.notifications).toHaveLength(6);
      expect(rest.next).toBeNull();
      const ids = [...page.notifications, ...rest.notifications].map((n) => n.id);
      expect(new Set(ids).size).toBe(31);
      await expectApiError(member.client.call('notifications/get', { starting: 'garbage' }), 'InvalidInput', '"starting"');

      // The share (before `start`) and steps 0-9.
      expect(await member.client.call('notifications/markRead', { all: true, before: start + 9 })).toEqual({ unreadCount: 20 });
      expect(await member.client.call('notifications/markRead', { all: true })).toEqual({ unreadCount: 0 });
    });

    it('is the user’s own: job tokens and project-scoped tokens cannot read it', async () => {
      const user = await account();
      const { id: project } = await user.client.call('project/new', { name: 'scoped' });
      const scoped = withToken((await user.client.call('system/newAuthToken', { scope: { projects: { [project]: 'VIEW' } } })).access_token);
      await expectApiError(scoped.call('notifications/get', {}), 'PermissionDenied', 'unscoped');
      await expectApiError(anonymous().call('notifications/get', {}), 'InvalidAuthentication');
    });
  });

  describe('communities', () => {
    it('has the platform’s own community by default, which administrators can brand', async () => {
      const user = await account();
      const platform = await user.client.call('system/describeCommunity', { id: 'panx' });
      expect(platform).toMatchObject({ id: 'panx', name: 'Panx', org: null, level: 'MEMBER', isDefault: true });
      expect(platform.assets.navigation.length).toBeGreaterThan(0);
      await expectApiError(user.client.call('system/updateCommunity', { id: 'panx', name: 'Mine' }), 'PermissionDenied');
      await t.admin.call('system/updateCommunity', { id: 'panx', assets: { description: 'Our genomics platform' } });
      const branded = await user.client.call('system/describeCommunity', { id: 'panx' });
      expect(branded.assets.description).toBe('Our genomics platform');
      expect(branded.assets.navigation).toEqual(platform.assets.navigation);
      expect((await t.admin.call('system/describeCommunity', { id: 'panx' })).level).toBe('ADMIN');
    });

    it('creates an org’s community with its branding, validates assets and lets the org’s ADMINs change it', async () => {
      const orgAdmin = await account();
      const member = await account();
      const outsider = await account();
      const handle = `com${Math.random().toString(36).slice(2, 8)}`;
      const { id: org } = await orgAdmin.client.call('org/new', { handle, name: 'Rare disease consortium' });
      await orgAdmin.client.call('org-xxxx/invite', org, { invitee: member.id, level: 'MEMBER' });

      const logo = 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=';
      const assets = {
        headerLogo: logo,
        description: 'Sharing <rare> variants',
        navigation: [{ label: 'Projects', href: '/panx/projects' }],
        home: {
          headline: 'Welcome',
          sections: [{ title: 'Data access', body: 'Ask the committee.', links: [{ label: 'Guide', href: 'https://example.org/guide' }] }],
        },
      };
      await expectApiError(orgAdmin.client.call('system/newCommunity', { handle, name: 'RDC' }), 'PermissionDenied', 'administrators');
      await expectApiError(t.admin.call('system/newCommunity', { handle: 'nosuchorg', name: 'x' }), 'ResourceNotFound', 'org-nosuchorg');
      await expectApiError(t.admin.call('system/newCommunity', { handle: 'panx', name: 'x' }), 'InvalidInput');
      await expectApiError(
        t.admin.call('system/newCommunity', { handle, name: 'RDC', assets: { navigation: [{ label: 'x', href: 'javascript:alert(1)' }] } }),
        'InvalidInput',
        'https://',
      );
      await expectApiError(
        t.admin.call('system/newCommunity', { handle, name: 'RDC', assets: { headerLogo: 'https://evil.example/logo.png' } }),
        'InvalidInput',
        'logo',
      );
      expect(await t.admin.call('system/newCommunity', { handle, name: 'RDC', assets })).toEqual({ id: handle });
      await expectApiError(t.admin.call('system/newCommunity', { handle, name: 'RDC' }), 'InvalidInput', 'already exists');

      const seen = await member.client.call('system/describeCommunity', { id: org });
      expect(seen).toEqual({
        id: handle,
        name: 'RDC',
        org,
        level: 'MEMBER',
        isDefault: false,
        widgets: ['quickActions', 'projects', 'notifications'],
        assets,
        created: expect.any(Number),
        modified: expect.any(Number),
      });
      expect((await outsider.client.call('system/describeCommunity', { id: handle })).level).toBeNull();
      await expectApiError(member.client.call('system/updateCommunity', { id: handle, name: 'Mine' }), 'PermissionDenied');
      await orgAdmin.client.call('system/updateCommunity', {
        id: handle,
        name: 'Rare disease consortium',
        widgets: ['notifications'],
        assets: { description: 'New' },
      });
      const changed = await outsider.client.call('system/describeCommunity', { id: handle });
      expect(changed).toMatchObject({ name: 'Rare disease consortium', widgets: ['notifications'], assets: { ...assets, description: 'New' } });
      await expectApiError(outsider.client.call('system/describeCommunity', { id: 'nothere' }), 'ResourceNotFound');
      const all = await outsider.client.call('system/findCommunities', {});
      expect(all.results[0]?.id).toBe('panx');
      expect(all.results.map((c) => c.id)).toContain(handle);
    });
  });
});
