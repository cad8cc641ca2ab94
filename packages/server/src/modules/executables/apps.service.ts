import { DEFAULT_REGION, FIND_LIMIT_MAX, type RouteParsedInput, type RunSpec } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { newId } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import { nameMatcher } from '../../lib/name-match.js';
import type { Caller } from '../auth/caller.js';
import type { InstanceTypes } from '../jobs/instance-types.js';
import type { FoldersService } from '../projects/folders.service.js';
import { dedupe } from '../projects/projects.service.js';
import type { AppNameRow, AppRow } from './apps.repository.js';
import { buildExecutableSpec, bundledFileOf, describableSpec, type Executable, type ExecutableSpec } from './executable-spec.js';

const APP_HASH_ID = /^app-[0-9A-Za-z]{24}$/;
const APP_NAME_REF = /^app-([a-z][a-z0-9._-]*)(?:\/([0-9A-Za-z.+_-]+))?$/;

const APP_DEFAULT_FIELDS = [
  'id',
  'class',
  'name',
  'version',
  'aliases',
  'title',
  'summary',
  'description',
  'developerNotes',
  'dxapi',
  'inputSpec',
  'outputSpec',
  'runSpec',
  'access',
  'categories',
  'createdBy',
  'created',
  'modified',
  'published',
  'deleted',
  'billTo',
  'installed',
  'installs',
  'isDeveloperFor',
  'openSource',
  'resources',
  'regionalOptions',
  'details',
  'ignoreReuse',
  'httpsApp',
] as const;

interface AppExtra {
  openSource?: boolean;
  regionalOptions?: Record<string, unknown>;
  details?: unknown;
}

/** Apps: global, versioned executables addressed by id, name, name/version or name/tag (reference §4.4). */
export class AppsService {
  constructor(
    private readonly stores: Stores,
    private readonly folders: FoldersService,
    private readonly instanceTypes: InstanceTypes,
  ) {}

  private async memberIds(caller: Caller): Promise<Set<string>> {
    const orgs = await this.stores.orgs.membershipsOfUser(caller.userId);
    return new Set([caller.userId, 'PUBLIC', ...orgs.map((membership) => membership.orgId)]);
  }

  private isDeveloper(caller: Caller, names: AppNameRow): boolean {
    return caller.isAdmin || parseJson<string[]>(names.developers, []).includes(caller.userId);
  }

  private async mayRun(caller: Caller, names: AppNameRow): Promise<boolean> {
    if (this.isDeveloper(caller, names)) return true;
    const members = await this.memberIds(caller);
    return parseJson<string[]>(names.authorizedUsers, []).some((entity) => members.has(entity));
  }

  /** A version the caller may see: published to an authorized user, or any version to a developer. */
  private async visible(caller: Caller, row: AppRow, names: AppNameRow): Promise<boolean> {
    if (this.isDeveloper(caller, names)) return true;
    return row.published > 0 && row.deleted === 0 && (await this.mayRun(caller, names));
  }

  /** `app-xxxx`, `app-name`, `app-name/version` or `app-name/tag` → the version, if the caller may see it. */
  async resolve(caller: Caller, ref: string): Promise<{ row: AppRow; names: AppNameRow }> {
    const missing = () => notFound(`The app ${ref} could not be found`);
    let row: AppRow | undefined;
    if (APP_HASH_ID.test(ref)) row = await this.stores.apps.findById(ref);
    if (!row) {
      const match = APP_NAME_REF.exec(ref);
      if (!match) {
        if (APP_HASH_ID.test(ref)) throw missing();
        throw invalidInput(`"${ref}" is not an app ID or name: expected app-xxxx, app-<name>, app-<name>/<version> or app-<name>/<tag>`);
      }
      const [, name, versionOrTag] = match as unknown as [string, string, string | undefined];
      const versions = (await this.stores.apps.listVersions(name)).filter((version) => version.deleted === 0);
      const tagged = (tag: string) => versions.find((version) => parseJson<string[]>(version.tags, []).includes(tag));
      if (versionOrTag) row = versions.find((version) => version.version === versionOrTag) ?? tagged(versionOrTag);
      else row = tagged('default') ?? [...versions].reverse().find((version) => version.published > 0);
    }
    if (!row) throw missing();
    const names = await this.stores.apps.findName(row.name);
    if (!names || !(await this.visible(caller, row, names))) throw missing();
    return { row, names };
  }

