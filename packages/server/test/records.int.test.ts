import type { PanxClient } from '@panx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitForState } from './data-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

type Cls = 'file' | 'record';

/** A new object of the class; closed ones are a closed record, or a closed empty file. */
async function newObject(
  client: PanxClient,
  cls: Cls,
  project: string,
  options: { name?: string; folder?: string; tags?: string[]; properties?: Record<string, string>; details?: unknown; closed?: boolean } = {},
): Promise<string> {
  const { closed = false, ...rest } = options;
  if (cls === 'record') return (await client.call('record/new', { project, ...rest, close: closed })).id;
  const { id } = await client.call('file/new', { project, ...rest });
  if (closed) {
    await client.call('file-xxxx/close', id, {});
    await waitForState(client, id, 'closed');
  }
  return id;
}

/** An instance route of the object (`_cls` only documents which class the call is for). */
function call(client: PanxClient, _cls: Cls, method: string, id: string, input: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return client.post(id, method, input) as Promise<Record<string, unknown>>;
}

describe.each(BACKENDS)('records on $name', (backend) => {
  let t: TestPlatform;
  let project: string;
  beforeAll(async () => {
    t = await startTestPlatform(backend);
    ({ id: project } = await t.admin.call('project/new', { name: 'records' }));
  }, 60_000);
  afterAll(() => t?.close());

  it('creates a closed record with details, types, tags and properties', async () => {
    const details = { samples: ['NA12878'], reference: { $dnanexus_link: 'file-000000000000000000000001' } };
    const { id } = await t.admin.call('record/new', {
      project,
      name: 'sheet',
      folder: '/meta/sheets',
      parents: true,
      types: ['SampleSheet', 'SampleSheet'],
      tags: ['t1'],
      properties: { run: '42' },
      details,
      close: true,
    });
    expect(id).toMatch(/^record-[0-9A-Za-z]{24}$/);
    const described = await t.admin.call('record-xxxx/describe', id, { project, properties: true, details: true });
    expect(described).toMatchObject({
      id,
      class: 'record',
      project,
      folder: '/meta/sheets',
      name: 'sheet',
      state: 'closed',
      hidden: false,
      types: ['SampleSheet'],
      tags: ['t1'],
      properties: { run: '42' },
      details,
      links: ['file-000000000000000000000001'],
      sponsored: false,
      createdBy: { user: 'user-admin' },
    });
    expect(await t.admin.call('record-xxxx/getDetails', id, {})).toEqual(details);
    await expectApiError(t.admin.call('record-xxxx/setDetails', id, { details: { x: 1 } }), 'InvalidState');
    const byLink = await t.admin.call('system/findDataObjects', { scope: { project }, link: 'file-000000000000000000000001' });
    expect(byLink.results.map((r) => r.id)).toEqual([id]);
  });

  it('names a record after its id by default and needs an existing folder unless parents is set', async () => {
    const { id } = await t.admin.call('record/new', { project });
    expect((await t.admin.call('record-xxxx/describe', id, {})).name).toBe(id);
    await expectApiError(t.admin.call('record/new', { project, folder: '/does/not/exist' }), 'ResourceNotFound');
  });

  it('sets details only while open, then closes', async () => {
    const { id } = await t.admin.call('record/new', { project, name: 'draft', details: { v: 1 } });
    expect((await t.admin.call('record-xxxx/describe', id, {})).state).toBe('open');
    await t.admin.call('record-xxxx/setDetails', id, { details: { v: 2, list: [1, 2, 3] } });
    expect(await t.admin.call('record-xxxx/getDetails', id, {})).toEqual({ v: 2, list: [1, 2, 3] });
    await t.admin.call('record-xxxx/setDetails', id, { details: ['any', 'json'] });
    expect(await t.admin.call('record-xxxx/getDetails', id, {})).toEqual(['any', 'json']);
    await expectApiError(t.admin.call('record-xxxx/setDetails', id, { details: { big: 'x'.repeat(2 * 1024 * 1024) } }), 'InvalidInput', '2 MiB');
    expect(await t.admin.call('record-xxxx/close', id, {})).toEqual({ id });
    expect((await t.admin.call('record-xxxx/describe', id, {})).state).toBe('closed');
    await expectApiError(t.admin.call('record-xxxx/setDetails', id, { details: { v: 3 } }), 'InvalidState');
    expect(await t.admin.call('record-xxxx/getDetails', id, {})).toEqual(['any', 'json']);
    expect(await t.admin.call('record-xxxx/close', id, {})).toEqual({ id });
  });

  it('initialises a record from another, with explicit fields taking precedence', async () => {
    const { id: source } = await t.admin.call('record/new', {
      project,
      name: 'template',
      types: ['T'],
      tags: ['from-template'],
      properties: { a: '1' },
      details: { d: true },
      close: true,
    });
    const { id } = await t.admin.call('record/new', { project, name: 'copy', tags: ['mine'], initializeFrom: { id: source, project } });
    const described = await t.admin.call('record-xxxx/describe', id, { properties: true, details: true });
    expect(described).toMatchObject({ name: 'copy', types: ['T'], tags: ['mine'], properties: { a: '1' }, details: { d: true }, state: 'open' });
    await expectApiError(t.admin.call('record/new', { project, initializeFrom: { id: 'record-000000000000000000000000', project } }), 'ResourceNotFound');
  });

  it('dedupes record/new by nonce', async () => {
    const nonce = `${'b'.repeat(64)}${Date.now() / 1000}`;
    const first = await t.admin.call('record/new', { project, name: 'once', nonce });
    expect((await t.admin.call('record/new', { project, name: 'once', nonce })).id).toBe(first.id);
    await expectApiError(t.admin.call('record/new', { project, name: 'twice', nonce }), 'InvalidInput');
  });

  describe.each(['file', 'record'] as const)('common data object methods on a %s', (cls) => {
    it('describes with the project hint, fields, defaultFields and the legacy booleans', async () => {
      const id = await newObject(t.admin, cls, project, { name: `${cls}-d`, properties: { k: 'v' }, details: { x: 1 } });
      const plain = await call(t.admin, cls, 'describe', id, { project });
      expect(plain).toMatchObject({ id, class: cls, project, folder: '/', name: `${cls}-d`, state: 'open', types: [], tags: [], links: [] });
      expect(plain.properties).toBeUndefined();
      expect(plain.details).toBeUndefined();
      if (cls === 'file') expect(plain).toMatchObject({ media: '', size: 0, archivalState: 'live' });

      const only = await call(t.admin, cls, 'describe', id, { project, fields: { name: true, properties: true } });
      expect(only).toEqual({ id, name: `${cls}-d`, properties: { k: 'v' } });

      const mixed = await call(t.admin, cls, 'describe', id, { defaultFields: true, fields: { tags: false, details: true } });
      expect(mixed.tags).toBeUndefined();
      expect(mixed).toMatchObject({ name: `${cls}-d`, details: { x: 1 }, state: 'open' });

      const legacy = await call(t.admin, cls, 'describe', id, { project, properties: true, details: true });
      expect(legacy).toMatchObject({ name: `${cls}-d`, folder: '/', properties: { k: 'v' }, details: { x: 1 } });

      const { id: elsewhere } = await t.admin.call('project/new', { name: 'elsewhere' });
      await expectApiError(call(t.admin, cls, 'describe', id, { project: elsewhere }), 'ResourceNotFound');
      await expectApiError(call(t.admin, cls, 'describe', `${cls}-000000000000000000000000`, {}), 'ResourceNotFound');
    });

    it('adds and removes tags and types, sets and removes properties, renames, each touching modified', async () => {
      const id = await newObject(t.admin, cls, project, { name: 'before', tags: ['keep'], properties: { a: '1', b: '2' } });
      const { modified: m0 } = await call(t.admin, cls, 'describe', id, {});
      await sleep(5);
      expect(await call(t.admin, cls, 'addTags', id, { project, tags: ['x', 'y', 'keep'] })).toEqual({ id });
      await call(t.admin, cls, 'removeTags', id, { project, tags: ['x', 'absent'] });
      await call(t.admin, cls, 'addTypes', id, { project, types: ['T1', 'T2'] });
      await call(t.admin, cls, 'removeTypes', id, { project, types: ['T1'] });
      await call(t.admin, cls, 'setProperties', id, { project, properties: { a: null, c: '3', b: 'two' } });
      await call(t.admin, cls, 'rename', id, { project, name: 'after' });
      const described = await call(t.admin, cls, 'describe', id, { properties: true });
      expect(described).toMatchObject({ name: 'after', tags: ['keep', 'y'], types: ['T2'], properties: { b: 'two', c: '3' } });
      expect(described.modified as number).toBeGreaterThan(m0 as number);
      await expectApiError(call(t.admin, cls, 'rename', id, { name: '' }), 'InvalidInput');
      await expectApiError(call(t.admin, cls, 'addTags', id, { tags: [''] }), 'InvalidInput');
    });

    it('sets details while open only', async () => {
      const open = await newObject(t.admin, cls, project, { details: { v: 1 } });
      await call(t.admin, cls, 'setDetails', open, { details: { v: 2 } });
      expect(await t.admin.post(open, 'getDetails', {})).toEqual({ v: 2 });
      const closed = await newObject(t.admin, cls, project, { details: { v: 1 }, closed: true });
      await expectApiError(call(t.admin, cls, 'setDetails', closed, { details: { v: 2 } }), 'InvalidState');
      expect(await t.admin.post(closed, 'getDetails', {})).toEqual({ v: 1 });
    });

    it('hides objects from listFolder unless includeHidden, and from find unless visibility hidden or either', async () => {
      const folder = `/visibility-${cls}`;
      await t.admin.call('project-xxxx/newFolder', project, { folder });
      const a = await newObject(t.admin, cls, project, { name: 'a', folder });
      const b = await newObject(t.admin, cls, project, { name: 'b', folder });
      expect(await call(t.admin, cls, 'setVisibility', b, { project, hidden: true })).toEqual({ id: b });
      expect((await call(t.admin, cls, 'describe', b, {})).hidden).toBe(true);
      const ids = async (input: Record<string, unknown>) =>
        ((await t.admin.call('project-xxxx/listFolder', project, { folder, ...input })).objects.map((o) => o.id) as string[]).sort();
      expect(await ids({})).toEqual([a]);
      expect(await ids({ includeHidden: true })).toEqual([a, b].sort());
      const find = async (visibility?: 'visible' | 'hidden' | 'either') =>
        (await t.admin.call('system/findDataObjects', { scope: { project, folder }, class: cls, ...(visibility ? { visibility } : {}) })).results
          .map((r) => r.id)
          .sort();
      expect(await find()).toEqual([a]);
      expect(await find('visible')).toEqual([a]);
      expect(await find('hidden')).toEqual([b]);
      expect(await find('either')).toEqual([a, b].sort());
      await call(t.admin, cls, 'setVisibility', b, { hidden: false });
      expect(await ids({})).toEqual([a, b].sort());
    });

    it('keeps the id when cloned, lists both projects, and keeps metadata per project copy', async () => {
      const { id: other } = await t.admin.call('project/new', { name: `clone-target-${cls}` });
      const id = await newObject(t.admin, cls, project, { name: 'original', tags: ['t'], properties: { p: '1' }, closed: true });
      const cloned = await t.admin.call('project-xxxx/clone', project, { objects: [id], project: other, destination: '/copies', parents: true });
      expect(cloned).toEqual({ id: project, project: other, exists: [] });
      expect(await call(t.admin, cls, 'listProjects', id, {})).toEqual({ [project]: 'ADMINISTER', [other]: 'ADMINISTER' });
      expect(await call(t.admin, cls, 'describe', id, { project: other })).toMatchObject({ id, project: other, folder: '/copies', name: 'original' });

      await call(t.admin, cls, 'rename', id, { project: other, name: 'the copy' });
      await call(t.admin, cls, 'addTags', id, { project: other, tags: ['copy-only'] });
      await call(t.admin, cls, 'setProperties', id, { project, properties: { p: null, q: 'orig' } });
      const inSource = await call(t.admin, cls, 'describe', id, { project, properties: true });
      const inCopy = await call(t.admin, cls, 'describe', id, { project: other, properties: true });
      expect(inSource).toMatchObject({ name: 'original', tags: ['t'], properties: { q: 'orig' } });
      expect(inCopy).toMatchObject({ name: 'the copy', tags: ['t', 'copy-only'], properties: { p: '1' } });

      // Cloning again reports it as existing; a member of only one project sees only that one.
      const again = await t.admin.call('project-xxxx/clone', project, { objects: [id], project: other });
      expect(again.exists).toEqual([id]);
      const viewer = await t.newUser();
      await t.admin.call('project-xxxx/invite', other, { invitee: viewer.id, level: 'VIEW' });
      expect(await call(viewer.client, cls, 'listProjects', id, {})).toEqual({ [other]: 'VIEW' });
      expect((await call(viewer.client, cls, 'describe', id, {})).name).toBe('the copy');
      const stranger = await t.newUser();
      await expectApiError(call(stranger.client, cls, 'listProjects', id, {}), 'ResourceNotFound');
    });

    it('enforces levels: VIEW reads only, UPLOAD changes open objects only, CONTRIBUTE changes closed ones', async () => {
      const viewer = await t.newUser();
      const uploader = await t.newUser();
      const contributor = await t.newUser();
      const { id: shared } = await t.admin.call('project/new', { name: `levels-${cls}` });
      for (const [user, level] of [
        [viewer, 'VIEW'],
        [uploader, 'UPLOAD'],
        [contributor, 'CONTRIBUTE'],
      ] as const) {
        await t.admin.call('project-xxxx/invite', shared, { invitee: user.id, level });
      }
      const open = await newObject(t.admin, cls, shared, { name: 'open' });
      const closed = await newObject(t.admin, cls, shared, { name: 'closed', closed: true });
      expect((await call(viewer.client, cls, 'describe', closed, {})).name).toBe('closed');
      await expectApiError(call(viewer.client, cls, 'addTags', open, { tags: ['v'] }), 'PermissionDenied');
      await expectApiError(call(viewer.client, cls, 'setDetails', open, { details: {} }), 'PermissionDenied');
      await call(uploader.client, cls, 'addTags', open, { tags: ['u'] });
      await expectApiError(call(uploader.client, cls, 'addTags', closed, { tags: ['u'] }), 'PermissionDenied');
      await expectApiError(call(uploader.client, cls, 'rename', closed, { name: 'nope' }), 'PermissionDenied');
      await call(contributor.client, cls, 'addTags', closed, { tags: ['c'] });
      await call(contributor.client, cls, 'rename', closed, { name: 'renamed' });
      expect(await call(t.admin, cls, 'describe', closed, { fields: { name: true, tags: true } })).toEqual({ id: closed, name: 'renamed', tags: ['c'] });
      expect((await call(t.admin, cls, 'describe', open, {})).tags).toEqual(['u']);
    });
  });
});
