/**
 * Who may do what in a project (DNAnexus "Project Permissions and Sharing", reference §10).
 *
 * Each row of MATRIX names a call on the project (or container) under test, P, and the lowest level
 * that may make it. Every row runs as each caller of CALLERS (see permissions.fixtures.ts): callers
 * below the level get PermissionDenied (401), callers who cannot see P at all get ResourceNotFound
 * (404), the rest succeed. Rows that change anything get a fresh P per caller.
 *
 * Runs on sqlite+local only: it makes some 800 calls on as many fresh projects, and what it checks
 * (the access rules) lives above the database, whose queries the other suites run on both backends.
 */
import { PanxApiError, type PanxClient } from '@panx/client';
import { atLeast, DATA_OBJECT_CLASSES, endpoints, type PermissionLevel, type RoutePath, type RouteSpec } from '@panx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, expectApiError, startTestPlatform, type TestPlatform } from './harness.js';
import {
  type Actor,
  CALLERS,
  type CallerName,
  EFFECTIVE_LEVEL,
  type Fixture,
  type FixtureNeeds,
  makeFixture,
  makeWorld,
  type Settings,
  USER_OF,
  type World,
} from './permissions.fixtures.js';

type Outcome = 'ok' | 'PermissionDenied' | 'ResourceNotFound' | 'InvalidState';
/** The lowest level that may make the call; `nobody` when the project's settings forbid it to every level. */
type Minimum = PermissionLevel | 'nobody';

interface Ctx {
  world: World;
  fx: Fixture;
  /** P's id. */
  p: string;
  /** The caller's client. */
  as: PanxClient;
  caller: CallerName;
  /** The user behind the caller. */
  actor: Actor;
}

interface Row {
  title: string;
  /** The contract routes the row exercises (checked against the endpoint table). */
  routes: RoutePath[];
  min: Minimum;
  kind: 'project' | 'container';
  /** Makes changes: a fresh fixture for every caller. */
  fresh: boolean;
  settings: Settings;
  needs?: (ctx: { world: World; actor: Actor }) => FixtureNeeds;
  call(ctx: Ctx): Promise<unknown>;
  /** Outcomes that differ from the level rule, with the reason in the row's title. */
  except?: Partial<Record<CallerName, Outcome>>;
  /** What callers with enough access get (an answer other than success when the object's state forbids the call). */
  granted?: Outcome;
  /** Checks the effect (or its absence) after the call. */
  verify?(ctx: Ctx, outcome: Outcome): Promise<void>;
}

type RowSpec = Pick<Row, 'title' | 'min' | 'call'> & Partial<Omit<Row, 'title' | 'min' | 'call'>>;

function row(spec: RowSpec): Row {
  const route = /^[a-z]+(-xxxx)?\/[A-Za-z]+/.exec(spec.title)?.[0] as RoutePath | undefined;
  return { kind: 'project', fresh: true, settings: {}, routes: route ? [route] : [], ...spec };
}

const read = (spec: RowSpec) => row({ fresh: false, ...spec });

function expectedOutcome(r: Row, caller: CallerName): Outcome {
  const special = r.except?.[caller];
  if (special) return special;
  const level = EFFECTIVE_LEVEL[r.kind][caller];
  if (level === 'NONE') return 'ResourceNotFound';
  if (r.min === 'nobody' || !atLeast(level, r.min)) return 'PermissionDenied';
  return r.granted ?? 'ok';
}

const STATUS: Record<Exclude<Outcome, 'ok'>, number> = { PermissionDenied: 401, ResourceNotFound: 404, InvalidState: 422 };

/** A describeDataObjects answer of `{}` means "not visible": counted as ResourceNotFound. */
function visibleOrNotFound(results: unknown[]): void {
  const first = results[0] as { describe?: unknown } | undefined;
  if (!first?.describe) throw new PanxApiError('ResourceNotFound', 'described as {}', 404);
}

async function listed(client: PanxClient, project: string, folder: string): Promise<string[]> {
  return (await client.call('project-xxxx/listFolder', project, { folder })).objects.map((o) => o.id);
}

