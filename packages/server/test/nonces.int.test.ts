import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe.each(BACKENDS)('nonces on $name', (backend) => {
  let t: TestPlatform;
  let project: string;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
    project = (await t.admin.call('project/new', { name: 'nonces' })).id;
  }, 60_000);
  afterAll(() => t?.close());

  it('answers concurrent retries with one nonce with the same object, creating it once', async () => {
    const body = { project, name: 'once.txt', nonce: 'concurrent-nonce-1' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.admin.call('file/new', body)));
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1);
    const found = await t.admin.call('system/findDataObjects', { scope: { project }, name: 'once.txt', visibility: 'either' });
    expect(found.results).toHaveLength(1);
  });

  it('refuses the same nonce with a different body', async () => {
    await t.admin.call('record/new', { project, name: 'a', nonce: 'reused-nonce' });
    await expectApiError(t.admin.call('record/new', { project, name: 'b', nonce: 'reused-nonce' }), 'InvalidInput', 'already used');
  });

  it('lets a retry do the work when the first attempt failed', async () => {
    const body = { project, name: 'later', folder: '/not-yet', nonce: 'failed-first' };
    await expectApiError(t.admin.call('record/new', body), 'ResourceNotFound');
    await t.admin.call('project-xxxx/newFolder', project, { folder: '/not-yet' });
    const { id } = await t.admin.call('record/new', body);
    expect(id).toMatch(/^record-/);
  });
});