  private async requireDeveloper(caller: Caller, ref: string): Promise<{ row: AppRow; names: AppNameRow }> {
    const resolved = await this.resolve(caller, ref);
    if (!this.isDeveloper(caller, resolved.names)) throw permissionDenied(`Only developers of ${resolved.row.name} may do this`);
    return resolved;
  }

  async create(caller: Caller, input: RouteParsedInput<'app/new'>, now: number): Promise<{ id: string }> {
    if (caller.scope || caller.tokenKind === 'job') throw permissionDenied('Apps are created with an unscoped token');
    const names = await this.stores.apps.findName(input.name);
    if (names && !this.isDeveloper(caller, names)) throw permissionDenied(`The app name ${input.name} belongs to other developers`);
    if (await this.stores.apps.findVersion(input.name, input.version)) throw invalidInput(`Version ${input.version} of app ${input.name} already exists`);
    const spec = buildExecutableSpec(input as Record<string, unknown> & { runSpec: RunSpec }, this.instanceTypes, DEFAULT_REGION);
    const id = newId('app');
    const billTo = input.billTo ?? input.bill_to ?? caller.userId;
    if (billTo !== caller.userId && !(await this.stores.orgs.findMember(billTo, caller.userId))) {
      throw permissionDenied(`You cannot bill an app to ${billTo}`);
    }
    // Bundled resources live in a container of the version's own, so that runs never depend on a project.
    const resources = newId('container');
    await this.stores.transaction(async (tx) => {
      await tx.projects.insert({
        id: resources,
        class: 'container',
        name: `resources of app-${input.name}/${input.version}`,
        billTo,
        region: DEFAULT_REGION,
        containsPHI: 0,
        settings: '{}',
        summary: '',
        description: '',
        tags: '[]',
        properties: '{}',
        pendingTransfer: null,
        createdBy: toJson({ user: caller.userId }),
        created: now,
        modified: now,
        version: 1,
      });
      await tx.projects.setMember({ projectId: resources, memberId: caller.userId, level: 'ADMINISTER', created: now });
    });
    for (const [index, depend] of (spec.runSpec.bundledDepends ?? []).entries()) {
      const file = bundledFileOf(depend);
      if (!file) continue;
      const from = file.project ?? (await this.stores.objects.containersOf(file.id))[0];
      if (!from) throw invalidInput(`runSpec.bundledDepends[${index}]: ${file.id} could not be found`);
      await this.folders.clone(caller, from, { objects: [file.id], project: resources, destination: '/', parents: true }, now);
    }
    const extra: AppExtra = { openSource: input.openSource, regionalOptions: input.regionalOptions, details: input.details };
    await this.stores.transaction(async (tx) => {
      if (!names) {
        await tx.apps.insertName({
          name: input.name,
          categories: toJson(dedupe(input.categories ?? [])),
          authorizedUsers: '[]',
          developers: toJson([caller.userId]),
          created: now,
        });
      } else if (input.categories) {
        await tx.apps.updateName(input.name, { categories: toJson(dedupe([...parseJson<string[]>(names.categories, []), ...input.categories])) });
      }
      await tx.apps.insert({
        id,
        name: input.name,
        version: input.version,
        published: 0,
        deleted: 0,
        createdBy: caller.userId,
        billTo,
        resources,
        tags: toJson(dedupe(input.aliases ?? [])),
        spec: toJson({ ...spec, ...extra }),
        created: now,
        modified: now,
      });
    });
    return { id };
  }

