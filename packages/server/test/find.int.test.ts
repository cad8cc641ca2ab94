import type { FindDataObjectsInput } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/lib/ids.js';
import type { FindOptions } from '../src/modules/data-objects/objects.repository.js';
import { sleep, uploadFile } from './data-helpers.js';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';

describe.each(BACKENDS)('findDataObjects, describeDataObjects and resolveDataObjects on $name', (backend) => {
  let t: TestPlatform;
  let project: string;
  const ids: Record<string, string> = {};
  let beforeBeta = 0;
  let afterBeta = 0;

  const find = async (input: FindDataObjectsInput) =>
    (await t.admin.call('system/findDataObjects', { scope: { project }, ...input })).results.map((r) => r.id).sort();
  const these = (...names: string[]) => names.map((name) => ids[name] as string).sort();

  beforeAll(async () => {
    t = await startTestPlatform(backend);
    ({ id: project } = await t.admin.call('project/new', { name: 'find' }));
    for (const folder of ['/x/y', '/xy', '/z']) await t.admin.call('project-xxxx/newFolder', project, { folder, parents: true });
    const record = async (key: string, input: Record<string, unknown>) => {
      ids[key] = (await t.admin.call('record/new', { project, ...input })).id;
    };
    await record('alpha', { name: 'alpha.txt', tags: ['a', 'b'], properties: { k: '1', sample: 'S1' }, types: ['TypeA'], close: true });
    await record('Alpha', { name: 'Alpha.vcf', folder: '/x', tags: ['a'], properties: { k: '2' }, types: ['TypeB'] });
    await sleep(10);
    beforeBeta = Date.now();
    await sleep(10);
    await record('beta', {
      name: 'beta.txt',
      folder: '/x/y',
      tags: ['b', 'c'],
      properties: { other: 'x' },
      types: ['TypeA', 'TypeB'],
      hidden: true,
      close: true,
    });
    await sleep(10);
    afterBeta = Date.now();
    await sleep(10);
    await record('xy', { name: 'in-xy', folder: '/xy', close: true });
    await record('percent', { name: 'per%cent_1', close: true });
    await record('percentLike', { name: 'perXcentY1', close: true });
    ids.bam = (await t.admin.call('file/new', { project, name: 'alpha.bam', folder: '/z' })).id;
    ids.gamma = await uploadFile(t.admin, project, [Buffer.from('gamma')], { name: 'gamma' });
  }, 60_000);
  afterAll(() => t?.close());

  it('filters by class and state', async () => {
    expect(await find({ class: 'file' })).toEqual(these('bam', 'gamma'));
    expect(await find({ class: 'record', state: 'open' })).toEqual(these('Alpha'));
    expect(await find({ state: 'open' })).toEqual(these('Alpha', 'bam'));
    expect(await find({ state: 'closed', class: 'file' })).toEqual(these('gamma'));
  });

  it('matches names exactly, by glob and by regexp with flags', async () => {
    expect(await find({ name: 'alpha.txt' })).toEqual(these('alpha'));
    expect(await find({ name: 'alpha' })).toEqual([]);
    expect(await find({ name: { glob: 'alpha*' } })).toEqual(these('alpha', 'bam'));
    expect(await find({ name: { glob: '?lpha.*' } })).toEqual(these('alpha', 'Alpha', 'bam'));
    expect(await find({ name: { glob: 'alpha.txt' } })).toEqual(these('alpha'));
    // % and _ are literal characters in names, not SQL wildcards.
    expect(await find({ name: { glob: 'per%cent_*' } })).toEqual(these('percent'));
    expect(await find({ name: 'per%cent_1' })).toEqual(these('percent'));
    // Globs without a literal prefix, and wildcards after it, are tested by the database too.
    expect(await find({ name: { glob: '*%cent?1' } })).toEqual(these('percent'));
    expect(await find({ name: { glob: '*cent*1' } })).toEqual(these('percent', 'percentLike'));
    expect(await find({ name: { glob: '*.txt' } })).toEqual(these('alpha'));
    expect(await find({ name: { glob: '*.txt' }, visibility: 'either' })).toEqual(these('alpha', 'beta'));
    expect(await find({ name: { glob: 'per?cent*' } })).toEqual(these('percent', 'percentLike'));
    expect(await find({ name: { glob: 'per_cent*' } })).toEqual([]);
    expect(await find({ name: { regexp: '^alpha' } })).toEqual(these('alpha', 'bam'));
    expect(await find({ name: { regexp: '^alpha', flags: 'i' } })).toEqual(these('alpha', 'Alpha', 'bam'));
    expect(await find({ name: { regexp: '\\.(txt|vcf)$' }, visibility: 'either' })).toEqual(these('alpha', 'Alpha', 'beta'));
    await expectApiError(t.admin.call('system/findDataObjects', { name: { regexp: '(' } }), 'InvalidInput');
  });

  it('filters by tags, properties and types with $and and $or', async () => {
    expect(await find({ tags: 'a' })).toEqual(these('alpha', 'Alpha'));
    expect(await find({ tags: { $and: ['a', 'b'] } })).toEqual(these('alpha'));
    expect(await find({ tags: { $or: ['c', 'a'] }, visibility: 'either' })).toEqual(these('alpha', 'Alpha', 'beta'));
    expect(await find({ tags: { $or: [{ $and: ['b', 'c'] }, 'zzz'] }, visibility: 'either' })).toEqual(these('beta'));
    expect(await find({ properties: { k: '1' } })).toEqual(these('alpha'));
    expect(await find({ properties: { k: true } })).toEqual(these('alpha', 'Alpha'));
    expect(await find({ properties: { k: true, sample: 'S1' } })).toEqual(these('alpha'));
    expect(await find({ properties: { $or: [{ k: '2' }, { other: true }] }, visibility: 'either' })).toEqual(these('Alpha', 'beta'));
    expect(await find({ properties: { $and: [{ k: true }, { sample: 'S2' }] } })).toEqual([]);
    expect(await find({ type: 'TypeA', visibility: 'either' })).toEqual(these('alpha', 'beta'));
    expect(await find({ type: { $and: ['TypeA', 'TypeB'] }, visibility: 'either' })).toEqual(these('beta'));
  });

  it('scopes to a folder, recursively or not, without leaking into sibling folders', async () => {
    const scoped = async (folder: string, recurse?: boolean) =>
      (
        await t.admin.call('system/findDataObjects', { scope: { project, folder, ...(recurse === undefined ? {} : { recurse }) }, visibility: 'either' })
      ).results
        .map((r) => r.id)
        .sort();
    expect(await scoped('/x', false)).toEqual(these('Alpha'));
    expect(await scoped('/x')).toEqual(these('Alpha', 'beta'));
    expect(await scoped('/x/', true)).toEqual(these('Alpha', 'beta'));
    expect(await scoped('/xy')).toEqual(these('xy'));
    expect(await scoped('/', false)).toEqual(these('alpha', 'percent', 'percentLike', 'gamma'));
    expect((await scoped('/')).length).toBe(Object.keys(ids).length);
    await expectApiError(t.admin.call('system/findDataObjects', { scope: { project, folder: '/missing' } }), 'ResourceNotFound');
  });

  it('filters by created and modified ranges, and by id', async () => {
    expect(await find({ created: { after: beforeBeta, before: afterBeta }, visibility: 'either' })).toEqual(these('beta'));
    expect(await find({ created: { before: beforeBeta } })).toEqual(these('alpha', 'Alpha'));
    await sleep(5); // `after` includes its own millisecond: nothing else may have been modified in it
    const touched = Date.now();
    await sleep(5);
    await t.admin.call('record-xxxx/addTags', ids.alpha as string, { tags: ['touched'] });
    expect(await find({ modified: { after: touched } })).toEqual(these('alpha'));
    await t.admin.call('record-xxxx/removeTags', ids.alpha as string, { tags: ['touched'] });
    expect(await find({ id: these('alpha', 'gamma', 'beta') })).toEqual(these('alpha', 'gamma'));
  });

  it('describes results with true or with options', async () => {
    const full = await t.admin.call('system/findDataObjects', { scope: { project }, name: 'gamma', describe: true });
    expect(full.results).toHaveLength(1);
    expect(full.results[0]).toMatchObject({
      project,
      id: ids.gamma,
      describe: { id: ids.gamma, name: 'gamma', class: 'file', size: 5, state: 'closed', media: 'text/plain' },
    });
    const some = await t.admin.call('system/findDataObjects', {
      scope: { project },
      name: 'alpha.txt',
      describe: { fields: { name: true, properties: true } },
    });
    expect(some.results[0]?.describe).toEqual({ id: ids.alpha, name: 'alpha.txt', properties: { k: '1', sample: 'S1' } });
    const parts = await t.admin.call('system/findDataObjects', { scope: { project }, name: 'gamma', describe: { parts: true, size: true } });
    expect((parts.results[0]?.describe as { parts?: unknown } | undefined)?.parts).toMatchObject({ '1': { state: 'complete', size: 5 } });
  });

  it('filters by the minimum level across projects', async () => {
    const user = await t.newUser();
    const { id: viewable } = await t.admin.call('project/new', { name: 'viewable' });
    const { id: writable } = await t.admin.call('project/new', { name: 'writable' });
    await t.admin.call('project-xxxx/invite', viewable, { invitee: user.id, level: 'VIEW' });
    await t.admin.call('project-xxxx/invite', writable, { invitee: user.id, level: 'CONTRIBUTE' });
    const { id: v } = await t.admin.call('record/new', { project: viewable, name: 'lvl' });
    const { id: w } = await t.admin.call('record/new', { project: writable, name: 'lvl' });
    const search = async (input: FindDataObjectsInput) =>
      (await user.client.call('system/findDataObjects', input)).results.map((r) => `${r.project}:${r.id}`).sort();
    expect(await search({ name: 'lvl' })).toEqual([`${viewable}:${v}`, `${writable}:${w}`].sort());
    expect(await search({ name: 'lvl', level: 'VIEW' })).toEqual([`${viewable}:${v}`, `${writable}:${w}`].sort());
    expect(await search({ name: 'lvl', level: 'CONTRIBUTE' })).toEqual([`${writable}:${w}`]);
    expect(await search({ name: 'lvl', level: 'ADMINISTER' })).toEqual([]);
    expect(await search({ name: 'alpha.txt' })).toEqual([]);
    await expectApiError(user.client.call('system/findDataObjects', { scope: { project } }), 'ResourceNotFound');
  });

  it('validates limit and starting', async () => {
    await expectApiError(t.admin.call('system/findDataObjects', { limit: 1001 }), 'InvalidInput');
    await expectApiError(t.admin.call('system/findDataObjects', { limit: 0 }), 'InvalidInput');
    await expectApiError(t.admin.call('system/findDataObjects', { starting: 'garbage' }), 'InvalidInput');
  });

  describe('paging over ~2,500 objects in three projects', () => {
    const inserted = new Map<string, string[]>();
    const all = new Set<string>();
    beforeAll(async () => {
      const now = Date.now();
      for (const [name, count] of [
        ['page-1', 1200],
        ['page-2', 800],
        ['page-3', 500],
      ] as const) {
        const { id: pid } = await t.admin.call('project/new', { name });
        const objectIds: string[] = [];
        // Written straight through the repository (one transaction per project) to keep the suite fast;
        // everything read back goes through the API.
        await t.platform.stores.transaction(async (tx) => {
          for (let i = 0; i < count; i++) {
            const id = newId('record');
            objectIds.push(id);
            await tx.objects.insert(
              {
                id,
                class: 'record',
                state: 'closed',
                media: '',
                size: null,
                blobKey: null,
                uploadId: null,
                content: '{}',
                createdBy: '{"user":"user-admin"}',
                created: now,
                stateChanged: now,
              },
              {
                projectId: pid,
                objectId: id,
                class: 'record',
                name: `paged-${String(i).padStart(4, '0')}`,
                folder: '/',
                hidden: 0,
                tags: i % 7 === 0 ? '["seventh"]' : '[]',
                types: '["Paged"]',
                properties: '{}',
                details: '{}',
                created: now,
                modified: now,
              },
            );
          }
        });
        inserted.set(pid, objectIds);
        for (const id of objectIds) all.add(`${pid}:${id}`);
      }
    }, 120_000);

    async function walk(input: FindDataObjectsInput, limits: (page: number) => number) {
      const seen: string[] = [];
      const sizes: number[] = [];
      let starting: unknown;
      for (let page = 0; page < 100; page++) {
        const limit = limits(page);
        const answer = await t.admin.call('system/findDataObjects', { ...input, limit, ...(starting === undefined ? {} : { starting }) });
        expect(answer.results.length).toBeLessThanOrEqual(limit);
        sizes.push(answer.results.length);
        seen.push(...answer.results.map((r) => `${r.project}:${r.id}`));
        if (answer.next === null) return { seen, sizes };
        expect(answer.results.length).toBe(limit);
        starting = answer.next;
      }
      throw new Error('paging did not end');
    }

    it('pages the way dxpy does (100, doubling up to 1000) with no duplicates and no gaps', async () => {
      const { seen, sizes } = await walk({ name: { glob: 'paged-*' }, type: 'Paged' }, (page) => Math.min(1000, 100 * 2 ** page));
      expect(new Set(seen).size).toBe(seen.length);
      expect(new Set(seen)).toEqual(all);
      expect(sizes).toEqual([100, 200, 400, 800, 1000]);
    });

    it('pages at the maximum limit and ends with a next-less page, also on an exact multiple', async () => {
      const [p1, p2, p3] = [...inserted.keys()] as [string, string, string];
      const one = await walk({ scope: { project: p1 } }, () => 1000);
      expect(one.sizes).toEqual([1000, 200]);
      expect(new Set(one.seen)).toEqual(new Set((inserted.get(p1) ?? []).map((id) => `${p1}:${id}`)));
      const exact = await walk({ scope: { project: p2 } }, () => 400);
      expect(exact.sizes).toEqual([400, 400]);
      expect(new Set(exact.seen).size).toBe(800);
      const single = await walk({ scope: { project: p3 } }, () => 500);
      expect(single.sizes).toEqual([500]);
    });

    it('pages a name glob in one project (keys and names only, no rows) with no duplicates and no gaps', async () => {
      const [p1, p2] = [...inserted.keys()] as [string, string];
      const names = (pid: string, keep: (i: number) => boolean) => new Set((inserted.get(pid) ?? []).filter((_, i) => keep(i)).map((id) => `${pid}:${id}`));
      // 1,200 matches at the maximum limit: a full page, then the rest.
      const wide = await walk({ name: { glob: 'paged-*' }, scope: { project: p1 } }, () => 1000);
      expect(wide.sizes).toEqual([1000, 200]);
      expect(new Set(wide.seen)).toEqual(names(p1, () => true));
      // On an exact multiple of the limit the last full page has no next.
      const exact = await walk({ name: { glob: 'paged-*' }, scope: { project: p2 } }, () => 400);
      expect(exact.sizes).toEqual([400, 400]);
      expect(new Set(exact.seen)).toEqual(names(p2, () => true));
      // Most names under the literal prefix fail the rest of the glob: the test runs after the query.
      const sparse = await walk({ name: { glob: 'paged-0*7' }, scope: { project: p1 } }, () => 30);
      expect(new Set(sparse.seen).size).toBe(sparse.seen.length);
      expect(new Set(sparse.seen)).toEqual(names(p1, (i) => i < 1000 && i % 10 === 7));
      expect(sparse.sizes).toEqual([30, 30, 30, 10]);
    });

    it('pages a glob the same whatever part of it SQLite walks along the primary key and reads from the name index', async () => {
      const [p1] = [...inserted.keys()] as [string];
      const expected = (inserted.get(p1) ?? []).filter((_, i) => i % 10 === 7).sort();
      const plans: [string, string, FindOptions][] = [
        ...[1, 45, 200, 1_000_000].map((first): [string, string, FindOptions] => ['*7', '', { prefixlessWalk: { first, second: 2 * first } }]),
        ['paged-*7', 'paged-', { widePrefixMatches: 1_000_000 }],
        ...[1, 45, 200, 1_000_000].map((first): [string, string, FindOptions] => [
          'paged-*7',
          'paged-',
          { widePrefixMatches: 10, widePrefixWalk: { first, second: first } },
        ]),
      ];
      for (const [nameGlob, namePrefix, options] of plans) {
        const names: string[] = [];
        const rows: string[] = [];
        let after: { projectId: string; objectId: string } | undefined;
        for (let page = 0; page < 20; page++) {
          const query = { projectIds: [p1], visibility: 'visible' as const, nameGlob, namePrefix, after, limit: 25 };
          const found = await t.platform.stores.objects.findNames(query, options);
          expect(found.every((row) => row.name.endsWith('7'))).toBe(true);
          const whole = await t.platform.stores.objects.find(query, options);
          expect(whole.map((row) => row.objectId)).toEqual(found.map((row) => row.objectId));
          names.push(...found.map((row) => row.objectId));
          rows.push(...whole.map((row) => row.objectId));
          const last = found.at(-1);
          if (found.length < 25 || !last) break;
          after = { projectId: p1, objectId: last.objectId };
        }
        expect(names, `${nameGlob} ${JSON.stringify(options)}`).toEqual(expected);
        expect(rows).toEqual(expected);
      }
    });

    it('pages correctly when most rows are filtered out after the database query', async () => {
      const expected = [...inserted.entries()].flatMap(([pid, objectIds]) => objectIds.filter((_, i) => i % 7 === 0).map((id) => `${pid}:${id}`));
      const { seen } = await walk({ tags: 'seventh' }, () => 50);
      expect(seen.length).toBe(expected.length);
      expect(new Set(seen)).toEqual(new Set(expected));
    });
  });

  it('describes many objects in input order, with {} for the ones it cannot describe', async () => {
    const { id: hidden } = await t.admin.call('project/new', { name: 'not shared' });
    const { id: secret } = await t.admin.call('record/new', { project: hidden, name: 'secret' });
    const user = await t.newUser();
    await t.admin.call('project-xxxx/invite', project, { invitee: user.id, level: 'VIEW' });
    const answer = await user.client.call('system/describeDataObjects', {
      objects: [
        ids.gamma as string,
        'record-000000000000000000000000',
        { id: ids.alpha as string, describe: { fields: { name: true } } },
        secret,
        { id: ids.Alpha as string, project },
        'not-an-id',
      ],
      classDescribeOptions: { record: { fields: { tags: true } }, '*': { fields: { name: true, size: true } } },
    });
    expect(answer.results).toEqual([
      { describe: { id: ids.gamma, name: 'gamma', size: 5 } },
      {},
      { describe: { id: ids.alpha, name: 'alpha.txt' } },
      {},
      { describe: { id: ids.Alpha, tags: ['a'] } },
      {},
    ]);
    const plain = await t.admin.call('system/describeDataObjects', { objects: [ids.alpha as string] });
    expect(plain.results[0]).toMatchObject({ describe: { id: ids.alpha, name: 'alpha.txt', class: 'record', project } });
  });

  it('resolves names in a folder and ids to the copies the caller can see', async () => {
    const { id: other } = await t.admin.call('project/new', { name: 'resolve-other' });
    await t.admin.call('project-xxxx/clone', project, { objects: [ids.alpha as string], project: other });
    const { id: dup1 } = await t.admin.call('record/new', { project, name: 'dup', folder: '/z' });
    const { id: dup2 } = await t.admin.call('record/new', { project, name: 'dup', folder: '/z' });
    const answer = await t.admin.call('system/resolveDataObjects', {
      project,
      folder: '/',
      objects: [
        { name: 'alpha.txt' },
        { name: 'Alpha.vcf', folder: '/x' },
        { name: 'Alpha.vcf' },
        { name: 'dup', folder: '/z' },
        { name: 'beta.txt', folder: '/x/y' },
        { name: 'anything', folder: '/missing' },
        { id: ids.alpha as string },
        { id: ids.alpha as string, project: other },
        { id: 'record-000000000000000000000000' },
        { name: 'alpha.txt', project: other },
      ],
    });
    const byKey = (list: { project: string; id: string }[]) => [...list].sort((a, b) => (`${a.project}:${a.id}` < `${b.project}:${b.id}` ? -1 : 1));
    expect(answer.results.map(byKey)).toEqual([
      [{ project, id: ids.alpha }],
      [{ project, id: ids.Alpha }],
      [],
      byKey([
        { project, id: dup1 },
        { project, id: dup2 },
      ]),
      [{ project, id: ids.beta }],
      [],
      [{ project, id: ids.alpha }],
      [{ project: other, id: ids.alpha }],
      [],
      [{ project: other, id: ids.alpha }],
    ]);
    // Without a project (top-level or in the query) an id resolves to every copy the caller can see.
    const everywhere = await t.admin.call('system/resolveDataObjects', { objects: [{ id: ids.alpha as string }] });
    expect(everywhere.results.map(byKey)).toEqual([
      byKey([
        { project, id: ids.alpha as string },
        { project: other, id: ids.alpha as string },
      ]),
    ]);
    const viewer = await t.newUser();
    await t.admin.call('project-xxxx/invite', other, { invitee: viewer.id, level: 'VIEW' });
    const seen = await viewer.client.call('system/resolveDataObjects', { objects: [{ id: ids.alpha as string }, { name: 'alpha.txt', project }] });
    expect(seen.results).toEqual([[{ project: other, id: ids.alpha }], []]);
    await expectApiError(t.admin.call('system/resolveDataObjects', { objects: [{ name: 'x' }] }), 'InvalidInput');
    await expectApiError(t.admin.call('system/resolveDataObjects', { project, objects: Array.from({ length: 1001 }, () => ({ name: 'x' })) }), 'InvalidInput');
  });
});
