/**
 * A project's closed bytes (its `dataUsage`) are kept as a counter that every change of copies and
 * file states adjusts (objects.repository.ts). After each step of a realistic sequence — files closed,
 * open files, clones of objects and folders, removals, moves, a whole project destroyed, and changes
 * made at the same time — every container's counter equals the sum over its copies.
 */
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadFile, waitForState } from './data-helpers.js';
import { BACKENDS, startTestPlatform, type TestPlatform } from './harness.js';

const MiB = 1024 * 1024;

describe.each(BACKENDS)('project data usage on $name', (backend) => {
  let t: TestPlatform;
  let user: { id: string; client: PanxClient };
  const projects: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    user = await t.newUser();
    for (const name of ['a', 'b', 'c']) projects[name] = (await user.client.call('project/new', { name })).id;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Every container's counter against the sum over its copies; answers the counters by name. */
  async function expectConsistent(): Promise<Record<string, number>> {
    const counters: Record<string, number> = {};
    for (const [name, id] of Object.entries(projects)) {
      const row = await t.platform.stores.projects.findById(id);
      if (!row) continue; // destroyed
      const summed = await t.platform.stores.objects.sumClosedBytes(id);
      expect(Number(row.closedBytes), `${name} (${id})`).toBe(summed);
      counters[name] = Number(row.closedBytes);
    }
    return counters;
  }

  it('follows closes, clones, moves and removals, and a destroyed project', async () => {
    const { a, b, c } = projects as { a: string; b: string; c: string };
    const one = await uploadFile(user.client, a, [Buffer.alloc(1000, 1)], { name: 'one.txt', folder: '/x', parents: true });
    const two = await uploadFile(user.client, a, [Buffer.alloc(5 * MiB, 2), Buffer.alloc(3000, 3)], { name: 'two.bin', folder: '/x', parents: true });
    const open = await uploadFile(user.client, a, [Buffer.alloc(700, 4)], { name: 'open.txt', close: false });
    expect(await expectConsistent()).toMatchObject({ a: 1000 + 5 * MiB + 3000, b: 0, c: 0 });
    // The project's describe reports the counter (in GiB, as DNAnexus does).
    const described = await user.client.call('project-xxxx/describe', a, { fields: { dataUsage: true } });
    expect(described.dataUsage).toBeCloseTo((1000 + 5 * MiB + 3000) / 1024 ** 3, 6);

    await user.client.call('project-xxxx/clone', a, { objects: [one], project: b, destination: '/' });
    await user.client.call('project-xxxx/clone', a, { folders: ['/x'], project: c, destination: '/', parents: true });
    expect(await expectConsistent()).toMatchObject({ b: 1000, c: 1000 + 5 * MiB + 3000 });

    // The open file closes: it counts from then on, and in the containers it is cloned to.
    await user.client.call('file-xxxx/close', open, {});
    await waitForState(user.client, open, 'closed');
    expect(await expectConsistent()).toMatchObject({ a: 1000 + 5 * MiB + 3000 + 700, b: 1000 });
    await user.client.call('project-xxxx/clone', a, { objects: [open], project: b, destination: '/' });
    expect(await expectConsistent()).toMatchObject({ b: 1700 });

    await user.client.call('project-xxxx/newFolder', b, { folder: '/moved' });
    await user.client.call('project-xxxx/move', b, { objects: [one], destination: '/moved' });
    await user.client.call('project-xxxx/removeObjects', a, { objects: [two] });
    await user.client.call('project-xxxx/removeFolder', c, { folder: '/x', recurse: true });
    expect(await expectConsistent()).toMatchObject({ a: 1700, b: 1700, c: 0 });

    await user.client.call('project-xxxx/clone', a, { objects: [one], project: c, destination: '/' });
    await user.client.call('project-xxxx/destroy', c, {});
    delete projects.c;
    expect(await expectConsistent()).toMatchObject({ a: 1700, b: 1700 });
  });

  it('adds up changes made at the same time to the same objects', async () => {
    const { a, b } = projects as { a: string; b: string };
    const before = await expectConsistent();
    const files = await Promise.all([1, 2, 3, 4].map((i) => uploadFile(user.client, a, [Buffer.alloc(100 * i, i)], { name: `race-${i}`, close: false })));
    // Files close while others are cloned and removed, all at once.
    const closed = await Promise.all([1, 2].map((i) => uploadFile(user.client, a, [Buffer.alloc(1000 * i, i)], { name: `done-${i}` })));
    // Some of these lose the race (a removal of what the other already removed, a clone of what was
    // removed meanwhile): whatever wins, the counters must equal the sums.
    await Promise.allSettled([
      ...files.map((id) => user.client.call('file-xxxx/close', id, {})),
      user.client.call('project-xxxx/clone', a, { objects: closed, project: b, destination: '/' }),
      user.client.call('project-xxxx/removeObjects', a, { objects: [closed[0] as string] }),
      user.client.call('project-xxxx/removeObjects', a, { objects: [closed[0] as string] }),
    ]);
    await Promise.all(files.map((id) => waitForState(user.client, id, 'closed')));
    const after = await expectConsistent();
    expect(after.a).toBe((before.a ?? 0) + 100 + 200 + 300 + 400 + 2000);
    expect([0, 3000].map((bytes) => (before.b ?? 0) + bytes)).toContain(after.b); // the clone lost the race, or made both copies
  });
});