  async describe(caller: Caller, ref: string, options: RouteParsedInput<'app-xxxx/describe'>): Promise<{ id: string } & Record<string, unknown>> {
    const { row, names } = await this.resolve(caller, ref);
    return this.describeRow(caller, row, names, options);
  }

  private async describeRow(
    caller: Caller,
    row: AppRow,
    names: AppNameRow,
    options: RouteParsedInput<'app-xxxx/describe'> | boolean | undefined,
  ): Promise<{ id: string } & Record<string, unknown>> {
    const want = fieldSelector(options, APP_DEFAULT_FIELDS);
    const spec = parseJson<ExecutableSpec & AppExtra>(row.spec, {} as ExecutableSpec);
    const shown = describableSpec(spec);
    const installed = want('installed') ? (await this.stores.apps.installedBy(caller.userId)).includes(row.name) : false;
    const installs = want('installs') ? await this.stores.apps.installCount(row.name) : 0;
    const described = pickFields(want, {
      id: () => row.id,
      class: () => 'app',
      name: () => row.name,
      version: () => row.version,
      aliases: () => parseJson<string[]>(row.tags, []),
      title: () => spec.title ?? row.name,
      summary: () => spec.summary ?? '',
      description: () => spec.description ?? '',
      developerNotes: () => spec.developerNotes ?? '',
      dxapi: () => spec.dxapi,
      inputSpec: () => shown.inputSpec,
      outputSpec: () => shown.outputSpec,
      runSpec: () => shown.runSpec,
      access: () => spec.access ?? {},
      categories: () => parseJson<string[]>(names.categories, []),
      createdBy: () => row.createdBy,
      created: () => row.created,
      modified: () => row.modified,
      published: () => row.published,
      deleted: () => row.deleted === 1,
      billTo: () => row.billTo,
      installed: () => installed,
      installs: () => installs,
      isDeveloperFor: () => this.isDeveloper(caller, names),
      openSource: () => spec.openSource ?? false,
      resources: () => row.resources,
      regionalOptions: () => spec.regionalOptions ?? {},
      details: () => spec.details ?? {},
      ignoreReuse: () => spec.ignoreReuse ?? false,
      httpsApp: () => spec.httpsApp ?? null,
    });
    return { ...described, id: row.id };
  }

  async get(caller: Caller, ref: string): Promise<{ id: string } & Record<string, unknown>> {
    const { row, names } = await this.resolve(caller, ref);
    const described = await this.describeRow(caller, row, names, true);
    return { ...described, runSpec: parseJson<ExecutableSpec>(row.spec, {} as ExecutableSpec).runSpec };
  }

  async forRun(caller: Caller, ref: string): Promise<Executable> {
    const { row, names } = await this.resolve(caller, ref);
    if (row.deleted) throw invalidState(`${row.name}/${row.version} has been deleted`);
    if (!(await this.mayRun(caller, names))) throw permissionDenied(`You are not an authorized user of the app ${row.name}`);
    return {
      id: row.id,
      kind: 'app',
      name: row.name,
      version: row.version,
      spec: parseJson<ExecutableSpec>(row.spec, {} as ExecutableSpec),
      container: row.resources,
    };
  }

  /** The version's spec, for the engine. */
  async load(id: string): Promise<ExecutableSpec> {
    const row = await this.stores.apps.findById(id);
    if (!row) throw notFound(`The app ${id} no longer exists`);
    return parseJson<ExecutableSpec>(row.spec, {} as ExecutableSpec);
  }

