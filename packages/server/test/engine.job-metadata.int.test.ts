/**
 * A job's own metadata over HTTP: job-xxxx/update (priority while it has not finished, refused once
 * it has), addTags / removeTags / setProperties (found by findJobs), and who may change them.
 */
import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeJob, newApplet, waitForJob } from './engine-helpers.js';
import { expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe('job update, tags and properties', () => {
  let t: TestPlatform;
  let owner: { id: string; client: PanxClient };
  let viewer: { id: string; client: PanxClient };
  let project: string;
  let applet: string;

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 8, memoryMB: 16_000 }, tickMs: 200 } });
    owner = await t.newUser();
    viewer = await t.newUser();
    ({ id: project } = await owner.client.call('project/new', { name: 'jobs' }));
    await owner.client.post(project, 'invite', { invitee: viewer.id, level: 'VIEW', suppressEmailNotification: true });
    applet = await newApplet(owner.client, project, {
      name: 'napper',
      inputSpec: [{ name: 'seconds', class: 'int' }],
      code: 'main() { sleep "$seconds"; }',
      ignoreReuse: true,
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('changes the priority of a running job, tags it and sets properties; findJobs finds it by them', async () => {
    const { id } = (await owner.client.post(applet, 'run', { project, input: { seconds: 30 }, priority: 'low' })) as { id: string };
    await waitForJob(owner.client, id, ['running']);
    await owner.client.post(id, 'update', { priority: 'high' });
    await owner.client.post(id, 'addTags', { tags: ['nightly', 'qc', 'nightly'] });
    await owner.client.post(id, 'removeTags', { tags: ['qc'] });
    await owner.client.post(id, 'setProperties', { properties: { batch: '7', sample: 'NA12878' } });
    await owner.client.post(id, 'setProperties', { properties: { sample: null } });
    expect(await describeJob(owner.client, id, { fields: { priority: true, tags: true, properties: true } })).toMatchObject({
      priority: 'high',
      tags: ['nightly'],
      properties: { batch: '7' },
    });
    const byTag = (await owner.client.post('system', 'findJobs', { project, tags: 'nightly' })) as { results: { id: string }[] };
    expect(byTag.results.map((entry) => entry.id)).toEqual([id]);
    const byProperty = (await owner.client.post('system', 'findJobs', { project, properties: { batch: '7' } })) as { results: { id: string }[] };
    expect(byProperty.results.map((entry) => entry.id)).toEqual([id]);

    // A VIEW member sees the job but changes nothing of it.
    await expectApiError(viewer.client.post(id, 'addTags', { tags: ['mine'] }), 'PermissionDenied');
    await expectApiError(viewer.client.post(id, 'update', { priority: 'low' }), 'PermissionDenied');
    expect((await describeJob(viewer.client, id, { fields: { tags: true } })).tags).toEqual(['nightly']);

    await owner.client.post(id, 'terminate', {});
    await waitForJob(owner.client, id);
    // Once it has ended its priority is settled; its tags and properties still change.
    await expectApiError(owner.client.post(id, 'update', { priority: 'low' }), 'InvalidState');
    await owner.client.post(id, 'addTags', { tags: ['reviewed'] });
    expect((await describeJob(owner.client, id, { fields: { tags: true } })).tags).toEqual(['nightly', 'reviewed']);
  }, 90_000);

  it('refuses bad input with InvalidInput: an unknown priority, tags that are not strings', async () => {
    const { id } = (await owner.client.post(applet, 'run', { project, input: { seconds: 0 } })) as { id: string };
    await expectApiError(owner.client.post(id, 'update', { priority: 'urgent' }), 'InvalidInput');
    await expectApiError(owner.client.post(id, 'addTags', { tags: [1] }), 'InvalidInput');
    await expectApiError(owner.client.post(id, 'setProperties', { properties: { a: 1 } }), 'InvalidInput');
    await waitForJob(owner.client, id);
  });
});
