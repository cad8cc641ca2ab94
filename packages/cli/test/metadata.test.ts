import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type PxOptions, pxOk, runPx, tempDir } from './run-px.js';

describe.each(BACKENDS)('px metadata and find commands against a real server on $name', (backend) => {
  let t: TestPlatform;
  let home: string;
  let alpha: string;
  const opts = (extra: Partial<PxOptions> = {}): PxOptions => ({ configDir: home, ...extra });
  const px = (...args: string[]) => runPx(args, opts());
  const ok = (...args: string[]) => pxOk(args, opts());
  const json = async <T>(...args: string[]): Promise<T> => JSON.parse(await ok(...args, '--json')) as T;

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    home = tempDir('px-meta-home-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    alpha = (await ok('new', 'project', 'alpha', '--select')).trim();
    const beta = (await t.admin.call('project/new', { name: 'beta' })).id;
    await t.admin.call('project-xxxx/newFolder', alpha, { folder: '/a' });
    fs.writeFileSync(path.join(home, 'notes.txt'), 'notes\n');
    const notes = (await ok('upload', path.join(home, 'notes.txt'), '-d', '/a/renamed-notes.txt', '--wait')).trim();
    await t.admin.call('project-xxxx/clone', alpha, { objects: [notes], project: beta, destination: '/copied', parents: true });
    await t.admin.call('record/new', { project: alpha, name: 'sample-sheet', close: true });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('tags, sets properties, renames and describes objects and projects', async () => {
    await ok('tag', '/a/renamed-notes.txt', 't1', 't2');
    await ok('untag', '/a/renamed-notes.txt', 't1');
    await ok('set_properties', '/a/renamed-notes.txt', 'sample=S1', 'run=7');
    await ok('unset_properties', '/a/renamed-notes.txt', 'run');
    await ok('rename', '/a/renamed-notes.txt', 'notes.txt');
    const described = await json<{ id: string; name: string; tags: string[]; properties: Record<string, string>; size: number }>('describe', '/a/notes.txt');
    expect(described).toMatchObject({ name: 'notes.txt', tags: ['t2'], properties: { sample: 'S1' }, size: 6, class: 'file', state: 'closed' });
    const byId = await json<{ name: string }>('describe', described.id);
    expect(byId.name).toBe('notes.txt');
    const text = await ok('describe', 'a/notes.txt');
    expect(text).toMatch(/^ID +file-/);
    expect(text).toMatch(/\nProperties +sample=S1\n/);

    await ok('tag', 'alpha:', 'ptag');
    await ok('set_properties', alpha, 'owner=lab');
    expect(await json('describe', 'alpha:')).toMatchObject({ id: alpha, name: 'alpha', tags: ['ptag'], properties: { owner: 'lab' } });
    expect(await json('describe', 'user-admin')).toMatchObject({ id: 'user-admin', handle: 'admin' });
    expect(await json('describe', 'sample-sheet')).toMatchObject({ class: 'record', name: 'sample-sheet', state: 'closed' });
    await ok('mkdir', '/a/x');
    await ok('rename', '/a/x', 'ex');
    expect((await t.admin.call('project-xxxx/listFolder', alpha, { folder: '/a' })).folders).toEqual(['/a/ex']);

    const missing = await px('describe', '/a/missing.txt');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: ResourceNotFound: /);
  });

  it('finds data objects by name, tag, property, class and folder, and projects by name', async () => {
    type Hit = { id: string; name: string; project: string; folder: string };
    expect((await json<Hit[]>('find', 'data', '--name', '*.txt')).map((hit) => hit.name)).toEqual(['notes.txt']);
    expect((await json<Hit[]>('find', 'data', '--tag', 't2')).map((hit) => hit.name)).toEqual(['notes.txt']);
    expect(await json<Hit[]>('find', 'data', '--tag', 't1')).toEqual([]);
    expect((await json<Hit[]>('find', 'data', '--property', 'sample=S1')).map((hit) => hit.name)).toEqual(['notes.txt']);
    expect((await json<Hit[]>('find', 'data', '--property', 'sample')).length).toBe(1);
    expect((await json<Hit[]>('find', 'data', '--folder', '/a', '--norecurse')).map((hit) => hit.name)).toEqual(['notes.txt']);
    expect((await json<Hit[]>('find', 'data', '--class', 'record')).map((hit) => hit.name)).toEqual(['sample-sheet']);
    const everywhere = await json<Hit[]>('find', 'data', '--all-projects');
    expect(everywhere.map((hit) => `${hit.project === alpha ? 'alpha' : 'beta'}:${path.posix.join(hit.folder, hit.name)}`).sort()).toEqual([
      'alpha:/a/notes.txt',
      'alpha:/sample-sheet',
      'beta:/copied/renamed-notes.txt',
    ]);
    const table = await ok('find', 'data', '--name', 'notes.txt');
    expect(table).toMatch(/^STATE +MODIFIED +SIZE +PATH \(ID\)\nclosed .* 6 B +\/a\/notes\.txt \(file-/);
    expect(await json('find', 'projects', '--name', 'al*')).toEqual([{ id: alpha, name: 'alpha', level: 'ADMINISTER' }]);
    expect((await px('find', 'data', '--class', 'banana')).code).toBe(3);
  });
});