  async update(caller: Caller, ref: string, input: RouteParsedInput<'app-xxxx/update'>, now: number) {
    const { row } = await this.requireDeveloper(caller, ref);
    if (row.published) throw invalidState(`${row.name}/${row.version} is published and can no longer change`);
    const current = parseJson<ExecutableSpec & AppExtra>(row.spec, {} as ExecutableSpec);
    const merged = { ...current, ...input, runSpec: input.runSpec ?? current.runSpec };
    const spec = buildExecutableSpec(merged as Record<string, unknown> & { runSpec: RunSpec }, this.instanceTypes, DEFAULT_REGION);
    await this.stores.apps.update(row.id, { spec: toJson({ ...spec, details: merged.details, openSource: current.openSource }), modified: now });
    return { id: row.id };
  }

  async publish(caller: Caller, ref: string, input: RouteParsedInput<'app-xxxx/publish'>, now: number) {
    const { row } = await this.requireDeveloper(caller, ref);
    if (row.published) throw invalidState(`${row.name}/${row.version} is already published`);
    const versions = await this.stores.apps.listVersions(row.name);
    const hasDefault = versions.some((version) => parseJson<string[]>(version.tags, []).includes('default'));
    await this.stores.apps.update(row.id, { published: now, modified: now });
    if (input.makeDefault || !hasDefault) await this.moveTags(row, ['default'], now);
    return { id: row.id };
  }

  /** A tag names one version of an app: tagging this version takes the tag from any other. */
  private async moveTags(row: AppRow, tags: string[], now: number): Promise<void> {
    await this.stores.transaction(async (tx) => {
      for (const version of await tx.apps.listVersions(row.name)) {
        const current = parseJson<string[]>(version.tags, []);
        const next = version.id === row.id ? dedupe([...current, ...tags]) : current.filter((tag) => !tags.includes(tag));
        if (next.length !== current.length || version.id === row.id) await tx.apps.update(version.id, { tags: toJson(next), modified: now });
      }
    });
  }

  async addTags(caller: Caller, ref: string, tags: string[], now: number) {
    const { row } = await this.requireDeveloper(caller, ref);
    await this.moveTags(row, tags, now);
    return { id: row.id };
  }

  async removeTags(caller: Caller, ref: string, tags: string[], now: number) {
    const { row } = await this.requireDeveloper(caller, ref);
    await this.stores.apps.update(row.id, { tags: toJson(parseJson<string[]>(row.tags, []).filter((tag) => !tags.includes(tag))), modified: now });
    return { id: row.id };
  }

  async delete(caller: Caller, ref: string, now: number) {
    const { row } = await this.requireDeveloper(caller, ref);
    await this.stores.apps.update(row.id, { deleted: 1, tags: '[]', modified: now });
    return { id: row.id };
  }

  async install(caller: Caller, ref: string, install: boolean, now: number) {
    const { row } = await this.resolve(caller, ref);
    if (install) await this.stores.apps.install(row.name, caller.userId, now);
    else await this.stores.apps.uninstall(row.name, caller.userId);
    return { id: row.id };
  }

  /** categories, authorizedUsers or developers: lists every version of the app shares. */
  async changeList(caller: Caller, ref: string, list: 'categories' | 'authorizedUsers' | 'developers', values: string[], add: boolean) {
    const { row, names } = await this.requireDeveloper(caller, ref);
    if (list !== 'categories') {
      for (const entity of values) {
        const ok = entity === 'PUBLIC' ? list === 'authorizedUsers' : entity.startsWith('user-') || (list === 'authorizedUsers' && entity.startsWith('org-'));
        if (!ok)
          throw invalidInput(
            `"${entity}" cannot be ${list === 'developers' ? 'a developer' : 'an authorized user'}: give user IDs${list === 'authorizedUsers' ? ', org IDs or PUBLIC' : ''}`,
          );
        const exists = entity === 'PUBLIC' || (entity.startsWith('user-') ? await this.stores.users.findById(entity) : await this.stores.orgs.findById(entity));
        if (add && !exists) throw notFound(`${entity} could not be found`);
      }
    }
    const current = parseJson<string[]>(names[list], []);
    const next = add ? dedupe([...current, ...values]) : current.filter((value) => !values.includes(value));
    if (list === 'developers' && next.length === 0) throw invalidState(`${row.name} must keep at least one developer`);
    await this.stores.apps.updateName(row.name, { [list]: toJson(next) });
    return { id: row.id };
  }