// ------------------------------------------------------------------------------------------------
// The matrix. Project and container routes first, then data objects, then the project flags.
// ------------------------------------------------------------------------------------------------

function containerRows(kind: 'project' | 'container', settings: Settings = {}): Row[] {
  const c = kind === 'project' ? 'project-xxxx' : 'container-xxxx';
  const on = (r: RowSpec) => row({ kind, settings, ...r, title: r.title.replace('C-xxxx', c) });
  const readOn = (r: RowSpec) => on({ fresh: false, ...r });
  return [
    readOn({ title: 'C-xxxx/describe', min: 'VIEW', call: (x) => x.as.post(x.p, 'describe', {}) }),
    readOn({ title: 'C-xxxx/listFolder', min: 'VIEW', call: (x) => x.as.post(x.p, 'listFolder', { folder: x.fx.folders.data, describe: true }) }),
    on({
      title: 'C-xxxx/newFolder',
      min: 'UPLOAD',
      call: (x) => x.as.post(x.p, 'newFolder', { folder: '/made/here', parents: true }),
      verify: async (x, outcome) => {
        const folders = (await x.world.owner.client.call('project-xxxx/describe', x.p, { folders: true })).folders as string[];
        expect(folders.includes('/made/here')).toBe(outcome === 'ok');
      },
    }),
    on({ title: 'C-xxxx/removeFolder (empty folder)', min: 'CONTRIBUTE', call: (x) => x.as.post(x.p, 'removeFolder', { folder: x.fx.folders.empty }) }),
    on({
      title: 'C-xxxx/removeFolder (recurse, with objects)',
      min: 'CONTRIBUTE',
      call: (x) => x.as.post(x.p, 'removeFolder', { folder: x.fx.folders.data, recurse: true }),
      verify: async (x, outcome) => {
        const survived = await x.world.t.platform.stores.objects.findInContainer(x.p, x.fx.closedRecord);
        expect(survived === undefined).toBe(outcome === 'ok');
      },
    }),
    on({ title: 'C-xxxx/renameFolder', min: 'CONTRIBUTE', call: (x) => x.as.post(x.p, 'renameFolder', { folder: x.fx.folders.sub, name: 'renamed' }) }),
    on({
      title: 'C-xxxx/move',
      min: 'CONTRIBUTE',
      call: (x) => x.as.post(x.p, 'move', { objects: [x.fx.closedRecord], folders: [x.fx.folders.sub], destination: x.fx.folders.empty }),
    }),
    on({
      title: 'C-xxxx/removeObjects',
      min: 'CONTRIBUTE',
      call: (x) => x.as.post(x.p, 'removeObjects', { objects: [x.fx.closedRecord, x.fx.openFile] }),
      verify: async (x, outcome) => {
        const left = await listed(x.world.owner.client, x.p, x.fx.folders.data);
        expect(left.includes(x.fx.closedRecord)).toBe(outcome !== 'ok');
      },
    }),
    on({
      title: 'C-xxxx/clone (out of P into the caller’s own project)',
      min: 'VIEW',
      call: (x) => x.as.post(x.p, 'clone', { objects: [x.fx.closedRecord], folders: [x.fx.folders.sub], project: x.actor.home, destination: '/' }),
      verify: async (x, outcome) => {
        const copy = await x.world.t.platform.stores.objects.findInContainer(x.actor.home, x.fx.closedRecord);
        expect(copy !== undefined).toBe(outcome === 'ok');
      },
    }),
    on({
      title: 'C-xxxx/clone (into P, from the caller’s own project)',
      routes: ['project-xxxx/clone'],
      min: 'UPLOAD',
      call: (x) => x.as.call('project-xxxx/clone', x.actor.home, { objects: [x.actor.homeRecord], project: x.p }),
      verify: async (x, outcome) => {
        const copy = await x.world.t.platform.stores.objects.findInContainer(x.p, x.actor.homeRecord);
        expect(copy !== undefined).toBe(outcome === 'ok');
      },
    }),
    on({
      title: 'C-xxxx/destroy',
      min: 'ADMINISTER',
      call: (x) => x.as.post(x.p, 'destroy', {}),
      verify: async (x, outcome) => {
        expect((await x.world.t.platform.stores.projects.findById(x.p)) === undefined).toBe(outcome === 'ok');
      },
    }),
  ];
}

