import { atLeast, DEFAULT_REGION, type PermissionLevel, REGIONS, type RouteParsedInput, type RoutePath } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import { matchesProperties, matchesTags, nameMatcher } from '../../lib/name-match.js';
import type { Caller } from '../auth/caller.js';
import type { AccessService, ProjectAccess } from './access.service.js';
import { describeProject, type ProjectSettings, projectFieldSelector, projectSettings } from './project-describe.js';
import type { ProjectRow } from './projects.repository.js';

type Input<P extends RoutePath> = RouteParsedInput<P>;

const SETTINGS_KEYS = [
  'protected',
  'restricted',
  'downloadRestricted',
  'externalUploadRestricted',
  'previewViewerRestricted',
  'displayDataProtectionNotice',
  'httpsAppIsolatedBrowsing',
  'jobOutboundInternet',
  'defaultInstanceType',
  'allowedExecutables',
  'monthlyComputeLimit',
  'monthlyEgressBytesLimit',
  'defaultSymlink',
] as const satisfies readonly (keyof ProjectSettings)[];

/** Settings only ADMINISTER may change; name, summary and description need CONTRIBUTE. */
const ADMIN_ONLY_UPDATES = new Set<string>([...SETTINGS_KEYS, 'containsPHI']);

export class ProjectsService {
  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly hooks: {
      onObjectsDeleted: () => void;
      /** After an invite gave someone access (notifications); it must not throw. */
      onProjectShared?: (event: { projectId: string; projectName: string; invitee: string; level: string; sharedBy: string }, now: number) => Promise<void>;
    },
  ) {}

  async create(caller: Caller, input: Input<'project/new'>, now: number): Promise<{ id: string }> {
    if (caller.scope) throw permissionDenied('A project-scoped token cannot create projects');
    const billTo = input.billTo ?? caller.userId;
    await this.assertCanBillTo(caller, billTo);
    const region = input.region ?? DEFAULT_REGION;
    if (!(REGIONS as readonly string[]).includes(region)) throw invalidInput(`Unknown region "${region}"; known regions: ${REGIONS.join(', ')}`);
    if (input.containsPHI) await this.assertPhiAllowed(billTo);
    const id = newId('project');
    const settings: ProjectSettings = {};
    for (const key of SETTINGS_KEYS) if (input[key] !== undefined) Object.assign(settings, { [key]: input[key] });
    await this.stores.transaction(async (tx) => {
      await tx.projects.insert({
        id,
        class: 'project',
        name: input.name,
        billTo,
        region,
        containsPHI: input.containsPHI ? 1 : 0,
        settings: toJson(settings),
        summary: input.summary ?? '',
        description: input.description ?? '',
        tags: toJson(dedupe(input.tags ?? [])),
        properties: toJson(input.properties ?? {}),
        pendingTransfer: null,
        createdBy: toJson({ user: caller.userId }),
        created: now,
        modified: now,
        version: 1,
      });
      await tx.projects.setMember({ projectId: id, memberId: caller.userId, level: 'ADMINISTER', created: now });
    });
    return { id };
  }

  /** A user may bill themselves, or an org where they may do billable activities. */
  private async assertCanBillTo(caller: Caller, billTo: string): Promise<void> {
    if (billTo === caller.userId) return;
    if (billTo.startsWith('user-')) throw permissionDenied(`You cannot bill projects to another user (${billTo})`);
    const org = await this.stores.orgs.findById(billTo);
    if (!org) throw notFound(`The org ${billTo} could not be found`);
    const membership = await this.stores.orgs.findMember(billTo, caller.userId);
    if (!membership || (!membership.allowBillableActivities && membership.level !== 'ADMIN')) {
      throw permissionDenied(`You are not allowed to bill to ${billTo}: billable activities need the org's permission`);
    }
  }

  /** PHI is permitted only when the billing org has PHI features on (SPEC §6). */
  private async assertPhiAllowed(billTo: string): Promise<void> {
    const org = billTo.startsWith('org-') ? await this.stores.orgs.findById(billTo) : undefined;
    if (!org?.phiFeaturesEnabled) throw permissionDenied(`Projects containing PHI must bill to an org with PHI features enabled (${billTo} has none)`);
  }

  async describe(caller: Caller, id: string, options: RouteParsedInput<'project-xxxx/describe'>): Promise<{ id: string } & Record<string, unknown>> {
    const access = await this.access.require(caller, id, 'VIEW');
    return this.describeWithAccess(access, options);
  }

  async describeWithAccess(
    access: ProjectAccess,
    options: RouteParsedInput<'project-xxxx/describe'> | boolean | undefined,
  ): Promise<{ id: string } & Record<string, unknown>> {
    const want = projectFieldSelector(options);
    const { project } = access;
    return describeProject(want, {
      row: project,
      level: access.level,
      members: want('permissions') ? await this.stores.projects.listMembers(project.id) : undefined,
      // Kept up to date by the objects repository as files close and copies come and go.
      dataUsageBytes: Number(project.closedBytes),
      folders: want('folders') ? await this.stores.projects.listFolders(project.id) : undefined,
    });
  }

  async describeMany(caller: Caller, input: RouteParsedInput<'system/describeProjects'>) {
    const results: unknown[] = [];
    for (const id of input.projects) {
      try {
        const access = await this.access.require(caller, id, 'VIEW');
        results.push({ describe: await this.describeWithAccess(access, input.describe ?? true) });
      } catch {
        results.push({});
      }
    }
    return { results };
  }

  async update(caller: Caller, id: string, input: Input<'project-xxxx/update'>, now: number): Promise<{ id: string }> {
    const needsAdmin = Object.keys(input).some((key) => ADMIN_ONLY_UPDATES.has(key));
    const { project } = await this.access.require(caller, id, needsAdmin ? 'ADMINISTER' : 'CONTRIBUTE', 'Changing these project settings');
    const settings = projectSettings(project);
    for (const key of SETTINGS_KEYS) if (input[key] !== undefined) Object.assign(settings, { [key]: input[key] });
    const patch: Partial<ProjectRow> = { settings: toJson(settings), modified: now, version: project.version + 1 };
    if (input.name !== undefined) patch.name = input.name;
    if (input.summary !== undefined) patch.summary = input.summary;
    if (input.description !== undefined) patch.description = input.description;
    if (input.containsPHI !== undefined) {
      if (!input.containsPHI && project.containsPHI) throw invalidInput('containsPHI cannot be unset once a project holds PHI');
      if (input.containsPHI && !project.containsPHI) await this.assertPhiAllowed(project.billTo);
      patch.containsPHI = input.containsPHI ? 1 : 0;
    }
    await this.stores.projects.update(id, patch);
    return { id };
  }

  async destroy(caller: Caller, id: string): Promise<Record<string, never>> {
    await this.access.require(caller, id, 'ADMINISTER', 'Deleting a project');
    await this.stores.transaction(async (tx) => {
      const orphans = await tx.objects.removeAllCopies(id);
      await tx.objects.deleteObjects(orphans, Date.now());
      await tx.projects.delete(id);
    });
    this.hooks.onObjectsDeleted();
    return {};
  }

  async invite(caller: Caller, id: string, input: Input<'project-xxxx/invite'>, now: number) {
    const { project } = await this.access.require(caller, id, 'ADMINISTER', 'Sharing a project');
    const invitee = await this.resolveInvitee(input.invitee);
    const settings = projectSettings(project);
    if (settings.restricted && project.billTo.startsWith('org-')) {
      // Restricted: shared only within the billing org (its members, or the org itself).
      const allowed = invitee.startsWith('user-') ? (await this.stores.orgs.findMember(project.billTo, invitee)) !== undefined : invitee === project.billTo;
      if (!allowed) throw permissionDenied(`${id} is restricted: it can only be shared with ${project.billTo} and its members, not ${invitee}`);
    }
    const existing = (await this.stores.projects.grantsTo(id, [invitee]))[0];
    if (existing && atLeast(existing.level as PermissionLevel, input.level)) {
      // DNAnexus never lowers a level through invite; decreasePermissions does that.
      return { id, state: 'ACCEPTED' as const };
    }
    await this.stores.projects.setMember({ projectId: id, memberId: invitee, level: input.level, created: now });
    await this.hooks.onProjectShared?.({ projectId: id, projectName: project.name, invitee, level: input.level, sharedBy: caller.userId }, now);
    return { id, state: 'ACCEPTED' as const };
  }

  /** A user id, an org id, or the e-mail address of a known user. */
  private async resolveInvitee(invitee: string): Promise<string> {
    if (invitee.startsWith('user-')) {
      if (!(await this.stores.users.findById(invitee))) throw notFound(`The user ${invitee} could not be found`);
      return invitee;
    }
    if (invitee.startsWith('org-')) {
      if (!(await this.stores.orgs.findById(invitee))) throw notFound(`The org ${invitee} could not be found`);
      return invitee;
    }
    if (invitee.includes('@')) {
      throw invalidInput(`Inviting by e-mail address is not available on this server: invite "${invitee}" by user ID instead`);
    }
    throw invalidInput(`"invitee" must be a user ID, an org ID or an e-mail address, not "${invitee}"`);
  }

  async decreasePermissions(caller: Caller, id: string, input: Input<'project-xxxx/decreasePermissions'>, now: number) {
    const access = await this.access.access(caller, id);
    const entries = Object.entries(input);
    const onlySelf = entries.every(([member]) => member === caller.userId);
    if (!onlySelf || access.level === 'NONE') await this.access.require(caller, id, 'ADMINISTER', "Changing members' access");
    const members = await this.stores.projects.listMembers(id);
    const byMember = new Map(members.map((m) => [m.memberId, m.level as PermissionLevel]));
    const adminsBefore = members.filter((m) => m.level === 'ADMINISTER').length;
    for (const [member, level] of entries) {
      const current = byMember.get(member);
      if (!current) continue;
      if (level !== null && atLeast(level, current) && level !== current) {
        throw invalidInput(`decreasePermissions cannot raise ${member} from ${current} to ${level}; use invite`);
      }
      if (level === null) byMember.delete(member);
      else byMember.set(member, level);
    }
    const admins = [...byMember.entries()].filter(([, level]) => level === 'ADMINISTER');
    // Nobody may lock a project out; a project billed to an org never is (the org's ADMINs administer it).
    if (admins.length === 0 && adminsBefore > 0 && !access.project.billTo.startsWith('org-')) {
      throw invalidState(`${id} must keep at least one member with ADMINISTER`);
    }
    await this.stores.transaction(async (tx) => {
      for (const [member, level] of entries) {
        if (level === null) await tx.projects.removeMember(id, member);
        else if (byMember.has(member)) await tx.projects.setMember({ projectId: id, memberId: member, level, created: now });
      }
    });
    return { id };
  }

  async leave(caller: Caller, id: string) {
    const access = await this.access.require(caller, id, 'VIEW');
    const members = await this.stores.projects.listMembers(access.project.id);
    const mine = members.find((m) => m.memberId === caller.userId);
    if (!mine) throw invalidState(`You have no explicit access to ${id} to give up (your access comes through ${access.sources.join(', ')})`);
    const otherAdmins = members.filter((m) => m.level === 'ADMINISTER' && m.memberId !== caller.userId);
    if (mine.level === 'ADMINISTER' && otherAdmins.length === 0 && !access.project.billTo.startsWith('org-')) {
      throw invalidState(`You are the last administrator of ${id}: make someone else ADMINISTER, or delete the project`);
    }
    await this.stores.projects.removeMember(id, caller.userId);
    return { id };
  }

  async transfer(caller: Caller, id: string, input: Input<'project-xxxx/transfer'>, now: number) {
    const { project } = await this.access.require(caller, id, 'ADMINISTER', 'Transferring a project');
    if (project.billTo.startsWith('org-')) {
      const org = await this.stores.orgs.findById(project.billTo);
      const policy = parseJson<{ restrictProjectTransfer?: string }>(org?.policies, {}).restrictProjectTransfer ?? 'ADMIN';
      const membership = await this.stores.orgs.findMember(project.billTo, caller.userId);
      if (policy === 'ADMIN' && membership?.level !== 'ADMIN') {
        throw permissionDenied(`${project.billTo} only lets its admins transfer its projects (restrictProjectTransfer is ADMIN)`);
      }
    }
    if (input.invitee.startsWith('org-')) {
      await this.assertCanBillTo(caller, input.invitee);
      if (project.containsPHI) await this.assertPhiAllowed(input.invitee);
      await this.stores.projects.update(id, { billTo: input.invitee, pendingTransfer: null, modified: now });
      return { id, state: 'ACCEPTED' as const };
    }
    if (!(await this.stores.users.findById(input.invitee))) throw notFound(`The user ${input.invitee} could not be found`);
    if (input.invitee === project.billTo) throw invalidInput(`${id} already bills to ${input.invitee}`);
    if (project.containsPHI) throw permissionDenied(`${id} contains PHI: it can only be billed to an org with PHI features enabled, not to a user`);
    await this.stores.projects.update(id, { pendingTransfer: input.invitee, modified: now });
    return { id, state: 'PENDING' as const };
  }

  async acceptTransfer(caller: Caller, id: string, now: number) {
    const project = await this.stores.projects.findById(id);
    if (!project || project.pendingTransfer !== caller.userId) {
      // Someone who cannot see the project learns nothing about it.
      const { level } = project ? await this.access.access(caller, id) : { level: 'NONE' };
      if (level === 'NONE') throw notFound(`There is no transfer of ${id} pending for you`);
      if (!project?.pendingTransfer) throw invalidState(`No transfer of ${id} is pending`);
      throw permissionDenied(`The transfer of ${id} is pending for someone else`);
    }
    if (caller.scope) {
      // Accepting makes the caller an administrator and the payer: a scoped token needs ADMINISTER scope on the project.
      const reach = this.access.capByScope(caller, id, 'ADMINISTER');
      if (reach === 'NONE') throw notFound(`There is no transfer of ${id} pending for you`);
      if (reach !== 'ADMINISTER') throw permissionDenied(`Accepting the transfer of ${id} requires a token scoped to it at ADMINISTER; this one has ${reach}`);
    }
    await this.stores.transaction(async (tx) => {
      await tx.projects.update(id, { billTo: caller.userId, pendingTransfer: null, modified: now });
      await tx.projects.setMember({ projectId: id, memberId: caller.userId, level: 'ADMINISTER', created: now });
    });
    return { id };
  }

  async changeTags(caller: Caller, id: string, tags: string[], add: boolean, now: number) {
    const { project } = await this.access.require(caller, id, 'CONTRIBUTE', 'Changing project tags');
    const current = parseJson<string[]>(project.tags, []);
    const next = add ? dedupe([...current, ...tags]) : current.filter((tag) => !tags.includes(tag));
    await this.stores.projects.update(id, { tags: toJson(next), modified: now });
    return { id };
  }

  async setProperties(caller: Caller, id: string, properties: Record<string, string | null>, now: number) {
    const { project } = await this.access.require(caller, id, 'CONTRIBUTE', 'Changing project properties');
    const next = applyProperties(parseJson<Record<string, string>>(project.properties, {}), properties);
    await this.stores.projects.update(id, { properties: toJson(next), modified: now });
    return { id };
  }

  async find(caller: Caller, input: Input<'system/findProjects'>) {
    const visible = await this.access.visibleProjects(caller);
    const matcher = input.name ? nameMatcher(input.name) : undefined;
    const billTo = input.billTo === undefined ? undefined : new Set([input.billTo].flat());
    const regions = input.region === undefined ? undefined : new Set([input.region].flat());
    const ids = input.id ? new Set(input.id) : undefined;
    const filtered = visible
      .filter(({ project, level, sources }) => {
        if (project.class !== 'project') return false;
        if (ids && !ids.has(project.id)) return false;
        if (matcher && !matcher.test(project.name)) return false;
        if (input.level && !atLeast(level, input.level)) return false;
        if (input.explicitPermission && !sources.includes(caller.userId)) return false;
        if (input.public === true) return false;
        if (billTo && !billTo.has(project.billTo)) return false;
        if (regions && !regions.has(project.region)) return false;
        if (input.containsPHI !== undefined && (project.containsPHI === 1) !== input.containsPHI) return false;
        if (input.tags && !matchesTags(parseJson<string[]>(project.tags, []), input.tags)) return false;
        if (input.properties && !matchesProperties(parseJson(project.properties, {}), input.properties)) return false;
        if (input.created?.after !== undefined && project.created < input.created.after) return false;
        if (input.created?.before !== undefined && project.created > input.created.before) return false;
        if (input.modified?.after !== undefined && project.modified < input.modified.after) return false;
        if (input.modified?.before !== undefined && project.modified > input.modified.before) return false;
        return true;
      })
      .sort((a, b) => (a.project.id < b.project.id ? -1 : 1));
    const after = typeof input.starting === 'string' ? input.starting : undefined;
    const start = after ? filtered.findIndex((entry) => entry.project.id > after) : 0;
    const limit = input.limit ?? 1000;
    const page = start < 0 ? [] : filtered.slice(start, start + limit);
    const results = [];
    for (const entry of page) {
      results.push({
        id: entry.project.id,
        level: entry.level,
        permissionSources: entry.sources,
        public: false,
        ...(input.describe ? { describe: await this.describeWithAccess(entry, input.describe) } : {}),
      });
    }
    const hasMore = start >= 0 && start + limit < filtered.length;
    return { results, next: hasMore ? (page[page.length - 1]?.project.id ?? null) : null };
  }
}

export function dedupe<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

export function applyProperties(current: Record<string, string>, changes: Record<string, string | null>): Record<string, string> {
  const next = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}