  async listOf(caller: Caller, ref: string, list: 'categories' | 'authorizedUsers' | 'developers'): Promise<string[]> {
    const { names } = await this.resolve(caller, ref);
    return parseJson<string[]>(names[list], []);
  }

  /**
   * `payer`: an org the caller is an ADMIN of (org-xxxx/findApps). The org pays for its apps, so its
   * ADMINs see every version billed to it that is not deleted, published or not.
   */
  async find(caller: Caller, input: RouteParsedInput<'system/findApps'>, payer?: string) {
    const matcher = input.name ? nameMatcher(input.name) : undefined;
    const installed = input.installed === undefined ? undefined : new Set(await this.stores.apps.installedBy(caller.userId));
    const billTo = input.billTo === undefined ? undefined : new Set([input.billTo].flat());
    const namesByName = new Map((await this.stores.apps.listNames()).map((names) => [names.name, names]));
    const candidates: { row: AppRow; names: AppNameRow }[] = [];
    const byName = new Map<string, AppRow[]>();
    for (const row of await this.stores.apps.listAll()) byName.set(row.name, [...(byName.get(row.name) ?? []), row]);
    for (const [name, versions] of byName) {
      const names = namesByName.get(name);
      if (!names) continue;
      if (matcher && !matcher.test(name)) continue;
      if (input.category && !parseJson<string[]>(names.categories, []).includes(input.category)) continue;
      if (input.developer && !parseJson<string[]>(names.developers, []).includes(input.developer)) continue;
      if (input.authorizedUser && !parseJson<string[]>(names.authorizedUsers, []).includes(input.authorizedUser)) continue;
      if (installed && installed.has(name) !== input.installed) continue;
      const visible: AppRow[] = [];
      for (const row of versions) {
        const paidFor = payer !== undefined && row.billTo === payer && row.deleted === 0;
        if (paidFor || (await this.visible(caller, row, names))) visible.push(row);
      }
      let chosen = visible;
      if (!input.allVersions) {
        const preferred =
          visible.find((row) => parseJson<string[]>(row.tags, []).includes('default')) ??
          [...visible].reverse().find((row) => row.published > 0) ??
          visible[visible.length - 1];
        chosen = preferred ? [preferred] : [];
      }
      for (const row of chosen) {
        if (input.published !== undefined && row.published > 0 !== input.published) continue;
        if (billTo && !billTo.has(row.billTo)) continue;
        if (input.createdBy && row.createdBy !== input.createdBy) continue;
        if (input.created?.after !== undefined && row.created < input.created.after) continue;
        if (input.created?.before !== undefined && row.created > input.created.before) continue;
        if (input.modified?.after !== undefined && row.modified < input.modified.after) continue;
        if (input.modified?.before !== undefined && row.modified > input.modified.before) continue;
        candidates.push({ row, names });
      }
    }
    candidates.sort((a, b) => (a.row.id < b.row.id ? -1 : 1));
    const after = typeof input.starting === 'string' ? input.starting : undefined;
    const start = after ? candidates.findIndex((entry) => entry.row.id > after) : 0;
    const limit = input.limit ?? FIND_LIMIT_MAX;
    const page = start < 0 ? [] : candidates.slice(start, start + limit);
    const results: { id: string; describe?: unknown }[] = [];
    for (const entry of page) {
      results.push({ id: entry.row.id, ...(input.describe ? { describe: await this.describeRow(caller, entry.row, entry.names, input.describe) } : {}) });
    }
    const more = start >= 0 && start + limit < candidates.length;
    return { results, next: more ? (page[page.length - 1]?.row.id ?? null) : null };
  }
}