const LEAVERS: Partial<Record<CallerName, Outcome>> = {
  // Their access is implicit (an org's): there is no explicit grant to give up.
  orgMember: 'InvalidState',
  billingOrgAdmin: 'InvalidState',
};

const projectOnlyRows: Row[] = [
  row({
    title: 'project-xxxx/update (name, summary, description)',
    min: 'CONTRIBUTE',
    call: (x) => x.as.call('project-xxxx/update', x.p, { name: 'new name', summary: 's', description: 'd' }),
  }),
  row({
    title: 'project-xxxx/update (settings: protected, downloadRestricted)',
    min: 'ADMINISTER',
    call: (x) => x.as.call('project-xxxx/update', x.p, { protected: true, downloadRestricted: true }),
    verify: async (x, outcome) => {
      const described = await x.world.owner.client.call('project-xxxx/describe', x.p, {});
      expect(described.protected).toBe(outcome === 'ok');
    },
  }),
  row({
    title: 'project-xxxx/invite',
    min: 'ADMINISTER',
    call: (x) => x.as.call('project-xxxx/invite', x.p, { invitee: x.world.outsider.id, level: 'VIEW' }),
    verify: async (x, outcome) => {
      const { permissions } = await x.world.owner.client.call('project-xxxx/describe', x.p, {});
      expect((permissions as Record<string, string>)[x.world.outsider.id]).toBe(outcome === 'ok' ? 'VIEW' : undefined);
    },
  }),
  row({
    title: 'project-xxxx/decreasePermissions (of another member)',
    min: 'ADMINISTER',
    call: (x) => x.as.call('project-xxxx/decreasePermissions', x.p, { [x.world.bystander.id]: null }),
    verify: async (x, outcome) => {
      const { permissions } = await x.world.owner.client.call('project-xxxx/describe', x.p, {});
      expect((permissions as Record<string, string>)[x.world.bystander.id]).toBe(outcome === 'ok' ? undefined : 'VIEW');
    },
  }),
  row({ title: 'project-xxxx/leave (anyone with an explicit grant)', min: 'VIEW', call: (x) => x.as.call('project-xxxx/leave', x.p, {}), except: LEAVERS }),
  row({
    title: 'project-xxxx/transfer (to a user: pending)',
    min: 'ADMINISTER',
    call: (x) => x.as.call('project-xxxx/transfer', x.p, { invitee: x.world.bystander.id }),
  }),
  row({
    title: 'project-xxxx/acceptTransfer (the transfer is pending for the caller; a scoped token needs ADMINISTER scope)',
    min: 'NONE',
    needs: ({ actor }) => ({ pendingTransferTo: actor.id }),
    call: (x) => x.as.call('project-xxxx/acceptTransfer', x.p, {}),
    except: { stranger: 'ok', scopedUpload: 'PermissionDenied', scopedElsewhere: 'ResourceNotFound' },
    verify: async (x, outcome) => {
      const project = await x.world.t.platform.stores.projects.findById(x.p);
      expect(project?.billTo === x.actor.id).toBe(outcome === 'ok');
    },
  }),
  row({
    title: 'project-xxxx/acceptTransfer (pending for someone else)',
    min: 'nobody',
    needs: ({ world }) => ({ pendingTransferTo: world.bystander.id }),
    call: (x) => x.as.call('project-xxxx/acceptTransfer', x.p, {}),
  }),
  row({ title: 'project-xxxx/addTags', min: 'CONTRIBUTE', call: (x) => x.as.call('project-xxxx/addTags', x.p, { tags: ['t'] }) }),
  row({ title: 'project-xxxx/removeTags', min: 'CONTRIBUTE', call: (x) => x.as.call('project-xxxx/removeTags', x.p, { tags: ['t'] }) }),
  row({
    title: 'project-xxxx/setProperties',
    min: 'CONTRIBUTE',
    call: (x) => x.as.call('project-xxxx/setProperties', x.p, { properties: { k: 'v', gone: null } }),
  }),
  read({
    title: 'system/findDataObjects (scope: P)',
    min: 'VIEW',
    call: async (x) => {
      const { results } = await x.as.call('system/findDataObjects', { scope: { project: x.p } });
      expect(results.length).toBeGreaterThan(0);
    },
  }),
  read({
    title: 'system/describeDataObjects (an object in P; {} when invisible)',
    min: 'VIEW',
    call: async (x) => visibleOrNotFound((await x.as.call('system/describeDataObjects', { objects: [{ id: x.fx.closedRecord, project: x.p }] })).results),
  }),
];

