import { createClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../src/modules/auth/caller.js';
import { UsersService } from '../src/modules/users/users.service.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

const unique = () => Math.random().toString(36).slice(2, 10);
const newUserInput = (handle: string, extra: { admin?: boolean } = {}) => ({
  username: handle,
  email: `${handle}@example.org`,
  first: 'Ada',
  last: 'Lovelace',
  password: `pw-${handle}-123`,
  ...extra,
});

describe.each(BACKENDS)('users on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 60_000);
  afterAll(() => t?.close());

  const anonymous = () => createClient({ baseUrl: t.url, retries: 0 });

  it('lets only administrators create users while self sign-up is off', async () => {
    const me = await t.newUser();
    await expectApiError(me.client.call('user/new', newUserInput(`u${unique()}`)), 'PermissionDenied', 'administrators');
    await expectApiError(anonymous().call('user/new', newUserInput(`u${unique()}`)), 'InvalidAuthentication', 'Sign-up is disabled');
    expect((await anonymous().call('system/getUIConfig', {})).selfSignUp).toBe(false);

    const handle = `u${unique()}`;
    expect(await t.admin.call('user/new', newUserInput(handle))).toEqual({ id: `user-${handle}` });
    await expectApiError(t.admin.call('user/new', newUserInput(handle)), 'InvalidInput', 'already taken');
    await expectApiError(t.admin.call('user/new', { ...newUserInput(`u${unique()}`), password: 'short' }), 'InvalidInput', '8 characters');
    await expectApiError(t.admin.call('user/new', newUserInput('Not A Handle')), 'InvalidInput');
    const admin = `a${unique()}`;
    await t.admin.call('user/new', newUserInput(admin, { admin: true }));
    expect((await t.admin.call('user-xxxx/describe', `user-${admin}`, {})).admin).toBe(true);
  });

  it('gives one of two racing sign-ups for one handle the account, and the other InvalidInput', async () => {
    const handle = `race${unique()}`;
    const results = await Promise.allSettled([t.admin.call('user/new', newUserInput(handle)), t.admin.call('user/new', newUserInput(handle))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failure = results.find((r) => r.status === 'rejected');
    expect((failure as PromiseRejectedResult).reason).toMatchObject({ type: 'InvalidInput' });
  });

  it('lets anyone sign up when self sign-up is on, never as an administrator', async () => {
    const users = new UsersService(t.platform.stores, { selfSignUp: true, onAccountChange: () => undefined });
    const handle = `self${unique()}`;
    const { id } = await users.create(undefined, newUserInput(handle), Date.now());
    const created = await t.platform.stores.users.findById(id);
    expect(created).toMatchObject({ createdBy: id, isAdmin: 0, disabled: 0 });
    await expectApiError(users.create(undefined, newUserInput(`self${unique()}`, { admin: true }), Date.now()), 'PermissionDenied');
    // The new account signs in.
    const session = await anonymous().call('system/newAuthToken', { username: handle, password: `pw-${handle}-123` });
    expect(session.user_id).toBe(id);
  });

  it('shows e-mail and settings only to the user and to administrators', async () => {
    const me = await t.newUser();
    const other = await t.newUser();
    const own = await me.client.call('user-xxxx/describe', me.id, {});
    expect(own).toMatchObject({ id: me.id, class: 'user', email: expect.stringContaining('@'), securityLevel: 'normal', orgs: [] });
    const seen = await other.client.call('user-xxxx/describe', me.id, {});
    expect(seen).toMatchObject({ id: me.id, class: 'user', handle: own.handle, first: own.first, last: own.last });
    for (const hidden of ['email', 'securityLevel', 'sessionData', 'sshPublicKey', 'orgs', 'otpEnabled', 'admin', 'disabled', 'billTo']) {
      expect(seen, hidden).not.toHaveProperty(hidden);
    }
    // Asking for a hidden field by name does not reveal it either.
    expect(await other.client.call('user-xxxx/describe', me.id, { fields: { email: true } })).toEqual({ id: me.id });
    expect((await t.admin.call('user-xxxx/describe', me.id, {})).email).toBe(own.email);
    await expectApiError(me.client.call('user-xxxx/describe', 'user-nobody', {}), 'ResourceNotFound');
  });

  it('lets users change their own profile only, and only administrators disable accounts', async () => {
    const me = await t.newUser();
    const other = await t.newUser();
    await me.client.call('user-xxxx/update', me.id, { first: 'Grace', last: 'Hopper', securityLevel: 'high', sessionData: { favorites: ['p'] } });
    expect(await me.client.call('user-xxxx/describe', me.id, {})).toMatchObject({
      first: 'Grace',
      last: 'Hopper',
      securityLevel: 'high',
      sessionData: { favorites: ['p'] },
    });
    await expectApiError(other.client.call('user-xxxx/update', me.id, { first: 'Mallory' }), 'PermissionDenied');
    await expectApiError(me.client.call('user-xxxx/update', other.id, { disabled: true }), 'PermissionDenied');
    await expectApiError(me.client.call('user-xxxx/update', me.id, { admin: true }), 'PermissionDenied');
    await expectApiError(t.admin.call('user-xxxx/update', 'user-admin', { disabled: true }), 'InvalidInput');
    await expectApiError(t.admin.call('user-xxxx/update', 'user-nobody', { first: 'x' }), 'ResourceNotFound');
  });

  it('changes a password only with the current one, and ends the other sessions', async () => {
    const handle = `pw${unique()}`;
    const { id } = await t.admin.call('user/new', newUserInput(handle));
    const password = `pw-${handle}-123`;
    const session = await anonymous().call('system/newAuthToken', { username: handle, password });
    const me = createClient({ baseUrl: t.url, token: session.access_token, retries: 0 });
    await expectApiError(me.call('user-xxxx/update', id, { password: { current: 'not-it', new: 'brand-new-password' } }), 'PermissionDenied');
    await expectApiError(me.call('user-xxxx/update', id, { password: { new: 'brand-new-password' } }), 'PermissionDenied');
    await me.call('user-xxxx/update', id, { password: { current: password, new: 'brand-new-password' } });
    await expectApiError(me.call('system/whoami', {}), 'InvalidAuthentication');
    await expectApiError(anonymous().call('system/newAuthToken', { username: handle, password }), 'InvalidAuthentication');
    await anonymous().call('system/newAuthToken', { username: handle, password: 'brand-new-password' });
    // An administrator resets it without the current one.
    await t.admin.call('user-xxxx/update', id, { password: { new: 'reset-by-admin' } });
    await anonymous().call('system/newAuthToken', { username: handle, password: 'reset-by-admin' });
  });

  it('finds users by name and id, page by page, hiding disabled accounts from non-administrators', async () => {
    const tag = unique();
    const handles = [`find${tag}a`, `find${tag}b`, `find${tag}c`];
    for (const handle of handles) await t.admin.call('user/new', newUserInput(handle));
    const me = await t.newUser();
    const ids = handles.map((handle) => `user-${handle}`);
    const byGlob = await me.client.call('system/findUsers', { name: { glob: `find${tag}*` } });
    expect(byGlob.results.map((r) => r.id)).toEqual(ids);
    expect((await me.client.call('system/findUsers', { id: [ids[1] ?? ''] })).results.map((r) => r.id)).toEqual([ids[1]]);
    const described = await me.client.call('system/findUsers', { id: ids, describe: true });
    for (const entry of described.results) {
      expect(entry.describe?.handle).toBeDefined();
      expect(entry.describe).not.toHaveProperty('email');
    }
    const first = await me.client.call('system/findUsers', { name: { glob: `find${tag}*` }, limit: 2 });
    expect(first.results.map((r) => r.id)).toEqual(ids.slice(0, 2));
    const second = await me.client.call('system/findUsers', { name: { glob: `find${tag}*` }, limit: 2, starting: first.next });
    expect(second.results.map((r) => r.id)).toEqual(ids.slice(2));
    expect(second.next).toBeNull();

    await t.admin.call('user-xxxx/update', ids[0] ?? '', { disabled: true });
    expect((await me.client.call('system/findUsers', { id: ids, includeDisabled: true })).results.map((r) => r.id)).toEqual(ids.slice(1));
    expect((await t.admin.call('system/findUsers', { id: ids })).results.map((r) => r.id)).toEqual(ids.slice(1));
    expect((await t.admin.call('system/findUsers', { id: ids, includeDisabled: true })).results.map((r) => r.id)).toEqual(ids);
  });

  it('creates accounts at the service layer with the caller recorded', async () => {
    const admin: Caller = { userId: 'user-admin', tokenId: 'test', tokenKind: 'api', isAdmin: true, scope: null };
    const handle = `svc${unique()}`;
    await t.platform.services.users.create(admin, newUserInput(handle), 1_234);
    expect(await t.platform.stores.users.findById(`user-${handle}`)).toMatchObject({ createdBy: 'user-admin', created: 1_234, billTo: `user-${handle}` });
  });
});
