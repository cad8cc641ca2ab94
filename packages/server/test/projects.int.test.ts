import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe.each(BACKENDS)('projects and folders on $name', (backend) => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
  }, 60_000);
  afterAll(() => t?.close());

  it('creates a project and describes it with fields, defaultFields and legacy booleans', async () => {
    const { id } = await t.admin.call('project/new', { name: 'p1', tags: ['a'] });
    expect(id).toMatch(/^project-[0-9A-Za-z]{24}$/);
    const full = await t.admin.call('project-xxxx/describe', id, {});
    expect(full).toMatchObject({ id, class: 'project', name: 'p1', level: 'ADMINISTER', tags: ['a'], billTo: 'user-admin' });
    expect(full.folders).toBeUndefined();
    const only = await t.admin.call('project-xxxx/describe', id, { fields: { fileUploadParameters: true } });
    expect(Object.keys(only).sort()).toEqual(['fileUploadParameters', 'id']);
    expect(only.fileUploadParameters).toEqual({
      minimumPartSize: 5242880,
      maximumPartSize: 5368709120,
      emptyLastPartAllowed: true,
      maximumNumParts: 10000,
      maximumFileSize: 5497558138880,
    });
    const withFolders = await t.admin.call('project-xxxx/describe', id, { folders: true });
    expect(withFolders.folders).toEqual(['/']);
  });

  it('creates, lists, renames, moves and removes folders', async () => {
    const { id } = await t.admin.call('project/new', { name: 'folders' });
    await t.admin.call('project-xxxx/newFolder', id, { folder: '/a/b/c', parents: true });
    await expectApiError(t.admin.call('project-xxxx/newFolder', id, { folder: '/x/y' }), 'ResourceNotFound');
    const root = await t.admin.call('project-xxxx/listFolder', id, { folder: '/' });
    expect(root.folders).toEqual(['/a']);
    await t.admin.call('project-xxxx/renameFolder', id, { folder: '/a/b', name: 'bee' });
    const a = await t.admin.call('project-xxxx/listFolder', id, { folder: '/a' });
    expect(a.folders).toEqual(['/a/bee']);
    await expectApiError(t.admin.call('project-xxxx/renameFolder', id, { folder: '/a/bee', name: 'x/y' }), 'InvalidInput', 'must not contain "/"');
    await expectApiError(t.admin.call('project-xxxx/listFolder', id, { folder: '/missing' }), 'ResourceNotFound');
    await expectApiError(t.admin.call('project-xxxx/removeFolder', id, { folder: '/a' }), 'InvalidState');
    const removed = await t.admin.call('project-xxxx/removeFolder', id, { folder: '/a', recurse: true, partial: true });
    expect(removed).toEqual({ id, completed: true });
    expect((await t.admin.call('project-xxxx/listFolder', id, {})).folders).toEqual([]);
  });

  it('pages listFolder by id with and without describe, hidden objects only when asked', async () => {
    const { id } = await t.admin.call('project/new', { name: 'paged folder' });
    await t.admin.call('project-xxxx/newFolder', id, { folder: '/paged/sub', parents: true });
    const visible: string[] = [];
    const hidden: string[] = [];
    for (let i = 0; i < 23; i++) {
      const { id: record } = await t.admin.call('record/new', { project: id, name: `r${i}`, folder: '/paged', hidden: i % 4 === 0, close: true });
      (i % 4 === 0 ? hidden : visible).push(record);
    }
    // Not in the folder itself: neither listed nor counted.
    await t.admin.call('record/new', { project: id, name: 'below', folder: '/paged/sub', close: true });
    const walk = async (input: Record<string, unknown>) => {
      const pages: { id: string; describe?: { name?: string } }[][] = [];
      let starting: unknown;
      for (let page = 0; page < 10; page++) {
        const answer = await t.admin.call('project-xxxx/listFolder', id, { folder: '/paged', limit: 5, ...input, ...(starting ? { starting } : {}) });
        pages.push(answer.objects as { id: string; describe?: { name?: string } }[]);
        expect(answer.folders).toEqual(['/paged/sub']);
        if (answer.next === null) return pages;
        expect(answer.next).toBe(answer.objects.at(-1)?.id);
        starting = answer.next;
      }
      throw new Error('paging did not end');
    };
    const ids = (pages: { id: string }[][]) => pages.flat().map((object) => object.id);
    const plain = await walk({});
    expect(plain.map((page) => page.length)).toEqual([5, 5, 5, 2]);
    expect(ids(plain)).toEqual([...visible].sort());
    expect(plain.flat().every((object) => object.describe === undefined)).toBe(true);
    const described = await walk({ describe: { fields: { name: true } } });
    expect(ids(described)).toEqual(ids(plain));
    expect(described.flat().every((object) => /^r\d+$/.test(object.describe?.name ?? ''))).toBe(true);
    const all = await walk({ includeHidden: true });
    expect(all.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
    expect(ids(all)).toEqual([...visible, ...hidden].sort());
    // Without a limit: everything in one answer and no `next` key.
    const whole = await t.admin.call('project-xxxx/listFolder', id, { folder: '/paged' });
    expect(whole.objects.map((object: { id: string }) => object.id)).toEqual(ids(plain));
    expect('next' in whole).toBe(false);
  });

  it('rejects folder names longer than 1000 characters', async () => {
    const { id } = await t.admin.call('project/new', { name: 'long' });
    await expectApiError(t.admin.call('project-xxxx/newFolder', id, { folder: `/${'x'.repeat(1001)}` }), 'InvalidInput', '1000');
    await t.admin.call('project-xxxx/newFolder', id, { folder: `/${'x'.repeat(1000)}` });
  });

  it('shares a project and enforces levels', async () => {
    const bob = await t.newUser();
    const { id } = await t.admin.call('project/new', { name: 'shared' });
    await expectApiError(bob.client.call('project-xxxx/describe', id, {}), 'ResourceNotFound');
    const invited = await t.admin.call('project-xxxx/invite', id, { invitee: bob.id, level: 'VIEW' });
    expect(invited).toEqual({ id, state: 'ACCEPTED' });
    expect((await bob.client.call('project-xxxx/describe', id, {})).level).toBe('VIEW');
    await expectApiError(bob.client.call('project-xxxx/newFolder', id, { folder: '/b' }), 'PermissionDenied');
    await t.admin.call('project-xxxx/decreasePermissions', id, { [bob.id]: null });
    await expectApiError(bob.client.call('project-xxxx/describe', id, {}), 'ResourceNotFound');
  });
});
