/**
 * system/findProjects filters and paging, and system/describeProjects, over HTTP on every backend:
 * what `dx find projects` and the web app's project lists ask.
 */
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

interface Found {
  results: { id: string; level: string; permissionSources: string[]; describe?: Record<string, unknown> }[];
  next: unknown;
}

describe.each(BACKENDS)('system/findProjects and system/describeProjects on $name', (backend) => {
  let t: TestPlatform;
  let alice: { id: string; client: PanxClient };
  let bob: { id: string; client: PanxClient };
  const ids: Record<string, string> = {};
  let between = 0;

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    alice = await t.newUser();
    bob = await t.newUser();
    const { id: org } = await alice.client.call('org/new', { handle: `lab${Date.now()}`, name: 'Lab' });
    ids.org = org;
    for (const name of ['alpha-wgs', 'alpha-rna', 'beta-wgs']) {
      ids[name] = (await alice.client.call('project/new', { name })).id;
    }
    // `after` and `before` include their own millisecond: keep `between` clear of both sides' creation times.
    await new Promise((resolve) => setTimeout(resolve, 20));
    between = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    ids['gamma-org'] = (await alice.client.call('project/new', { name: 'gamma-org', billTo: org })).id;
    await alice.client.post(ids['alpha-wgs'] as string, 'addTags', { tags: ['cohort', 'wgs'] });
    await alice.client.post(ids['beta-wgs'] as string, 'addTags', { tags: ['wgs'] });
    await alice.client.post(ids['alpha-rna'] as string, 'setProperties', { properties: { assay: 'rna', site: 'oxford' } });
    await alice.client.post(ids['beta-wgs'] as string, 'setProperties', { properties: { assay: 'wgs', site: 'oxford' } });
    // Bob: ADMINISTER of his own, VIEW on alpha-wgs, nothing else of Alice's.
    ids.bobs = (await bob.client.call('project/new', { name: 'bobs-wgs' })).id;
    await alice.client.post(ids['alpha-wgs'] as string, 'invite', { invitee: bob.id, level: 'VIEW', suppressEmailNotification: true });
  }, 60_000);
  afterAll(() => t?.close());

  const find = async (client: PanxClient, query: Record<string, unknown>) => (await client.post('system', 'findProjects', query)) as Found;
  const names = (found: Found) => found.results.map((entry) => Object.entries(ids).find(([, id]) => id === entry.id)?.[0]).sort();

  it('filters by name: exact, glob and regexp (with flags)', async () => {
    expect(names(await find(alice.client, { name: 'alpha-wgs' }))).toEqual(['alpha-wgs']);
    expect(names(await find(alice.client, { name: { glob: 'alpha-*' } }))).toEqual(['alpha-rna', 'alpha-wgs']);
    expect(names(await find(alice.client, { name: { glob: '*-wgs' } }))).toEqual(['alpha-wgs', 'beta-wgs']);
    expect(names(await find(alice.client, { name: { regexp: '^(BETA|GAMMA)-', flags: 'i' } }))).toEqual(['beta-wgs', 'gamma-org']);
    await expectApiError(find(alice.client, { name: { regexp: '(' } }), 'InvalidInput');
  });

  it('filters by level, explicit permission and billTo; answers each project with the caller’s level and where it comes from', async () => {
    const all = await find(bob.client, {});
    expect(names(all)).toEqual(['alpha-wgs', 'bobs']);
    expect(all.results.find((entry) => entry.id === ids['alpha-wgs'])).toMatchObject({ level: 'VIEW', permissionSources: [bob.id] });
    expect(names(await find(bob.client, { level: 'CONTRIBUTE' }))).toEqual(['bobs']);
    expect(names(await find(bob.client, { level: 'VIEW', explicitPermission: true }))).toEqual(['alpha-wgs', 'bobs']);
    expect(names(await find(alice.client, { billTo: ids.org }))).toEqual(['gamma-org']);
    expect(names(await find(alice.client, { billTo: [alice.id] }))).toEqual(['alpha-rna', 'alpha-wgs', 'beta-wgs']);
  });

  it('filters by tags and properties, with $and and $or', async () => {
    expect(names(await find(alice.client, { tags: 'wgs' }))).toEqual(['alpha-wgs', 'beta-wgs']);
    expect(names(await find(alice.client, { tags: { $and: ['wgs', 'cohort'] } }))).toEqual(['alpha-wgs']);
    expect(names(await find(alice.client, { tags: { $or: ['cohort', 'nothing'] } }))).toEqual(['alpha-wgs']);
    expect(names(await find(alice.client, { properties: { site: 'oxford' } }))).toEqual(['alpha-rna', 'beta-wgs']);
    expect(names(await find(alice.client, { properties: { assay: true } }))).toEqual(['alpha-rna', 'beta-wgs']);
    expect(names(await find(alice.client, { properties: { $or: [{ assay: 'rna' }, { assay: 'wgs' }] } }))).toEqual(['alpha-rna', 'beta-wgs']);
    expect(names(await find(alice.client, { properties: { $and: [{ site: 'oxford' }, { assay: 'wgs' }] } }))).toEqual(['beta-wgs']);
  });

  it('filters by creation time, and pages with limit and starting', async () => {
    expect(names(await find(alice.client, { created: { after: between } }))).toEqual(['gamma-org']);
    expect(names(await find(alice.client, { created: { before: between } }))).toEqual(['alpha-rna', 'alpha-wgs', 'beta-wgs']);
    const seen: string[] = [];
    let starting: unknown;
    for (let page = 0; page < 10; page++) {
      const found = await find(alice.client, { limit: 1, ...(starting ? { starting } : {}) });
      expect(found.results.length).toBeLessThanOrEqual(1);
      seen.push(...found.results.map((entry) => entry.id));
      if (!found.next) break;
      starting = found.next;
    }
    expect(seen.sort()).toEqual([ids['alpha-rna'], ids['alpha-wgs'], ids['beta-wgs'], ids['gamma-org']].sort());
    await expectApiError(find(alice.client, { limit: 1001 }), 'InvalidInput');
  });

  it('describes with the results when asked, and describeProjects answers in input order, {} where the caller cannot see', async () => {
    const found = await find(bob.client, { name: 'alpha-wgs', describe: { fields: { name: true, tags: true } } });
    expect(found.results[0]?.describe).toEqual({ id: ids['alpha-wgs'], name: 'alpha-wgs', tags: ['cohort', 'wgs'] });
    const { results } = (await bob.client.post('system', 'describeProjects', {
      projects: [ids.bobs, ids['beta-wgs'], ids['alpha-wgs'], 'project-000000000000000000000000'],
      describe: { fields: { name: true } },
    })) as { results: Record<string, unknown>[] };
    expect(results).toEqual([{ describe: { id: ids.bobs, name: 'bobs-wgs' } }, {}, { describe: { id: ids['alpha-wgs'], name: 'alpha-wgs' } }, {}]);
  });
});
