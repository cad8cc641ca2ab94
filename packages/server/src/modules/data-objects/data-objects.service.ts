import { ApiError, invalidInput, invalidState, notFound, permissionDenied } from '../../errors.js';
import {
  ARCHIVAL_STATES,
  atLeast,
  DATA_OBJECT_CLASSES,
  type DataObjectClass,
  FIND_LIMIT_MAX,
  type PermissionLevel,
  type RouteParsedInput,
} from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { normalizeFolder, pathWithAncestors } from '../../lib/folders.js';
import { newId } from '../../lib/ids.js';
import { parseJson, toJson } from '../../lib/json.js';
import { matchesProperties, matchesTags, nameMatcher } from '../../lib/name-match.js';
import type { Caller } from '../auth/caller.js';
import type { AccessService, ProjectAccess } from '../projects/access.service.js';
import { applyProperties, dedupe } from '../projects/projects.service.js';
import { describeObject, linksIn, objectFieldSelector } from './object-describe.js';
import type { CopyRow, FoundName, ObjectInContainer, ObjectQuery, ObjectRow } from './objects.repository.js';

/** A search result: a whole row, or the keys and name when nothing else is needed. */
type FoundRow = ObjectInContainer | FoundName;

export interface ResolvedObject {
  row: ObjectInContainer;
  access: ProjectAccess;
}

export interface NewObjectSpec {
  cls: DataObjectClass;
  state: 'open' | 'closed';
  media?: string;
  content?: Record<string, unknown>;
  /**
   * Called with the new id once the caller's access has been checked, before anything is written:
   * its answer (a file's upload id and blob key) is stored with the object in the same insert.
   */
  prepare?: (id: string) => Promise<Partial<Pick<ObjectRow, 'blobKey' | 'uploadId'>>>;
}

/** Largest details document (as JSON text). */
const DETAILS_MAX_BYTES = 2 * 1024 * 1024;

type CommonNewInput = RouteParsedInput<'record/new'> | RouteParsedInput<'file/new'>;

