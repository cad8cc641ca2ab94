import { DEFAULT_CURRENCY, DEFAULT_REGION, type DescribeOptions, REGIONS, type RouteParsedInput } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { parseJson, toJson } from '../../lib/json.js';
import type { Caller } from '../auth/caller.js';
import type { AppsService } from '../executables/apps.service.js';
import type { AccessService } from '../projects/access.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { UsersService } from '../users/users.service.js';
import type { OrgMemberRow, OrgRow } from './orgs.repository.js';

const ORG_DEFAULT_FIELDS = [
  'id',
  'class',
  'handle',
  'name',
  'created',
  'modified',
  'level',
  'policies',
  'allowBillableActivities',
  'phiFeaturesEnabled',
  'defaultRegion',
  'permittedRegions',
  'currency',
  'admins',
  'createdBy',
  'billingInformation',
  'pricingModelsByRegion',
] as const;

interface OrgPolicies {
  memberListVisibility: 'ADMIN' | 'MEMBER' | 'PUBLIC';
  restrictProjectTransfer: 'ADMIN' | 'MEMBER';
}

const DEFAULT_POLICIES: OrgPolicies = { memberListVisibility: 'ADMIN', restrictProjectTransfer: 'ADMIN' };

export class OrgsService {
  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly projects: ProjectsService,
    private readonly users: UsersService,
    private readonly apps: AppsService,
  ) {}

  /**
   * The org and the caller's membership. Non-members get ResourceNotFound (unless `visibleToAll`);
   * `adminOnly` changes need an ADMIN, and never a project-scoped token (it reaches projects only).
   */
  private async requireOrg(
    caller: Caller,
    id: string,
    adminOnly: boolean,
    visibleToAll = false,
  ): Promise<{ org: OrgRow; membership: OrgMemberRow | undefined }> {
    const org = await this.stores.orgs.findById(id);
    const membership = org ? await this.stores.orgs.findMember(id, caller.userId) : undefined;
    if (!org || (!membership && !caller.isAdmin && !visibleToAll)) throw notFound(`The org ${id} could not be found`);
    if (adminOnly && membership?.level !== 'ADMIN' && !caller.isAdmin) throw permissionDenied(`This requires ADMIN membership of ${id}`);
    if (adminOnly && caller.scope) throw permissionDenied('A project-scoped token cannot change orgs');
    return { org, membership };
  }

  private static policiesOf(org: OrgRow): OrgPolicies {
    return { ...DEFAULT_POLICIES, ...parseJson<Partial<OrgPolicies>>(org.policies, {}) };
  }

  async create(caller: Caller, input: RouteParsedInput<'org/new'>, now: number) {
    if (caller.scope) throw permissionDenied('A project-scoped token cannot create orgs');
    const id = `org-${input.handle}`;
    if (await this.stores.orgs.findById(id)) throw invalidInput(`The org handle "${input.handle}" is already taken`);
    const permittedRegions = input.permittedRegions ?? [DEFAULT_REGION];
    const unknown = permittedRegions.filter((region) => !(REGIONS as readonly string[]).includes(region));
    if (unknown.length) throw invalidInput(`Unknown regions: ${unknown.join(', ')}`);
    const defaultRegion = input.defaultRegion ?? permittedRegions[0] ?? DEFAULT_REGION;
    if (!permittedRegions.includes(defaultRegion)) throw invalidInput(`defaultRegion ${defaultRegion} is not among permittedRegions`);
    if (input.phiFeaturesEnabled && !caller.isAdmin) throw permissionDenied('Only administrators can enable PHI features for an org');
    const taken = () => invalidInput(`The org handle "${input.handle}" is already taken`);
    await this.stores
      .transaction(async (tx) => {
        await tx.orgs.insert({
          id,
          handle: input.handle,
          name: input.name,
          policies: toJson({ ...DEFAULT_POLICIES, ...input.policies }),
          phiFeaturesEnabled: input.phiFeaturesEnabled ? 1 : 0,
          defaultRegion,
          permittedRegions: toJson(permittedRegions),
          created: now,
          modified: now,
          createdBy: caller.userId,
        });
        await tx.orgs.upsertMember({
          orgId: id,
          userId: caller.userId,
          level: 'ADMIN',
          allowBillableActivities: 1,
          appAccess: 1,
          projectAccess: 'ADMINISTER',
          created: now,
        });
      })
      .catch(async (error: unknown) => {
        // Two creations racing for one handle: the loser hits the unique key.
        if (await this.stores.orgs.findById(id)) throw taken();
        throw error;
      });
    return { id };
  }

  async describe(caller: Caller, id: string, options: DescribeOptions) {
    const { org, membership } = await this.requireOrg(caller, id, false);
    const want = fieldSelector(options, ORG_DEFAULT_FIELDS);
    const admins = want('admins') ? (await this.stores.orgs.listMembers(id, { level: 'ADMIN', limit: 1000 })).map((m) => m.userId) : [];
    return pickFields(want, {
      id: () => org.id,
      class: () => 'org' as const,
      handle: () => org.handle,
      name: () => org.name,
      created: () => org.created,
      modified: () => org.modified,
      level: () => membership?.level ?? null,
      policies: () => OrgsService.policiesOf(org),
      allowBillableActivities: () => membership?.allowBillableActivities === 1 || membership?.level === 'ADMIN',
      phiFeaturesEnabled: () => org.phiFeaturesEnabled === 1,
      defaultRegion: () => org.defaultRegion,
      permittedRegions: () => parseJson<string[]>(org.permittedRegions, [DEFAULT_REGION]),
      currency: () => DEFAULT_CURRENCY,
      admins: () => admins,
      createdBy: () => org.createdBy,
      billingInformation: () => null,
      pricingModelsByRegion: () => ({}),
    }) as { id: string } & Record<string, unknown>;
  }

  async update(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/update'>, now: number) {
    const { org } = await this.requireOrg(caller, id, true);
    const patch: Partial<OrgRow> = { modified: now };
    if (input.name !== undefined) patch.name = input.name;
    if (input.policies) patch.policies = toJson({ ...DEFAULT_POLICIES, ...parseJson<object>(org.policies, {}), ...input.policies });
    await this.stores.orgs.update(id, patch);
    return { id };
  }

  async invite(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/invite'>, now: number) {
    await this.requireOrg(caller, id, true);
    await this.users.requireUser(input.invitee);
    if (await this.stores.orgs.findMember(id, input.invitee)) throw invalidInput(`${input.invitee} is already a member of ${id}; use setMemberAccess`);
    const admin = input.level === 'ADMIN';
    await this.stores.orgs.upsertMember({
      orgId: id,
      userId: input.invitee,
      level: input.level,
      allowBillableActivities: admin || input.allowBillableActivities ? 1 : 0,
      appAccess: admin || (input.appAccess ?? true) ? 1 : 0,
      projectAccess: admin ? 'ADMINISTER' : (input.projectAccess ?? 'CONTRIBUTE'),
      created: now,
    });
    return { id };
  }

  async removeMember(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/removeMember'>) {
    await this.requireOrg(caller, id, true);
    const member = await this.stores.orgs.findMember(id, input.user);
    if (!member) throw notFound(`${input.user} is not a member of ${id}`);
    if (member.level === 'ADMIN' && (await this.stores.orgs.countAdmins(id)) === 1) throw invalidState(`${input.user} is the last ADMIN of ${id}`);
    const projects: Record<string, string> = {};
    await this.stores.transaction(async (tx) => {
      await tx.orgs.removeMember(id, input.user);
      if (input.revokeProjectPermissions) {
        const orgProjects = await tx.projects.idsBilledTo([id]);
        const grants = (await tx.projects.allGrantsTo([input.user])).filter((grant) => orgProjects.includes(grant.projectId));
        for (const grant of grants) projects[grant.projectId] = grant.level;
        await tx.projects.removeMemberEverywhere(input.user, Object.keys(projects));
      }
    });
    return { id, projects, apps: {} };
  }

  async setMemberAccess(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/setMemberAccess'>) {
    await this.requireOrg(caller, id, true);
    const updates: OrgMemberRow[] = [];
    for (const [userId, access] of Object.entries(input)) {
      const member = await this.stores.orgs.findMember(id, userId);
      if (!member) throw notFound(`${userId} is not a member of ${id}`);
      const level = access.level ?? member.level;
      const admin = level === 'ADMIN';
      updates.push({
        ...member,
        level,
        allowBillableActivities: admin || (access.allowBillableActivities ?? member.allowBillableActivities === 1) ? 1 : 0,
        appAccess: admin || (access.appAccess ?? member.appAccess === 1) ? 1 : 0,
        projectAccess: admin ? 'ADMINISTER' : (access.projectAccess ?? member.projectAccess),
      });
    }
    // Count the ADMINs as they will be after the change (promotions in the same call count too).
    const changed = new Map(updates.map((row) => [row.userId, row.level]));
    const admins = (await this.stores.orgs.listMembers(id, { level: 'ADMIN', limit: 100_000 })).filter((m) => (changed.get(m.userId) ?? 'ADMIN') === 'ADMIN');
    const promoted = updates.filter((row) => row.level === 'ADMIN' && !admins.some((m) => m.userId === row.userId));
    if (admins.length + promoted.length === 0) throw invalidState(`${id} must keep at least one ADMIN`);
    await this.stores.transaction(async (tx) => {
      for (const row of updates) await tx.orgs.upsertMember(row);
    });
    return { id };
  }

  async findMembers(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/findMembers'>) {
    const found = await this.stores.orgs.findById(id);
    const isPublic = found !== undefined && OrgsService.policiesOf(found).memberListVisibility === 'PUBLIC';
    const { org, membership } = await this.requireOrg(caller, id, false, isPublic);
    const visibility = OrgsService.policiesOf(org).memberListVisibility;
    if (visibility === 'ADMIN' && membership?.level !== 'ADMIN' && !caller.isAdmin) {
      throw permissionDenied(`Only ADMINs of ${id} may list its members (memberListVisibility is ADMIN)`);
    }
    const limit = input.limit ?? 1000;
    const rows = await this.stores.orgs.listMembers(id, {
      level: input.level,
      ids: input.id,
      afterId: typeof input.starting === 'string' ? input.starting : undefined,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const results = [];
    for (const row of page) {
      results.push({
        id: row.userId,
        level: row.level as 'ADMIN' | 'MEMBER',
        allowBillableActivities: row.allowBillableActivities === 1,
        appAccess: row.appAccess === 1,
        projectAccess: row.projectAccess as 'VIEW',
        ...(input.describe ? { describe: await this.users.describe(caller, row.userId, input.describe === true ? {} : input.describe) } : {}),
      });
    }
    return { results, next: rows.length > limit ? (page[page.length - 1]?.userId ?? null) : null };
  }

  async findProjects(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/findProjects'>) {
    await this.requireOrg(caller, id, true);
    const billed = await this.stores.projects.idsBilledTo([id]);
    const shared = (await this.stores.projects.allGrantsTo([id])).map((grant) => grant.projectId);
    let ids = [...new Set([...billed, ...shared])].sort();
    if (input.id) ids = ids.filter((projectId) => input.id?.includes(projectId));
    const after = typeof input.starting === 'string' ? input.starting : undefined;
    if (after) ids = ids.filter((projectId) => projectId > after);
    const limit = input.limit ?? 1000;
    const page = ids.slice(0, limit);
    const results = [];
    for (const projectId of page) {
      const access = await this.access.access(caller, projectId);
      results.push({
        id: projectId,
        level: access.level,
        ...(input.describe ? { describe: await this.projects.describeWithAccess(access, input.describe) } : {}),
      });
    }
    return { results, next: ids.length > limit ? (page[page.length - 1] ?? null) : null };
  }

  /** The apps billed to the org (every version not deleted: the org pays for them), filtered and paged as system/findApps. */
  async findApps(caller: Caller, id: string, input: RouteParsedInput<'org-xxxx/findApps'>) {
    await this.requireOrg(caller, id, true);
    return this.apps.find(caller, { ...input, billTo: id }, id);
  }

  async findOrgs(caller: Caller, input: RouteParsedInput<'system/findOrgs'>) {
    const memberships = (await this.stores.orgs.membershipsOfUser(caller.userId)).filter(
      (m) => !input.level || m.level === input.level || (input.level === 'MEMBER' && m.level === 'ADMIN'),
    );
    const after = typeof input.starting === 'string' ? input.starting : undefined;
    const rows = memberships.filter((m) => !after || m.orgId > after);
    const limit = input.limit ?? 1000;
    const page = rows.slice(0, limit);
    const results = [];
    for (const row of page) {
      results.push({
        id: row.orgId,
        level: row.level as 'ADMIN' | 'MEMBER',
        ...(input.describe ? { describe: await this.describe(caller, row.orgId, input.describe === true ? {} : input.describe) } : {}),
      });
    }
    return { results, next: rows.length > limit ? (page[page.length - 1]?.orgId ?? null) : null };
  }
}