type ObjectClass = 'file' | 'record';
const METADATA_METHODS = [
  ['addTags', { tags: ['t'] }],
  ['removeTags', { tags: ['t'] }],
  ['addTypes', { types: ['T'] }],
  ['removeTypes', { types: ['T'] }],
  ['rename', { name: 'renamed' }],
  ['setProperties', { properties: { k: 'v' } }],
  ['setVisibility', { hidden: true }],
] as const;

function objectRows(cls: ObjectClass): Row[] {
  const closed = (fx: Fixture) => (cls === 'file' ? (fx.closedFile ?? '') : fx.closedRecord);
  const open = (fx: Fixture) => (cls === 'file' ? fx.openFile : fx.openRecord);
  const needsClosed = cls === 'file' ? () => ({ closedFile: true }) : undefined;
  const rows: Row[] = [
    row({
      title: `${cls}/new`,
      min: 'UPLOAD',
      call: (x) => x.as.post(cls, 'new', { project: x.p, folder: '/fresh', parents: true, name: 'made' }),
    }),
    read({
      title: `${cls}-xxxx/describe (project hint P)`,
      min: 'VIEW',
      needs: needsClosed,
      call: (x) => x.as.post(closed(x.fx), 'describe', { project: x.p }),
    }),
    read({ title: `${cls}-xxxx/getDetails`, min: 'VIEW', needs: needsClosed, call: (x) => x.as.post(closed(x.fx), 'getDetails', {}) }),
    read({ title: `${cls}-xxxx/listProjects`, min: 'VIEW', needs: needsClosed, call: (x) => x.as.post(closed(x.fx), 'listProjects', {}) }),
  ];
  for (const [method, body] of METADATA_METHODS) {
    rows.push(row({ title: `${cls}-xxxx/${method} (open object)`, min: 'UPLOAD', call: (x) => x.as.post(open(x.fx), method, { project: x.p, ...body }) }));
    rows.push(
      row({
        title: `${cls}-xxxx/${method} (closed object)`,
        min: 'CONTRIBUTE',
        needs: needsClosed,
        call: (x) => x.as.post(closed(x.fx), method, { project: x.p, ...body }),
      }),
    );
  }
  rows.push(
    row({
      title: `${cls}-xxxx/setDetails (open object)`,
      min: 'UPLOAD',
      call: (x) => x.as.post(open(x.fx), 'setDetails', { project: x.p, details: { a: 1 } }),
    }),
    row({
      title: `${cls}-xxxx/setDetails (closed object: access checked, then refused as closed)`,
      min: 'CONTRIBUTE',
      granted: 'InvalidState',
      needs: needsClosed,
      call: (x) => x.as.post(closed(x.fx), 'setDetails', { project: x.p, details: { a: 1 } }),
    }),
    row({
      title: `${cls}-xxxx/close`,
      min: 'UPLOAD',
      call: (x) => x.as.post(open(x.fx), 'close', {}),
    }),
  );
  if (cls === 'file') {
    rows.push(
      read({ title: 'file-xxxx/upload', min: 'UPLOAD', call: (x) => x.as.call('file-xxxx/upload', x.fx.openFile, { index: 1, size: 3 }) }),
      read({
        title: 'file-xxxx/download',
        min: 'VIEW',
        needs: needsClosed,
        call: (x) => x.as.call('file-xxxx/download', x.fx.closedFile ?? '', { project: x.p }),
      }),
    );
  }
  return rows;
}