/** What every data object class shares: creation, describe, metadata methods, search and resolution. */
export class DataObjectsService {
  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
  ) {}

  /** Finds the object's copy in `projectHint`, or in the first container the caller can see. */
  async resolve(caller: Caller, objectId: string, projectHint: string | undefined, expectedClass: string): Promise<ResolvedObject> {
    if (!objectId.startsWith(`${expectedClass}-`)) throw invalidInput(`Expected a ${expectedClass} ID, got "${objectId}"`);
    if (projectHint) {
      const access = await this.access.require(caller, projectHint, 'VIEW');
      const row = await this.stores.objects.findInContainer(projectHint, objectId);
      if (!row) throw notFound(`The ${expectedClass} ${objectId} could not be found in ${projectHint}`);
      return { row, access };
    }
    for (const projectId of await this.stores.objects.containersOf(objectId)) {
      const access = await this.access.access(caller, projectId);
      if (access.level === 'NONE') continue;
      const row = await this.stores.objects.findInContainer(projectId, objectId);
      if (row) return { row, access };
    }
    throw notFound(`The ${expectedClass} ${objectId} could not be found`);
  }

  /** Metadata of an open object needs UPLOAD; of a closed one, CONTRIBUTE. */
  private requireMetadataAccess(resolved: ResolvedObject): void {
    const needed: PermissionLevel = resolved.row.state === 'open' ? 'UPLOAD' : 'CONTRIBUTE';
    if (!atLeast(resolved.access.level, needed)) {
      throw permissionDenied(`Changing ${resolved.row.objectId} requires ${needed} permission in ${resolved.row.projectId}; you have ${resolved.access.level}`);
    }
  }

  async create(caller: Caller, input: CommonNewInput, spec: NewObjectSpec, now: number): Promise<{ id: string }> {
    const access = await this.access.require(caller, input.project, 'UPLOAD', 'Creating data');
    const folder = normalizeFolder(input.folder ?? '/');
    if (!(await this.stores.projects.folderExists(input.project, folder))) {
      if (!input.parents) throw notFound(`The folder "${folder}" could not be found in ${input.project}; pass "parents": true to create it`);
    }
    const details = toJson(input.details ?? {});
    if (Buffer.byteLength(details) > DETAILS_MAX_BYTES) throw invalidInput('"details" is larger than 2 MiB');
    const id = newId(spec.cls);
    const createdBy = toJson({ user: caller.userId });
    const prepared = spec.prepare ? await spec.prepare(id) : {};
    await this.stores.transaction(async (tx) => {
      if (input.parents) await tx.projects.insertFolders(input.project, pathWithAncestors(folder));
      await tx.objects.insert(
        {
          id,
          class: spec.cls,
          state: spec.state,
          media: spec.media ?? '',
          size: null,
          blobKey: prepared.blobKey ?? null,
          uploadId: prepared.uploadId ?? null,
          content: toJson(spec.content ?? {}),
          createdBy,
          created: now,
          stateChanged: now,
        },
        {
          projectId: access.project.id,
          objectId: id,
          class: spec.cls,
          name: input.name ?? id,
          folder,
          hidden: input.hidden ? 1 : 0,
          tags: toJson(dedupe(input.tags ?? [])),
          types: toJson(dedupe(input.types ?? [])),
          properties: toJson(input.properties ?? {}),
          details,
          created: now,
          modified: now,
        },
      );
    });
    return { id };
  }

  async describe(caller: Caller, id: string, cls: string, options: RouteParsedInput<'file-xxxx/describe'>): Promise<Record<string, unknown>> {
    const { row } = await this.resolve(caller, id, options.project, cls);
    return this.describeRow(row, options);
  }

  async describeRow(row: ObjectInContainer, options: RouteParsedInput<'file-xxxx/describe'> | boolean | undefined): Promise<Record<string, unknown>> {
    const want = objectFieldSelector(row.class, options);
    const parts =
      row.class === 'file' && (want('parts') || (want('size') && row.state !== 'closed')) ? await this.stores.objects.listParts(row.objectId) : undefined;
    return describeObject(want, row, { parts });
  }

  private async updateCopy(
    caller: Caller,
    id: string,
    cls: string,
    project: string | undefined,
    change: (row: ObjectInContainer) => Partial<CopyRow>,
    now: number,
  ) {
    const resolved = await this.resolve(caller, id, project, cls);
    this.requireMetadataAccess(resolved);
    await this.stores.objects.updateCopy(resolved.row.projectId, id, { ...change(resolved.row), modified: now });
    return { id };
  }

  changeTags(caller: Caller, id: string, cls: string, input: { project?: string; tags: string[] }, add: boolean, now: number) {
    return this.updateCopy(
      caller,
      id,
      cls,
      input.project,
      (row) => {
        const current = parseJson<string[]>(row.tags, []);
        return { tags: toJson(add ? dedupe([...current, ...input.tags]) : current.filter((tag) => !input.tags.includes(tag))) };
      },
      now,
    );
  }

  changeTypes(caller: Caller, id: string, cls: string, input: { project?: string; types: string[] }, add: boolean, now: number) {
    return this.updateCopy(
      caller,
      id,
      cls,
      input.project,
      (row) => {
        const current = parseJson<string[]>(row.types, []);
        return { types: toJson(add ? dedupe([...current, ...input.types]) : current.filter((type) => !input.types.includes(type))) };
      },
      now,
    );
  }

  rename(caller: Caller, id: string, cls: string, input: { project?: string; name: string }, now: number) {
    return this.updateCopy(caller, id, cls, input.project, () => ({ name: input.name }), now);
  }

  setProperties(caller: Caller, id: string, cls: string, input: { project?: string; properties: Record<string, string | null> }, now: number) {
    return this.updateCopy(
      caller,
      id,
      cls,
      input.project,
      (row) => ({ properties: toJson(applyProperties(parseJson(row.properties, {}), input.properties)) }),
      now,
    );
  }

  setVisibility(caller: Caller, id: string, cls: string, input: { project?: string; hidden: boolean }, now: number) {
    return this.updateCopy(caller, id, cls, input.project, () => ({ hidden: input.hidden ? 1 : 0 }), now);
  }

  setDetails(caller: Caller, id: string, cls: string, input: { project?: string; details?: unknown }, now: number) {
    return this.updateCopy(
      caller,
      id,
      cls,
      input.project,
      (row) => {
        if (row.state !== 'open') throw invalidState(`${id} is ${row.state}: details can only be set while it is open`);
        const text = toJson(input.details ?? {});
        if (Buffer.byteLength(text) > DETAILS_MAX_BYTES) throw invalidInput('"details" is larger than 2 MiB');
        return { details: text };
      },
      now,
    );
  }

  async getDetails(caller: Caller, id: string, cls: string, input: { project?: string }): Promise<unknown> {
    const { row } = await this.resolve(caller, id, input.project, cls);
    return parseJson<unknown>(row.details, {});
  }

  async listProjects(caller: Caller, id: string, cls: string): Promise<Record<string, PermissionLevel>> {
    if (!id.startsWith(`${cls}-`)) throw invalidInput(`Expected a ${cls} ID, got "${id}"`);
    const result: Record<string, PermissionLevel> = {};
    for (const projectId of await this.stores.objects.containersOf(id)) {
      const { level } = await this.access.access(caller, projectId);
      if (level !== 'NONE') result[projectId] = level;
    }
    if (!Object.keys(result).length) throw notFound(`The ${cls} ${id} could not be found`);
    return result;
  }

  /** Closes a record (immediate). Files close through the files service. */
  async closeRecord(caller: Caller, id: string, now: number): Promise<{ id: string }> {
    const resolved = await this.resolve(caller, id, undefined, 'record');
    this.requireMetadataAccess(resolved);
    if (resolved.row.state === 'closed') return { id };
    await this.stores.objects.updateObject(id, { state: 'closed', stateChanged: now });
    return { id };
  }

  async find(caller: Caller, input: RouteParsedInput<'system/findDataObjects'>) {
    const limit = input.limit ?? FIND_LIMIT_MAX;
    let projectIds: string[];
    let levels: Map<string, PermissionLevel>;
    if (input.scope) {
      const access = await this.access.require(caller, input.scope.project, 'VIEW');
      projectIds = [access.project.id];
      levels = new Map([[access.project.id, access.level]]);
      if (input.scope.folder && !(await this.stores.projects.folderExists(access.project.id, normalizeFolder(input.scope.folder)))) {
        throw notFound(`The folder "${input.scope.folder}" could not be found in ${access.project.id}`);
      }
    } else {
      const visible = await this.access.visibleProjects(caller);
      levels = new Map(visible.map((entry) => [entry.project.id, entry.level]));
      projectIds = [...levels.keys()];
    }
    if (input.level) projectIds = projectIds.filter((id) => atLeast(levels.get(id) ?? 'NONE', input.level as PermissionLevel));
    let classes = input.class ? [input.class] : undefined;
    if (input.archivalState !== undefined && input.archivalState !== 'any') {
      // Only files have an archival state, and every file here is live.
      if (!(ARCHIVAL_STATES as readonly string[]).includes(input.archivalState)) {
        throw invalidInput(`"archivalState" must be one of ${ARCHIVAL_STATES.join(', ')} or "any"`);
      }
      if (input.class && input.class !== 'file') throw invalidInput('"archivalState" can only be used to search files');
      if (input.archivalState !== 'live') return { results: [], next: null };
      classes = ['file'];
    }
    const matcher = input.name ? nameMatcher(input.name) : undefined;
    const starting = parseCursor(input.starting);
    const results: { project: string; id: string; describe?: unknown }[] = [];
    let after = starting;
    // One more than the page, so that a full page knows whether there is a next one without a second query.
    const batchSize = Math.min(FIND_LIMIT_MAX + 1, Math.max(limit + 1, 100));
    // Only describe and the tag, type, property and link tests need whole rows; the rest is answered
    // from the keys and names (an index alone for a name search).
    const wholeRows = Boolean(input.describe || input.tags || input.type || input.properties || input.link);
    for (;;) {
      const query: ObjectQuery = {
        projectIds,
        classes,
        state: input.state,
        visibility: input.visibility ?? 'visible',
        nameExact: matcher?.exact,
        namePrefix: matcher?.prefix,
        nameGlob: matcher?.glob,
        ids: input.id,
        folder: input.scope?.folder ? normalizeFolder(input.scope.folder) : undefined,
        recurse: input.scope?.recurse ?? true,
        created: input.created,
        modified: input.modified,
        after,
        limit: batchSize,
      };
      const batch: readonly FoundRow[] = wholeRows ? await this.stores.objects.find(query) : await this.stores.objects.findNames(query);
      for (const row of batch) {
        after = { projectId: row.projectId, objectId: row.objectId };
        if (matcher && !matcher.test(row.name)) continue;
        // Whole rows were read exactly when these tests (or describe) need them.
        if ('tags' in row) {
          if (input.tags && !matchesTags(parseJson<string[]>(row.tags, []), input.tags)) continue;
          if (input.type && !matchesTags(parseJson<string[]>(row.types, []), input.type)) continue;
          if (input.properties && !matchesProperties(parseJson(row.properties, {}), input.properties)) continue;
          if (input.link && !linksIn(parseJson(row.details, {})).has(input.link)) continue;
        }
        if (results.length === limit) return { results, next: { project: results[results.length - 1]?.project, id: results[results.length - 1]?.id } };
        results.push({
          project: row.projectId,
          id: row.objectId,
          ...(input.describe && 'tags' in row ? { describe: await this.describeRow(row, input.describe) } : {}),
        });
      }
      if (batch.length < batchSize) return { results, next: null };
    }
  }

  async describeMany(caller: Caller, input: RouteParsedInput<'system/describeDataObjects'>) {
    const results: unknown[] = [];
    for (const entry of input.objects) {
      const { id, project, describe } = typeof entry === 'string' ? { id: entry, project: undefined, describe: undefined } : entry;
      const cls = id.split('-')[0] ?? '';
      const options = describe ?? input.classDescribeOptions?.[cls] ?? input.classDescribeOptions?.['*'] ?? true;
      try {
        const { row } = await this.resolve(caller, id, project ?? (typeof options === 'object' ? options.project : undefined), cls);
        results.push({ describe: await this.describeRow(row, options) });
      } catch (error) {
        // An object the caller cannot describe is `{}`; a failure of the server is not.
        if (!(error instanceof ApiError)) throw error;
        results.push({});
      }
    }
    return { results };
  }

  /** Every copy of an object the caller can see (only the one in `project` when given). */
  private async visibleCopies(caller: Caller, id: string, project: string | undefined): Promise<{ project: string; id: string }[]> {
    const cls = id.split('-')[0] ?? '';
    if (!(DATA_OBJECT_CLASSES as readonly string[]).includes(cls)) return [];
    const containers = project ? [project] : await this.stores.objects.containersOf(id);
    const found: { project: string; id: string }[] = [];
    for (const projectId of containers) {
      let level: PermissionLevel;
      try {
        level = (await this.access.access(caller, projectId)).level;
      } catch (error) {
        if (error instanceof ApiError) continue;
        throw error;
      }
      if (level === 'NONE') continue;
      if (await this.stores.objects.findInContainer(projectId, id)) found.push({ project: projectId, id });
    }
    return found;
  }

  async resolveMany(caller: Caller, input: RouteParsedInput<'system/resolveDataObjects'>) {
    const results: { project: string; id: string }[][] = [];
    for (const query of input.objects) {
      const project = query.project ?? input.project;
      if ('id' in query) {
        results.push(await this.visibleCopies(caller, query.id, project));
        continue;
      }
      if (!project) throw invalidInput('Name lookups need "project", in the query or at the top level');
      const folder = normalizeFolder(query.folder ?? input.folder ?? '/');
      const access = await this.access.access(caller, project);
      if (access.level === 'NONE' || !(await this.stores.projects.folderExists(project, folder))) {
        results.push([]);
        continue;
      }
      const found = await this.find(caller, { name: query.name, scope: { project, folder, recurse: false }, visibility: 'either', limit: 1000 });
      results.push(found.results.map(({ project: p, id }) => ({ project: p, id })));
    }
    return { results };
  }
}

function parseCursor(starting: unknown): { projectId: string; objectId: string } | undefined {
  if (starting === undefined || starting === null) return undefined;
  if (
    typeof starting === 'object' &&
    typeof (starting as { project?: unknown }).project === 'string' &&
    typeof (starting as { id?: unknown }).id === 'string'
  ) {
    return { projectId: (starting as { project: string }).project, objectId: (starting as { id: string }).id };
  }
  throw invalidInput('"starting" must be the "next" value of a previous findDataObjects answer');
}
