/**
 * Project flags beyond the level matrix (permissions.matrix.test.ts): what `containsPHI` and
 * `restricted` allow and forbid, including the cases where they do allow something.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

const unique = () => Math.random().toString(36).slice(2, 10);

describe.each(BACKENDS)('project flags on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 60_000);
  afterAll(() => t?.close());

  async function record(client: TestPlatform['admin'], project: string): Promise<string> {
    return (await client.call('record/new', { project, name: 'r', close: true })).id;
  }

  it('containsPHI: only with a PHI-enabled billing org, never unset, never copied or billed out of PHI', async () => {
    const owner = await t.newUser();
    const contributor = await t.newUser();
    const { id: phiOrg } = await t.admin.call('org/new', { handle: `phi${unique()}`, name: 'PHI org', phiFeaturesEnabled: true });
    await t.admin.call('org-xxxx/invite', phiOrg, { invitee: owner.id, level: 'ADMIN' });
    const { id: plainOrg } = await owner.client.call('org/new', { handle: `plain${unique()}`, name: 'Plain org' });
    expect((await owner.client.call('org-xxxx/describe', phiOrg, {})).phiFeaturesEnabled).toBe(true);

    await expectApiError(owner.client.call('project/new', { name: 'phi, self-billed', containsPHI: true }), 'PermissionDenied', 'PHI');
    await expectApiError(owner.client.call('project/new', { name: 'phi, plain org', containsPHI: true, billTo: plainOrg }), 'PermissionDenied', 'PHI');
    const { id: phi } = await owner.client.call('project/new', { name: 'phi', containsPHI: true, billTo: phiOrg });
    expect((await owner.client.call('project-xxxx/describe', phi, {})).containsPHI).toBe(true);

    // Never unset; only ADMINISTER sets it, and only on a project billed to a PHI org.
    await expectApiError(owner.client.call('project-xxxx/update', phi, { containsPHI: false }), 'InvalidInput', 'cannot be unset');
    expect((await owner.client.call('project-xxxx/describe', phi, {})).containsPHI).toBe(true);
    const { id: plain } = await owner.client.call('project/new', { name: 'plain', billTo: plainOrg });
    await expectApiError(owner.client.call('project-xxxx/update', plain, { containsPHI: true }), 'PermissionDenied', 'PHI');
    const { id: laterPhi } = await owner.client.call('project/new', { name: 'becomes phi', billTo: phiOrg });
    await owner.client.call('project-xxxx/invite', laterPhi, { invitee: contributor.id, level: 'CONTRIBUTE' });
    await expectApiError(contributor.client.call('project-xxxx/update', laterPhi, { containsPHI: true }), 'PermissionDenied', 'ADMINISTER');
    await owner.client.call('project-xxxx/update', laterPhi, { containsPHI: true });
    expect((await owner.client.call('system/findProjects', { containsPHI: true })).results.map((r) => r.id).sort()).toEqual([phi, laterPhi].sort());

    // Data stays among PHI projects.
    const secret = await record(owner.client, phi);
    await expectApiError(owner.client.call('project-xxxx/clone', phi, { objects: [secret], project: plain }), 'PermissionDenied', 'PHI');
    expect((await owner.client.call('project-xxxx/clone', phi, { objects: [secret], project: laterPhi })).exists).toEqual([]);
    await owner.client.call('project-xxxx/clone', plain, { objects: [await record(owner.client, plain)], project: phi });

    // And is paid for only by PHI orgs.
    await expectApiError(owner.client.call('project-xxxx/transfer', phi, { invitee: plainOrg }), 'PermissionDenied', 'PHI');
    await expectApiError(owner.client.call('project-xxxx/transfer', phi, { invitee: contributor.id }), 'PermissionDenied', 'PHI');
    expect((await owner.client.call('project-xxxx/describe', phi, {})).pendingTransfer).toBeNull();
  });

  it('restricted: shared only within the billing org, copied only to projects it pays for', async () => {
    const admin = await t.newUser();
    const { id: billing } = await admin.client.call('org/new', { handle: `restr${unique()}`, name: 'Billing' });
    const { id: otherOrg } = await admin.client.call('org/new', { handle: `other${unique()}`, name: 'Other' });
    const colleague = await t.newUser();
    const outsider = await t.newUser();
    await admin.client.call('org-xxxx/invite', billing, { invitee: colleague.id, level: 'MEMBER', allowBillableActivities: true });
    const { id: p } = await admin.client.call('project/new', { name: 'restricted', billTo: billing, restricted: true });
    expect((await admin.client.call('project-xxxx/describe', p, {})).restricted).toBe(true);

    expect((await admin.client.call('project-xxxx/invite', p, { invitee: colleague.id, level: 'CONTRIBUTE' })).state).toBe('ACCEPTED');
    await admin.client.call('project-xxxx/invite', p, { invitee: billing, level: 'VIEW' });
    await expectApiError(admin.client.call('project-xxxx/invite', p, { invitee: outsider.id, level: 'VIEW' }), 'PermissionDenied', 'restricted');
    await expectApiError(admin.client.call('project-xxxx/invite', p, { invitee: otherOrg, level: 'VIEW' }), 'PermissionDenied', 'restricted');

    const data = await record(colleague.client, p);
    const { id: sameBilling } = await colleague.client.call('project/new', { name: 'also billed to the org', billTo: billing });
    const { id: ownBilling } = await colleague.client.call('project/new', { name: 'billed to the colleague' });
    await colleague.client.call('project-xxxx/clone', p, { objects: [data], project: sameBilling });
    await expectApiError(colleague.client.call('project-xxxx/clone', p, { objects: [data], project: ownBilling }), 'PermissionDenied', 'restricted');

    // Lifting the restriction (ADMINISTER only) lifts both limits.
    await expectApiError(colleague.client.call('project-xxxx/update', p, { restricted: false }), 'PermissionDenied');
    await admin.client.call('project-xxxx/update', p, { restricted: false });
    await admin.client.call('project-xxxx/invite', p, { invitee: outsider.id, level: 'VIEW' });
    await colleague.client.call('project-xxxx/clone', p, { objects: [data], project: ownBilling });
  });

  it('protected and downloadRestricted: set by ADMINISTER, shown by describe, binding on ADMINISTER too for downloads', async () => {
    const owner = await t.newUser();
    const contributor = await t.newUser();
    const { id: p } = await owner.client.call('project/new', { name: 'flags' });
    await owner.client.call('project-xxxx/invite', p, { invitee: contributor.id, level: 'CONTRIBUTE' });
    await expectApiError(contributor.client.call('project-xxxx/update', p, { protected: true }), 'PermissionDenied');
    await owner.client.call('project-xxxx/update', p, { protected: true, downloadRestricted: true });
    expect(await contributor.client.call('project-xxxx/describe', p, {})).toMatchObject({ protected: true, downloadRestricted: true });
    const data = await record(contributor.client, p);
    await expectApiError(contributor.client.call('project-xxxx/removeObjects', p, { objects: [data] }), 'PermissionDenied', 'protected');
    const { id: elsewhere } = await owner.client.call('project/new', { name: 'elsewhere' });
    await expectApiError(owner.client.call('project-xxxx/clone', p, { objects: [data], project: elsewhere }), 'PermissionDenied', 'downloads');
    await owner.client.call('project-xxxx/removeObjects', p, { objects: [data] });
  });
});