/**
 * Applets are closed data objects: reading needs VIEW, changing their metadata CONTRIBUTE, and
 * running one in P needs CONTRIBUTE there (DNAnexus: running executions is a CONTRIBUTE right).
 */
function appletRows(): Row[] {
  const needs = () => ({ applet: true });
  const applet = (fx: Fixture) => fx.applet ?? '';
  const rows: Row[] = [
    row({
      title: 'applet/new',
      min: 'UPLOAD',
      call: (x) =>
        x.as.post('applet', 'new', {
          project: x.p,
          name: 'made',
          dxapi: '1.0.0',
          inputSpec: [],
          outputSpec: [],
          runSpec: { interpreter: 'bash', code: 'main() { :; }', distribution: 'Ubuntu', release: '24.04' },
        }),
    }),
    read({ title: 'applet-xxxx/describe', min: 'VIEW', needs, call: (x) => x.as.post(applet(x.fx), 'describe', { project: x.p }) }),
    read({ title: 'applet-xxxx/get', min: 'VIEW', needs, call: (x) => x.as.post(applet(x.fx), 'get', { project: x.p }) }),
    read({ title: 'applet-xxxx/getDetails', min: 'VIEW', needs, call: (x) => x.as.post(applet(x.fx), 'getDetails', { project: x.p }) }),
    read({ title: 'applet-xxxx/listProjects', min: 'VIEW', needs, call: (x) => x.as.post(applet(x.fx), 'listProjects', {}) }),
    row({
      title: 'applet-xxxx/setDetails (closed: access checked, then refused as closed)',
      min: 'CONTRIBUTE',
      granted: 'InvalidState',
      needs,
      call: (x) => x.as.post(applet(x.fx), 'setDetails', { project: x.p, details: { a: 1 } }),
    }),
    row({ title: 'applet-xxxx/run', min: 'CONTRIBUTE', needs, call: (x) => x.as.post(applet(x.fx), 'run', { project: x.p, input: {} }) }),
  ];
  for (const [method, body] of METADATA_METHODS) {
    rows.push(row({ title: `applet-xxxx/${method}`, min: 'CONTRIBUTE', needs, call: (x) => x.as.post(applet(x.fx), method, { project: x.p, ...body }) }));
  }
  return rows;
}

/**
 * Workflows are open data objects while they are edited: reading needs VIEW, editing them (and the
 * metadata of the open object) UPLOAD, running one in P CONTRIBUTE. P's owner makes the workflow
 * (one stage: the fixture's applet) once per fixture.
 */
