import { createClient, type PanxClient } from '@panx/client';
import type { PermissionLevel } from '@panx/contract';
import type { Caller } from '../src/modules/auth/caller.js';
import { newId } from '../src/lib/ids.js';
import { uploadFile } from './data-helpers.js';
import { newApplet } from './engine-helpers.js';
import type { TestPlatform } from './harness.js';

/**
 * The cast of the permission matrix. Every caller reaches the project under test ("P") in one way:
 * explicitly (viewer … administrator), through an org grant (orgMember: P is shared with shareOrg at
 * CONTRIBUTE, capped by the member's projectAccess UPLOAD), as ADMIN of the org P bills to
 * (billingOrgAdmin), or with a project-scoped API token of the administrator (scopedUpload: P at
 * UPLOAD; scopedElsewhere: only the administrator's home project).
 */
export const CALLERS = [
  'stranger',
  'viewer',
  'uploader',
  'contributor',
  'administrator',
  'orgMember',
  'billingOrgAdmin',
  'scopedUpload',
  'scopedElsewhere',
] as const;
export type CallerName = (typeof CALLERS)[number];

/** The level each caller ends up with on P, for a project and for a container. */
export const EFFECTIVE_LEVEL: Record<'project' | 'container', Record<CallerName, PermissionLevel>> = {
  project: {
    stranger: 'NONE',
    viewer: 'VIEW',
    uploader: 'UPLOAD',
    contributor: 'CONTRIBUTE',
    administrator: 'ADMINISTER',
    orgMember: 'UPLOAD',
    billingOrgAdmin: 'ADMINISTER',
    scopedUpload: 'UPLOAD',
    scopedElsewhere: 'NONE',
  },
  // Billing-org ADMINs administer projects, not containers (job workspaces).
  container: {
    stranger: 'NONE',
    viewer: 'VIEW',
    uploader: 'UPLOAD',
    contributor: 'CONTRIBUTE',
    administrator: 'ADMINISTER',
    orgMember: 'UPLOAD',
    billingOrgAdmin: 'NONE',
    scopedUpload: 'UPLOAD',
    scopedElsewhere: 'NONE',
  },
};

/** Which user stands behind each caller (the scoped tokens belong to the administrator). */
export const USER_OF: Record<CallerName, Exclude<CallerName, 'scopedUpload' | 'scopedElsewhere'>> = {
  stranger: 'stranger',
  viewer: 'viewer',
  uploader: 'uploader',
  contributor: 'contributor',
  administrator: 'administrator',
  orgMember: 'orgMember',
  billingOrgAdmin: 'billingOrgAdmin',
  scopedUpload: 'administrator',
  scopedElsewhere: 'administrator',
};

export interface Actor {
  id: string;
  token: string;
  client: PanxClient;
  /** A project of the actor's own (billed to them), holding `homeRecord`: the source of "clone into P". */
  home: string;
  homeRecord: string;
  caller: Caller;
}

export interface World {
  t: TestPlatform;
  owner: Actor;
  /** A VIEW member of every fixture, the target of decreasePermissions and transfer. */
  bystander: Actor;
  /** Never a member of anything: the invitee of invite. */
  outsider: Actor;
  actors: Record<Exclude<CallerName, 'scopedUpload' | 'scopedElsewhere'>, Actor>;
  /** P bills to it; billingOrgAdmin is its ADMIN; its restrictProjectTransfer is MEMBER so any ADMINISTER may transfer. */
  billOrg: string;
  /** P is shared with it at CONTRIBUTE; orgMember is a MEMBER with projectAccess UPLOAD. */
  shareOrg: string;
}

export interface Settings {
  protected?: boolean;
  restricted?: boolean;
  downloadRestricted?: boolean;
}

export interface FixtureNeeds {
  closedFile?: boolean;
  /** A bash applet in P's data folder. */
  applet?: boolean;
  /** A transfer of P to this user, pending. */
  pendingTransferTo?: string;
}

export interface Fixture {
  kind: 'project' | 'container';
  id: string;
  folders: { data: string; sub: string; empty: string };
  closedRecord: string;
  openRecord: string;
  openFile: string;
  closedFile?: string;
  applet?: string;
  /** Client for every caller (scoped ones use their scoped tokens). */
  as: Record<CallerName, PanxClient>;
}

function callerOf(userId: string): Caller {
  return { userId, tokenId: 'fixture', tokenKind: 'api', isAdmin: false, scope: null };
}

async function newActor(t: TestPlatform, prefix: string): Promise<Actor> {
  const user = await t.newUser(`${prefix}${Math.random().toString(36).slice(2, 8)}`);
  const caller = callerOf(user.id);
  const now = Date.now();
  const { id: home } = await t.platform.services.projects.create(caller, { name: `home of ${user.id}` }, now);
  const { id: homeRecord } = await t.platform.services.objects.create(
    caller,
    { project: home, name: 'home-record', close: true },
    { cls: 'record', state: 'closed' },
    now,
  );
  return { ...user, home, homeRecord, caller };
}

