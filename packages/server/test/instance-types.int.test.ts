import { isApiError } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from './harness.js';

/** system/describeInstanceTypes (Panx extension): the catalogue with prices the web runner offers. */
describe('system/describeInstanceTypes', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform();
  }, 60_000);
  afterAll(() => t?.close());

  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      if (isApiError(error)) return { type: error.type, message: error.message };
      throw error;
    }
    throw new Error('expected the call to fail');
  };

  it("answers the default region's catalogue, sorted by size, with prices and the regional default", async () => {
    const user = await t.newUser();
    const answer = await user.client.call('system/describeInstanceTypes', {});
    expect(answer.region).toBe('aws:us-east-1');
    expect(answer.currency).toBe('USD');
    expect(answer.defaultInstanceType).toBe('mem2_hdd2_x2');
    expect(answer.instanceTypes.find((type) => type.name === 'mem2_hdd2_x2')).toEqual({
      name: 'mem2_hdd2_x2',
      cores: 2,
      memoryMB: 7680,
      diskGB: 840,
      pricePerHour: 0.15,
    });
    const cores = answer.instanceTypes.map((type) => type.cores);
    expect(cores).toEqual([...cores].sort((a, b) => a - b));
    expect(answer.instanceTypes.every((type) => type.pricePerHour > 0)).toBe(true);
  });

  it('with a project: its region and its own default type; VIEW is enough, no access is not found', async () => {
    const owner = await t.newUser();
    const viewer = await t.newUser();
    const stranger = await t.newUser();
    const { id: project } = await owner.client.call('project/new', { name: 'typed', region: 'aws:eu-central-1' });
    await owner.client.call('project-xxxx/update', project, { defaultInstanceType: 'mem3_ssd1_x4' });
    await owner.client.call('project-xxxx/invite', project, { invitee: viewer.id, level: 'VIEW', suppressEmailNotification: true });
    const answer = await viewer.client.call('system/describeInstanceTypes', { project });
    expect(answer).toMatchObject({ region: 'aws:eu-central-1', defaultInstanceType: 'mem3_ssd1_x4' });
    expect(await failure(stranger.client.call('system/describeInstanceTypes', { project }))).toMatchObject({ type: 'ResourceNotFound' });
  });

  it('refuses an unknown region and unknown fields', async () => {
    const user = await t.newUser();
    expect(await failure(user.client.call('system/describeInstanceTypes', { region: 'mars:olympus-1' }))).toEqual({
      type: 'InvalidInput',
      message: '"region": no instance types are configured for the region "mars:olympus-1"',
    });
    expect(await failure(user.client.post('system', 'describeInstanceTypes', { regions: ['aws:us-east-1'] }))).toMatchObject({ type: 'InvalidInput' });
  });
});