function workflowRows(): Row[] {
  const needs = () => ({ applet: true });
  const made = new WeakMap<Fixture, Promise<string>>();
  const workflow = (x: Ctx) => {
    let id = made.get(x.fx);
    if (!id) {
      id = x.world.owner.client
        .call('workflow/new', { project: x.p, name: 'matrix-workflow', stages: [{ id: 'stage-a', executable: x.fx.applet ?? '' }] })
        .then((created) => created.id);
      made.set(x.fx, id);
    }
    return id;
  };
  const on = (x: Ctx, method: string, body: Record<string, unknown>) => workflow(x).then((id) => x.as.post(id, method, body));
  const rows: Row[] = [
    row({ title: 'workflow/new', min: 'UPLOAD', call: (x) => x.as.post('workflow', 'new', { project: x.p, name: 'made' }) }),
    row({ title: 'workflow/import', min: 'UPLOAD', call: (x) => x.as.post('workflow', 'import', { project: x.p, source: { name: 'imported', stages: [] } }) }),
    read({ title: 'workflow-xxxx/describe', min: 'VIEW', needs, call: (x) => on(x, 'describe', { project: x.p }) }),
    read({ title: 'workflow-xxxx/getDetails', min: 'VIEW', needs, call: (x) => on(x, 'getDetails', {}) }),
    read({ title: 'workflow-xxxx/listProjects', min: 'VIEW', needs, call: (x) => on(x, 'listProjects', {}) }),
    read({ title: 'workflow-xxxx/export', min: 'VIEW', needs, call: (x) => on(x, 'export', {}) }),
    read({
      title: 'workflow-xxxx/isStageCompatible',
      min: 'VIEW',
      needs,
      call: (x) => on(x, 'isStageCompatible', { stage: 'stage-a', executable: x.fx.applet }),
    }),
    read({ title: 'workflow-xxxx/dryRun', min: 'CONTRIBUTE', needs, call: (x) => on(x, 'dryRun', { project: x.p, input: {} }) }),
    row({ title: 'workflow-xxxx/run', min: 'CONTRIBUTE', needs, call: (x) => on(x, 'run', { project: x.p, input: {} }) }),
    row({ title: 'workflow-xxxx/addStage', min: 'UPLOAD', needs, call: (x) => on(x, 'addStage', { editVersion: 0, executable: x.fx.applet }) }),
    row({ title: 'workflow-xxxx/removeStage', min: 'UPLOAD', needs, call: (x) => on(x, 'removeStage', { editVersion: 0, stage: 'stage-a' }) }),
    row({ title: 'workflow-xxxx/moveStage', min: 'UPLOAD', needs, call: (x) => on(x, 'moveStage', { editVersion: 0, stage: 'stage-a', newIndex: 0 }) }),
    row({ title: 'workflow-xxxx/update', min: 'UPLOAD', needs, call: (x) => on(x, 'update', { editVersion: 0, title: 'renamed' }) }),
    row({
      title: 'workflow-xxxx/updateStageExecutable',
      min: 'UPLOAD',
      needs,
      call: (x) => on(x, 'updateStageExecutable', { editVersion: 0, stage: 'stage-a', executable: x.fx.applet }),
    }),
    row({
      title: 'workflow-xxxx/overwrite',
      min: 'UPLOAD',
      needs,
      call: async (x) => on(x, 'overwrite', { editVersion: 0, from: { id: await workflow(x) } }),
    }),
    row({ title: 'workflow-xxxx/close', min: 'UPLOAD', needs, call: (x) => on(x, 'close', {}) }),
    row({ title: 'workflow-xxxx/setDetails (open)', min: 'UPLOAD', needs, call: (x) => on(x, 'setDetails', { project: x.p, details: { a: 1 } }) }),
  ];
  for (const [method, body] of METADATA_METHODS) {
    rows.push(row({ title: `workflow-xxxx/${method} (open)`, min: 'UPLOAD', needs, call: (x) => on(x, method, { project: x.p, ...body }) }));
  }
  return rows;
}

const PROTECTED: Settings = { protected: true };
const protectedRows: Row[] = [
  // Only ADMINISTER deletes in a protected project...
  ...containerRows('project', PROTECTED)
    .filter((r) => /removeObjects|removeFolder/.test(r.title))
    .map((r) => ({ ...r, min: 'ADMINISTER' as const, title: `${r.title} [protected]` })),
  // ...while every other change keeps its usual level.
  ...containerRows('project', PROTECTED)
    .filter((r) => /\/(move|renameFolder|newFolder)\b/.test(r.title))
    .map((r) => ({ ...r, title: `${r.title} [protected]` })),
  row({
    title: 'record-xxxx/addTags (closed object) [protected]',
    min: 'CONTRIBUTE',
    settings: PROTECTED,
    call: (x) => x.as.post(x.fx.closedRecord, 'addTags', { tags: ['t'] }),
  }),
];

