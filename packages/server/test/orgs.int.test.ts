import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

const unique = () => Math.random().toString(36).slice(2, 10);

interface Member {
  id: string;
  client: PanxClient;
}

describe.each(BACKENDS)('orgs on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 60_000);
  afterAll(() => t?.close());

  /** An org made by a new user (its first ADMIN), plus members. */
  async function org(policies?: { memberListVisibility?: 'ADMIN' | 'MEMBER' | 'PUBLIC'; restrictProjectTransfer?: 'ADMIN' | 'MEMBER' }) {
    const admin = await t.newUser();
    const { id } = await admin.client.call('org/new', { handle: `org${unique()}`, name: 'Genome Lab', policies });
    return { id, admin };
  }

  async function join(
    orgId: string,
    admin: Member,
    level: 'ADMIN' | 'MEMBER',
    extra: { allowBillableActivities?: boolean; projectAccess?: 'VIEW' | 'UPLOAD' | 'CONTRIBUTE' | 'ADMINISTER' } = {},
  ) {
    const user = await t.newUser();
    await admin.client.call('org-xxxx/invite', orgId, { invitee: user.id, level, ...extra });
    return user;
  }

  it('creates an org whose creator is its first ADMIN, with default policies', async () => {
    const creator = await t.newUser();
    const handle = `lab${unique()}`;
    const { id } = await creator.client.call('org/new', { handle, name: 'Lab' });
    expect(id).toBe(`org-${handle}`);
    expect(await creator.client.call('org-xxxx/describe', id, {})).toMatchObject({
      id,
      class: 'org',
      handle,
      name: 'Lab',
      level: 'ADMIN',
      policies: { memberListVisibility: 'ADMIN', restrictProjectTransfer: 'ADMIN' },
      allowBillableActivities: true,
      phiFeaturesEnabled: false,
      admins: [creator.id],
    });
    await expectApiError(creator.client.call('org/new', { handle, name: 'Again' }), 'InvalidInput', 'already taken');
    await expectApiError(creator.client.call('org/new', { handle: `phi${unique()}`, name: 'PHI', phiFeaturesEnabled: true }), 'PermissionDenied');
    await expectApiError(creator.client.call('org/new', { handle: 'X', name: 'bad handle' }), 'InvalidInput');
    const racing = `race${unique()}`;
    const results = await Promise.allSettled([
      creator.client.call('org/new', { handle: racing, name: 'a' }),
      creator.client.call('org/new', { handle: racing, name: 'b' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ type: 'InvalidInput' });
  });

  it('invites members at a level; only ADMINs invite or change the org; outsiders do not see it', async () => {
    const { id, admin } = await org();
    const member = await join(id, admin, 'MEMBER');
    const outsider = await t.newUser();
    expect(await member.client.call('org-xxxx/describe', id, {})).toMatchObject({ level: 'MEMBER', allowBillableActivities: false });
    await expectApiError(outsider.client.call('org-xxxx/describe', id, {}), 'ResourceNotFound');
    await expectApiError(member.client.call('org-xxxx/invite', id, { invitee: outsider.id, level: 'MEMBER' }), 'PermissionDenied');
    await expectApiError(member.client.call('org-xxxx/update', id, { name: 'Hijacked' }), 'PermissionDenied');
    await expectApiError(outsider.client.call('org-xxxx/update', id, { name: 'Hijacked' }), 'ResourceNotFound');
    await expectApiError(admin.client.call('org-xxxx/invite', id, { invitee: member.id, level: 'ADMIN' }), 'InvalidInput', 'setMemberAccess');
    await expectApiError(admin.client.call('org-xxxx/invite', id, { invitee: 'user-nobody', level: 'MEMBER' }), 'ResourceNotFound');
    await admin.client.call('org-xxxx/update', id, { name: 'Renamed', policies: { memberListVisibility: 'MEMBER' } });
    expect(await member.client.call('org-xxxx/describe', id, {})).toMatchObject({
      name: 'Renamed',
      policies: { memberListVisibility: 'MEMBER', restrictProjectTransfer: 'ADMIN' },
    });
    const mine = await member.client.call('system/findOrgs', {});
    expect(mine.results).toEqual([{ id, level: 'MEMBER' }]);
    expect((await member.client.call('system/findOrgs', { level: 'ADMIN' })).results).toEqual([]);
    expect((await admin.client.call('system/findOrgs', { level: 'MEMBER' })).results.map((r) => r.id)).toEqual([id]);
  });

  it('changes member access, keeping at least one ADMIN', async () => {
    const { id, admin } = await org();
    const member = await join(id, admin, 'MEMBER', { projectAccess: 'VIEW' });
    await admin.client.call('org-xxxx/setMemberAccess', id, { [member.id]: { allowBillableActivities: true, projectAccess: 'UPLOAD' } });
    const { results } = await admin.client.call('org-xxxx/findMembers', id, { id: [member.id] });
    expect(results).toEqual([{ id: member.id, level: 'MEMBER', allowBillableActivities: true, appAccess: true, projectAccess: 'UPLOAD' }]);
    await expectApiError(admin.client.call('org-xxxx/setMemberAccess', id, { [admin.id]: { level: 'MEMBER' } }), 'InvalidState', 'at least one ADMIN');
    await expectApiError(member.client.call('org-xxxx/setMemberAccess', id, { [member.id]: { level: 'ADMIN' } }), 'PermissionDenied');
    await expectApiError(admin.client.call('org-xxxx/setMemberAccess', id, { 'user-nobody': { level: 'ADMIN' } }), 'ResourceNotFound');
    // Handing over in one call: the member becomes ADMIN as the admin steps down.
    await admin.client.call('org-xxxx/setMemberAccess', id, { [member.id]: { level: 'ADMIN' }, [admin.id]: { level: 'MEMBER' } });
    const levels = (await member.client.call('org-xxxx/findMembers', id, {})).results.map((r) => [r.id, r.level, r.projectAccess]);
    expect(levels.sort()).toEqual(
      [
        [member.id, 'ADMIN', 'ADMINISTER'],
        [admin.id, 'MEMBER', 'ADMINISTER'],
      ].sort(),
    );
  });

  it('removes members, optionally revoking their access to the org’s projects', async () => {
    const { id, admin } = await org();
    const kept = await join(id, admin, 'MEMBER', { allowBillableActivities: true });
    const revoked = await join(id, admin, 'MEMBER', { allowBillableActivities: true });
    const { id: billed } = await admin.client.call('project/new', { name: 'billed to the org', billTo: id });
    const { id: elsewhere } = await admin.client.call('project/new', { name: 'billed to the admin' });
    for (const user of [kept, revoked]) {
      await admin.client.call('project-xxxx/invite', billed, { invitee: user.id, level: 'CONTRIBUTE' });
      await admin.client.call('project-xxxx/invite', elsewhere, { invitee: user.id, level: 'VIEW' });
    }
    await expectApiError(admin.client.call('org-xxxx/removeMember', id, { user: admin.id }), 'InvalidState', 'last ADMIN');
    await expectApiError(kept.client.call('org-xxxx/removeMember', id, { user: revoked.id }), 'PermissionDenied');

    expect(await admin.client.call('org-xxxx/removeMember', id, { user: kept.id })).toEqual({ id, projects: {}, apps: {} });
    expect((await kept.client.call('project-xxxx/describe', billed, {})).level).toBe('CONTRIBUTE');

    expect(await admin.client.call('org-xxxx/removeMember', id, { user: revoked.id, revokeProjectPermissions: true })).toEqual({
      id,
      projects: { [billed]: 'CONTRIBUTE' },
      apps: {},
    });
    await expectApiError(revoked.client.call('project-xxxx/describe', billed, {}), 'ResourceNotFound');
    expect((await revoked.client.call('project-xxxx/describe', elsewhere, {})).level).toBe('VIEW');
    await expectApiError(revoked.client.call('org-xxxx/describe', id, {}), 'ResourceNotFound');
    await expectApiError(admin.client.call('org-xxxx/removeMember', id, { user: revoked.id }), 'ResourceNotFound');
  });

  it('takes implicit access away with the membership', async () => {
    const { id, admin } = await org();
    const member = await join(id, admin, 'MEMBER', { projectAccess: 'UPLOAD' });
    const { id: project } = await admin.client.call('project/new', { name: 'shared with the org' });
    await admin.client.call('project-xxxx/invite', project, { invitee: id, level: 'CONTRIBUTE' });
    const found = (await member.client.call('system/findProjects', { id: [project] })).results;
    expect(found).toEqual([{ id: project, level: 'UPLOAD', permissionSources: [id], public: false }]);
    await admin.client.call('org-xxxx/removeMember', id, { user: member.id });
    await expectApiError(member.client.call('project-xxxx/describe', project, {}), 'ResourceNotFound');
  });

  it('shows the member list as its memberListVisibility policy says', async () => {
    for (const [policy, memberMay, outsiderGets] of [
      ['ADMIN', false, 'ResourceNotFound'],
      ['MEMBER', true, 'ResourceNotFound'],
      ['PUBLIC', true, 'ok'],
    ] as const) {
      const { id, admin } = await org({ memberListVisibility: policy });
      const member = await join(id, admin, 'MEMBER');
      const outsider = await t.newUser();
      expect((await admin.client.call('org-xxxx/findMembers', id, {})).results, policy).toHaveLength(2);
      if (memberMay)
        expect(
          (await member.client.call('org-xxxx/findMembers', id, { level: 'ADMIN' })).results.map((r) => r.id),
          policy,
        ).toEqual([admin.id]);
      else await expectApiError(member.client.call('org-xxxx/findMembers', id, {}), 'PermissionDenied', 'memberListVisibility');
      if (outsiderGets === 'ok') expect((await outsider.client.call('org-xxxx/findMembers', id, {})).results, policy).toHaveLength(2);
      else await expectApiError(outsider.client.call('org-xxxx/findMembers', id, {}), outsiderGets);
    }
  });

  it('lists the projects billed to or shared with the org to its ADMINs', async () => {
    const { id, admin } = await org();
    const member = await join(id, admin, 'MEMBER', { allowBillableActivities: true });
    const { id: billed } = await member.client.call('project/new', { name: 'billed', billTo: id });
    const other = await t.newUser();
    const { id: shared } = await other.client.call('project/new', { name: 'shared' });
    await other.client.call('project-xxxx/invite', shared, { invitee: id, level: 'VIEW' });
    const { id: unrelated } = await other.client.call('project/new', { name: 'unrelated' });
    const listed = (await admin.client.call('org-xxxx/findProjects', id, {})).results;
    expect(listed.map((r) => r.id).sort()).toEqual([billed, shared].sort());
    expect(listed.map((r) => r.id)).not.toContain(unrelated);
    // ADMINs administer what the org pays for; on what is shared with it they have the org's grant.
    expect(listed.find((r) => r.id === billed)?.level).toBe('ADMINISTER');
    expect(listed.find((r) => r.id === shared)?.level).toBe('VIEW');
    await expectApiError(member.client.call('org-xxxx/findProjects', id, {}), 'PermissionDenied');
  });

  it('lists the apps billed to the org to its ADMINs, with the filters of system/findApps', async () => {
    const { id, admin } = await org();
    const member = await join(id, admin, 'MEMBER', { allowBillableActivities: true });
    const suffix = id.slice(4).replaceAll('-', '_').toLowerCase();
    const runSpec = { interpreter: 'bash' as const, code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' };
    const newApp = async (name: string, version: string, billTo?: string) => {
      const { id: app } = await member.client.call('app/new', { name, version, runSpec, ...(billTo ? { billTo } : {}) });
      return app;
    };
    const first = await newApp(`org_tool_${suffix}`, '1.0.0', id);
    const second = await newApp(`org_tool_${suffix}`, '2.0.0', id);
    const other = await newApp(`org_other_${suffix}`, '1.0.0', id);
    const personal = await newApp(`own_tool_${suffix}`, '1.0.0');
    // The ADMIN is neither developer nor authorized user of these unpublished apps, yet the org pays for them.
    await expectApiError(admin.client.call('app-xxxx/describe', first, {}), 'ResourceNotFound');
    expect((await admin.client.call('system/findApps', { billTo: id, allVersions: true })).results).toEqual([]);
    const found = await admin.client.call('org-xxxx/findApps', id, { allVersions: true, describe: { fields: { name: true, billTo: true } } });
    expect(found.results.map((r) => r.id).sort()).toEqual([first, second, other].sort());
    expect(found.results.map((r) => (r.describe as { billTo: string }).billTo)).toEqual([id, id, id]);
    expect(found.results.map((r) => r.id)).not.toContain(personal);
    const named = await admin.client.call('org-xxxx/findApps', id, { name: `org_tool_${suffix}`, allVersions: true, limit: 1 });
    expect(named.results).toHaveLength(1);
    expect(named.next).not.toBeNull();
    await expectApiError(member.client.call('org-xxxx/findApps', id, {}), 'PermissionDenied', 'ADMIN');
    await expectApiError((await t.newUser()).client.call('org-xxxx/findApps', id, {}), 'ResourceNotFound');
    // billTo is the org's own: another one in the input (not a field of this route) changes nothing.
    expect((await admin.client.call('org-xxxx/findApps', id, { billTo: admin.id, allVersions: true } as never)).results).toHaveLength(3);
  });

  it('bills projects to an org only for members allowed billable activities', async () => {
    const { id, admin } = await org();
    const allowed = await join(id, admin, 'MEMBER', { allowBillableActivities: true });
    const notAllowed = await join(id, admin, 'MEMBER');
    const outsider = await t.newUser();
    expect((await admin.client.call('project-xxxx/describe', (await admin.client.call('project/new', { name: 'a', billTo: id })).id, {})).billTo).toBe(id);
    await allowed.client.call('project/new', { name: 'b', billTo: id });
    await expectApiError(notAllowed.client.call('project/new', { name: 'c', billTo: id }), 'PermissionDenied', 'billable');
    await expectApiError(outsider.client.call('project/new', { name: 'd', billTo: id }), 'PermissionDenied');
    await expectApiError(allowed.client.call('project/new', { name: 'e', billTo: 'org-nobody' }), 'ResourceNotFound');
    await expectApiError(allowed.client.call('project/new', { name: 'f', billTo: outsider.id }), 'PermissionDenied');
  });

  it('transfers projects: to an org at once, to a user once they accept; restrictProjectTransfer decides who may', async () => {
    const source = await org({ restrictProjectTransfer: 'ADMIN' });
    const member = await join(source.id, source.admin, 'MEMBER', { allowBillableActivities: true });
    const target = await org();
    await target.admin.client.call('org-xxxx/invite', target.id, { invitee: member.id, level: 'MEMBER', allowBillableActivities: true });
    const { id: project } = await member.client.call('project/new', { name: 'moving', billTo: source.id });

    // The member administers the project, but the org keeps transfers to its ADMINs.
    await expectApiError(member.client.call('project-xxxx/transfer', project, { invitee: target.id }), 'PermissionDenied', 'restrictProjectTransfer');
    await source.admin.client.call('org-xxxx/update', source.id, { policies: { restrictProjectTransfer: 'MEMBER' } });
    expect(await member.client.call('project-xxxx/transfer', project, { invitee: target.id })).toEqual({ id: project, state: 'ACCEPTED' });
    expect((await member.client.call('project-xxxx/describe', project, {})).billTo).toBe(target.id);

    // To an org the caller may not bill: refused.
    const { id: third } = await org();
    await expectApiError(member.client.call('project-xxxx/transfer', project, { invitee: third }), 'PermissionDenied');

    // To a user: pending until they accept.
    const recipient = await t.newUser();
    const bystander = await t.newUser();
    await target.admin.client.call('org-xxxx/update', target.id, { policies: { restrictProjectTransfer: 'MEMBER' } });
    expect(await member.client.call('project-xxxx/transfer', project, { invitee: recipient.id })).toEqual({ id: project, state: 'PENDING' });
    expect(await member.client.call('project-xxxx/describe', project, {})).toMatchObject({ billTo: target.id, pendingTransfer: recipient.id });
    await expectApiError(bystander.client.call('project-xxxx/acceptTransfer', project, {}), 'ResourceNotFound');
    await expectApiError(member.client.call('project-xxxx/acceptTransfer', project, {}), 'PermissionDenied');
    await recipient.client.call('project-xxxx/acceptTransfer', project, {});
    expect(await recipient.client.call('project-xxxx/describe', project, {})).toMatchObject({
      billTo: recipient.id,
      pendingTransfer: null,
      level: 'ADMINISTER',
    });
    await expectApiError(recipient.client.call('project-xxxx/acceptTransfer', project, {}), 'InvalidState');
    await expectApiError(recipient.client.call('project-xxxx/transfer', project, { invitee: recipient.id }), 'InvalidInput', 'already bills');
  });
});