/** Users, orgs and home projects, made once per test file. */
export async function makeWorld(t: TestPlatform): Promise<World> {
  const names = ['stranger', 'viewer', 'uploader', 'contributor', 'administrator', 'orgMember', 'billingOrgAdmin'] as const;
  const [owner, bystander, outsider, ...cast] = await Promise.all([
    newActor(t, 'owner'),
    newActor(t, 'bystander'),
    newActor(t, 'outsider'),
    ...names.map((name) => newActor(t, name.toLowerCase().slice(0, 10))),
  ]);
  if (!owner || !bystander || !outsider) throw new Error('unreachable');
  const actors = Object.fromEntries(names.map((name, i) => [name, cast[i]])) as World['actors'];
  const now = Date.now();
  const orgs = t.platform.services.orgs;
  const tag = Math.random().toString(36).slice(2, 8);
  const { id: billOrg } = await orgs.create(owner.caller, { handle: `bill${tag}`, name: 'Billing org', policies: { restrictProjectTransfer: 'MEMBER' } }, now);
  const { id: shareOrg } = await orgs.create(owner.caller, { handle: `share${tag}`, name: 'Sharing org' }, now);
  await orgs.invite(owner.caller, billOrg, { invitee: actors.billingOrgAdmin.id, level: 'ADMIN' }, now);
  await orgs.invite(owner.caller, shareOrg, { invitee: actors.orgMember.id, level: 'MEMBER', projectAccess: 'UPLOAD' }, now);
  return { t, owner, bystander, outsider, actors, billOrg, shareOrg };
}

/** A fresh P (or container) with its members, folders, objects and the two scoped tokens. */
export async function makeFixture(world: World, kind: 'project' | 'container', settings: Settings = {}, needs: FixtureNeeds = {}): Promise<Fixture> {
  const { t, owner, actors } = world;
  const services = t.platform.services;
  const now = Date.now();
  let id: string;
  if (kind === 'project') {
    ({ id } = await services.projects.create(owner.caller, { name: 'P', billTo: world.billOrg, ...settings }, now));
  } else {
    // Containers are job workspaces: no route creates one, so the fixture writes it directly.
    id = newId('container');
    await t.platform.stores.projects.insert({
      id,
      class: 'container',
      name: 'C',
      billTo: world.billOrg,
      region: 'aws:us-east-1',
      containsPHI: 0,
      settings: JSON.stringify(settings),
      summary: '',
      description: '',
      tags: '[]',
      properties: '{}',
      pendingTransfer: null,
      createdBy: JSON.stringify({ user: owner.id }),
      created: now,
      modified: now,
      version: 1,
    });
    await t.platform.stores.projects.setMember({ projectId: id, memberId: owner.id, level: 'ADMINISTER', created: now });
  }
  const grants: [string, PermissionLevel][] = [
    [actors.viewer.id, 'VIEW'],
    [actors.uploader.id, 'UPLOAD'],
    [actors.contributor.id, 'CONTRIBUTE'],
    [actors.administrator.id, 'ADMINISTER'],
    [world.bystander.id, 'VIEW'],
    [world.shareOrg, 'CONTRIBUTE'],
  ];
  for (const [memberId, level] of grants) await t.platform.stores.projects.setMember({ projectId: id, memberId, level, created: now });

  const folders = { data: '/data', sub: '/data/sub', empty: '/empty' };
  await services.folders.newFolder(owner.caller, id, { folder: folders.sub, parents: true });
  await services.folders.newFolder(owner.caller, id, { folder: folders.empty });
  const record = (close: boolean) =>
    services.objects.create(
      owner.caller,
      { project: id, folder: folders.data, name: close ? 'closed' : 'open' },
      { cls: 'record', state: close ? 'closed' : 'open' },
      now,
    );
  const { id: closedRecord } = await record(true);
  const { id: openRecord } = await record(false);
  const { id: openFile } = await owner.client.call('file/new', { project: id, folder: folders.data, name: 'open.txt' });
  const closedFile = needs.closedFile
    ? await uploadFile(owner.client, id, [Buffer.from('permission matrix bytes')], { name: 'closed.txt', folder: folders.data })
    : undefined;
  const applet = needs.applet ? await newApplet(owner.client, id, { name: 'matrix-applet', code: 'main() { :; }' }) : undefined;
  if (needs.pendingTransferTo) await services.projects.transfer(owner.caller, id, { invitee: needs.pendingTransferTo }, now);

  const admin = actors.administrator;
  const token = async (projects: Record<string, PermissionLevel>) =>
    (await services.auth.issue(admin.id, { kind: 'api', label: 'scoped', expires: now + 3_600_000, securityLevel: null, scope: { projects } }, now))
      .access_token;
  const client = (secret: string) => createClient({ baseUrl: t.url, token: secret, retries: 0 });
  const as = {
    ...Object.fromEntries(Object.entries(actors).map(([name, actor]) => [name, actor.client])),
    scopedUpload: client(await token({ [id]: 'UPLOAD', [admin.home]: 'ADMINISTER' })),
    scopedElsewhere: client(await token({ [admin.home]: 'ADMINISTER' })),
  } as Record<CallerName, PanxClient>;
  return { kind, id, folders, closedRecord, openRecord, openFile, closedFile, applet, as };
}