const DOWNLOAD_RESTRICTED: Settings = { downloadRestricted: true };
const downloadRestrictedRows: Row[] = [
  read({
    title: 'project-xxxx/describe [downloadRestricted]',
    min: 'VIEW',
    settings: DOWNLOAD_RESTRICTED,
    call: (x) => x.as.call('project-xxxx/describe', x.p, {}),
  }),
  read({
    title: 'file-xxxx/download [downloadRestricted: nobody downloads]',
    min: 'nobody',
    settings: DOWNLOAD_RESTRICTED,
    needs: () => ({ closedFile: true }),
    call: (x) => x.as.call('file-xxxx/download', x.fx.closedFile ?? '', { project: x.p }),
  }),
  row({
    title: 'project-xxxx/clone out of P [downloadRestricted: nobody copies out]',
    min: 'nobody',
    settings: DOWNLOAD_RESTRICTED,
    call: (x) => x.as.call('project-xxxx/clone', x.p, { objects: [x.fx.closedRecord], project: x.actor.home }),
  }),
  row({
    title: 'project-xxxx/clone into P [downloadRestricted: copying in is fine]',
    min: 'UPLOAD',
    settings: DOWNLOAD_RESTRICTED,
    call: (x) => x.as.call('project-xxxx/clone', x.actor.home, { objects: [x.actor.homeRecord], project: x.p }),
  }),
];

const RESTRICTED: Settings = { restricted: true };
const restrictedRows: Row[] = [
  row({
    title: 'project-xxxx/clone out of P to a project billed elsewhere [restricted: nobody]',
    min: 'nobody',
    settings: RESTRICTED,
    call: (x) => x.as.call('project-xxxx/clone', x.p, { objects: [x.fx.closedRecord], project: x.actor.home }),
  }),
  row({
    title: 'project-xxxx/invite of a user outside the billing org [restricted: nobody]',
    min: 'nobody',
    settings: RESTRICTED,
    call: (x) => x.as.call('project-xxxx/invite', x.p, { invitee: x.world.outsider.id, level: 'VIEW' }),
  }),
  row({
    title: 'project-xxxx/invite of another org [restricted: nobody]',
    min: 'nobody',
    settings: RESTRICTED,
    call: (x) => x.as.call('project-xxxx/invite', x.p, { invitee: x.world.shareOrg, level: 'VIEW' }),
  }),
  row({
    title: 'project-xxxx/invite of a member of the billing org [restricted]',
    min: 'ADMINISTER',
    settings: RESTRICTED,
    call: (x) => x.as.call('project-xxxx/invite', x.p, { invitee: x.world.actors.billingOrgAdmin.id, level: 'VIEW' }),
  }),
];

const MATRIX: Row[] = [
  ...containerRows('project'),
  ...projectOnlyRows,
  ...containerRows('container'),
  ...objectRows('file'),
  ...objectRows('record'),
  ...appletRows(),
  ...workflowRows(),
  ...protectedRows,
  ...downloadRestrictedRows,
  ...restrictedRows,
];

// Routes outside the matrix on purpose: creating a project has no P to hold access to, and
// describeProjects/findProjects are checked per caller below.
const COVERED_ELSEWHERE = new Set<string>(['project/new']);

const backend = BACKENDS.find((b) => b.name === 'sqlite+local');

describe.skipIf(!backend)('permission matrix (sqlite+local)', () => {
  let t: TestPlatform;
  let world: World;
  const shared = new Map<string, Promise<Fixture>>();
  beforeAll(async () => {
    t = await startTestPlatform(backend);
    world = await makeWorld(t);
  }, 120_000);
  afterAll(() => t?.close());

  function fixtureFor(r: Row, caller: CallerName): Promise<Fixture> {
    const actor = world.actors[USER_OF[caller]];
    const needs = r.needs?.({ world, actor }) ?? {};
    if (r.fresh) return makeFixture(world, r.kind, r.settings, needs);
    const key = JSON.stringify([r.kind, r.settings, needs]);
    let fixture = shared.get(key);
    if (!fixture) {
      fixture = makeFixture(world, r.kind, r.settings, needs);
      shared.set(key, fixture);
    }
    return fixture;
  }

  it('covers every project, container and data-object route of the contract', () => {
    const inMatrix = new Set(MATRIX.flatMap((r) => r.routes));
    const routes = Object.values(endpoints as Record<string, RouteSpec>).filter(
      (route) =>
        (route.kind === 'instance' && ['project', 'container', ...DATA_OBJECT_CLASSES].includes(route.entityClass ?? '')) ||
        (route.kind === 'class' && (DATA_OBJECT_CLASSES as readonly string[]).includes(route.entityClass ?? '')),
    );
    const missing = routes.map((route) => route.path).filter((path) => !inMatrix.has(path as RoutePath) && !COVERED_ELSEWHERE.has(path));
    expect(missing, 'routes without a row in the permission matrix').toEqual([]);
  });

  it('gives each caller the expected level on a project, with its source', async () => {
    const fx = await makeFixture(world, 'project');
    const sources: Partial<Record<CallerName, string[]>> = {
      viewer: [world.actors.viewer.id],
      orgMember: [world.shareOrg],
      billingOrgAdmin: [world.billOrg],
      scopedUpload: [world.actors.administrator.id],
    };
    for (const caller of CALLERS) {
      const level = EFFECTIVE_LEVEL.project[caller];
      const client = fx.as[caller];
      const found = (await client.call('system/findProjects', { id: [fx.id] })).results;
      if (level === 'NONE') {
        await expectApiError(client.call('project-xxxx/describe', fx.id, {}), 'ResourceNotFound');
        expect(found, caller).toEqual([]);
        continue;
      }
      expect((await client.call('project-xxxx/describe', fx.id, {})).level, caller).toBe(level);
      expect(
        found.map((entry) => entry.level),
        caller,
      ).toEqual([level]);
      const expectedSources = sources[caller];
      if (expectedSources) expect(found[0]?.permissionSources.sort(), caller).toEqual(expectedSources.sort());
    }
  });

  it('caps a member reached through an org by the org grant and by their projectAccess', async () => {
    const fx = await makeFixture(world, 'project');
    const stores = t.platform.stores;
    // The org's grant below the member's projectAccess: the grant wins.
    await stores.projects.setMember({ projectId: fx.id, memberId: world.shareOrg, level: 'VIEW', created: Date.now() });
    expect((await fx.as.orgMember.call('project-xxxx/describe', fx.id, {})).level).toBe('VIEW');
    // An explicit grant above the implicit one: the greater counts.
    await stores.projects.setMember({ projectId: fx.id, memberId: world.actors.orgMember.id, level: 'CONTRIBUTE', created: Date.now() });
    expect((await fx.as.orgMember.call('project-xxxx/describe', fx.id, {})).level).toBe('CONTRIBUTE');
  });

  it('gives ADMINs of an org a project is merely shared with the org’s grant, not ADMINISTER', async () => {
    const fx = await makeFixture(world, 'project');
    const shareAdmin = await t.newUser();
    await t.platform.services.orgs.invite(world.owner.caller, world.shareOrg, { invitee: shareAdmin.id, level: 'ADMIN' }, Date.now());
    // P is shared with shareOrg at CONTRIBUTE and billed to billOrg.
    expect((await shareAdmin.client.call('project-xxxx/describe', fx.id, {})).level).toBe('CONTRIBUTE');
    await expectApiError(shareAdmin.client.call('project-xxxx/destroy', fx.id, {}), 'PermissionDenied');
    await expectApiError(shareAdmin.client.call('project-xxxx/invite', fx.id, { invitee: shareAdmin.id, level: 'ADMINISTER' }), 'PermissionDenied');
  });

  for (const r of MATRIX) {
    describe(`${r.title} — needs ${r.min === 'NONE' ? 'no access' : r.min}${r.kind === 'container' ? ' (container)' : ''}`, () => {
      it.each(CALLERS.map((caller) => [caller, expectedOutcome(r, caller)] as const))('as %s → %s', async (caller, expected) => {
        const fx = await fixtureFor(r, caller);
        const ctx: Ctx = { world, fx, p: fx.id, as: fx.as[caller], caller, actor: world.actors[USER_OF[caller]] };
        let outcome: Outcome | string = 'ok';
        let detail = '';
        try {
          await r.call(ctx);
        } catch (error) {
          if (!(error instanceof PanxApiError)) throw error;
          outcome = error.type;
          detail = `${error.status} ${error.message}`;
          if (error.type in STATUS) expect(error.status, detail).toBe(STATUS[error.type as keyof typeof STATUS]);
        }
        expect(outcome, detail).toBe(expected);
        await r.verify?.(ctx, expected);
      });
    });
  }
});
