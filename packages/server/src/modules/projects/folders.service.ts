import type { RouteParsedInput } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { invalidInput, invalidState, notFound } from '../../errors.js';
import { isSameOrUnder, joinFolder, lastSegment, normalizeFolder, parentOf, pathWithAncestors } from '../../lib/folders.js';
import type { Caller } from '../auth/caller.js';
import { describeObject, objectFieldSelector } from '../data-objects/object-describe.js';
import type { AccessService } from './access.service.js';
import { assertUserCopyAllowed } from './copy-rules.js';
import { projectSettings } from './project-describe.js';

/** Objects removed per call when `partial` lets removeFolder stop early. */
const PARTIAL_REMOVE_BATCH = 1000;

/** Folder and membership operations on a container: listFolder, newFolder, removeFolder, renameFolder, move, removeObjects, clone. */
export class FoldersService {
  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly hooks: { onObjectsDeleted: () => void },
  ) {}

  private async requireFolder(projectId: string, folder: string): Promise<void> {
    if (!(await this.stores.projects.folderExists(projectId, folder))) {
      throw notFound(`The folder "${folder}" could not be found in ${projectId}`);
    }
  }

  async listFolder(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/listFolder'>) {
    await this.access.require(caller, id, 'VIEW');
    const folder = normalizeFolder(input.folder ?? '/');
    await this.requireFolder(id, folder);
    const only = input.only ?? 'all';
    let folders: (string | [string, boolean])[] = [];
    if (only !== 'objects') {
      const all = await this.stores.projects.listFolders(id);
      const children = all.filter((path) => path !== '/' && parentOf(path) === folder);
      folders = input.hasSubfolderFlags
        ? children.map((child) => [child, all.some((path) => parentOf(path) === child && path !== child)] as [string, boolean])
        : children;
    }
    const objects: { id: string; describe?: unknown }[] = [];
    let next: unknown = null;
    if (only !== 'folders') {
      const limit = input.limit ?? 10_000;
      const afterId = typeof input.starting === 'string' ? input.starting : undefined;
      const paging = { includeHidden: input.includeHidden ?? false, afterId, limit: limit + 1 };
      if (!input.describe) {
        // Without describe a listing is ids only: read them from the folder index, not the rows.
        const ids = await this.stores.objects.listFolderIds(id, folder, paging);
        const page = ids.slice(0, limit);
        if (ids.length > limit) next = page[page.length - 1] ?? null;
        return { objects: page.map((objectId) => ({ id: objectId })), folders, ...(input.limit ? { next } : {}) };
      }
      const rows = await this.stores.objects.listFolder(id, folder, paging);
      const page = rows.slice(0, limit);
      if (rows.length > limit) next = page[page.length - 1]?.objectId ?? null;
      for (const row of page) {
        const want = objectFieldSelector(row.class, input.describe);
        const parts =
          row.class === 'file' && (want('parts') || (want('size') && row.state !== 'closed')) ? await this.stores.objects.listParts(row.objectId) : undefined;
        objects.push({ id: row.objectId, describe: describeObject(want, row, { parts }) });
      }
    }
    return { objects, folders, ...(input.limit ? { next } : {}) };
  }

  async newFolder(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/newFolder'>) {
    await this.access.require(caller, id, 'UPLOAD', 'Creating folders');
    const folder = normalizeFolder(input.folder);
    if (folder === '/') return { id };
    const parent = parentOf(folder);
    if (!input.parents && !(await this.stores.projects.folderExists(id, parent))) {
      throw notFound(`The parent folder "${parent}" does not exist in ${id}; pass "parents": true to create it`);
    }
    if (!input.parents && (await this.stores.projects.folderExists(id, folder))) {
      throw invalidInput(`The folder "${folder}" already exists in ${id}`);
    }
    await this.stores.projects.insertFolders(id, pathWithAncestors(folder));
    return { id };
  }

  async removeFolder(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/removeFolder'>) {
    const { project } = await this.access.require(caller, id, 'CONTRIBUTE', 'Removing folders');
    if (projectSettings(project).protected) {
      // In a protected project only ADMINISTER deletes, folders as well as objects.
      await this.access.require(caller, id, 'ADMINISTER', 'Deleting data in a protected project');
    }
    const folder = normalizeFolder(input.folder);
    if (folder === '/') throw invalidInput('The root folder cannot be removed');
    await this.requireFolder(id, folder);
    const subfolders = await this.stores.projects.foldersUnder(id, folder);
    const objectIds = await this.stores.objects.idsUnderFolder(id, folder, input.partial ? PARTIAL_REMOVE_BATCH + 1 : Number.MAX_SAFE_INTEGER);
    if (!input.recurse && (subfolders.length > 1 || objectIds.length > 0)) {
      throw invalidState(`The folder "${folder}" is not empty; pass "recurse": true to remove its contents too`);
    }
    const batch = input.partial ? objectIds.slice(0, PARTIAL_REMOVE_BATCH) : objectIds;
    const completed = batch.length === objectIds.length;
    await this.stores.transaction(async (tx) => {
      const orphans = await tx.objects.removeCopies(id, batch);
      await tx.objects.deleteObjects(orphans, Date.now());
      if (completed) await tx.projects.deleteFolders(id, subfolders);
    });
    if (batch.length) this.hooks.onObjectsDeleted();
    return { id, completed };
  }

  async renameFolder(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/renameFolder'>) {
    await this.access.require(caller, id, 'CONTRIBUTE', 'Renaming folders');
    const folder = normalizeFolder(input.folder);
    if (folder === '/') throw invalidInput('The root folder cannot be renamed');
    await this.requireFolder(id, folder);
    const target = joinFolder(parentOf(folder), input.name);
    if (target === folder) return { id };
    if (await this.stores.projects.folderExists(id, target)) throw invalidInput(`A folder "${target}" already exists in ${id}`);
    await this.moveFolderTree(id, folder, target);
    return { id };
  }

  private async moveFolderTree(id: string, from: string, to: string): Promise<void> {
    await this.stores.transaction(async (tx) => {
      const paths = await tx.projects.foldersUnder(id, from);
      await tx.projects.insertFolders(id, [...pathWithAncestors(parentOf(to)), ...paths.map((path) => to + path.slice(from.length))]);
      await tx.objects.rebaseFolders(id, from, to);
      await tx.projects.deleteFolders(id, paths);
    });
  }

  async move(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/move'>, now: number) {
    await this.access.require(caller, id, 'CONTRIBUTE', 'Moving data');
    const destination = normalizeFolder(input.destination);
    if (input.parents) await this.stores.projects.insertFolders(id, pathWithAncestors(destination));
    else await this.requireFolder(id, destination);
    const objectIds = input.objects ?? [];
    const found = await this.stores.objects.findManyInContainer(id, objectIds);
    const missing = objectIds.filter((objectId) => !found.some((row) => row.objectId === objectId));
    if (missing.length) throw notFound(`These objects could not be found in ${id}: ${missing.slice(0, 5).join(', ')}`);
    const folders = (input.folders ?? []).map(normalizeFolder);
    for (const folder of folders) {
      if (folder === '/') throw invalidInput('The root folder cannot be moved');
      await this.requireFolder(id, folder);
      if (isSameOrUnder(destination, folder)) throw invalidInput(`Cannot move "${folder}" into itself ("${destination}")`);
      const target = joinFolder(destination, lastSegment(folder));
      if (target !== folder && (await this.stores.projects.folderExists(id, target))) {
        throw invalidInput(`A folder "${target}" already exists in ${id}`);
      }
    }
    await this.stores.objects.moveToFolder(id, objectIds, destination, now);
    for (const folder of folders) {
      const target = joinFolder(destination, lastSegment(folder));
      if (target !== folder) await this.moveFolderTree(id, folder, target);
    }
    return { id };
  }

  async removeObjects(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/removeObjects'>) {
    const { project } = await this.access.require(caller, id, 'CONTRIBUTE', 'Deleting data');
    if (projectSettings(project).protected) await this.access.require(caller, id, 'ADMINISTER', 'Deleting data in a protected project');
    const ids = [...new Set(input.objects)];
    const found = await this.stores.objects.findManyInContainer(id, ids);
    const missing = ids.filter((objectId) => !found.some((row) => row.objectId === objectId));
    if (missing.length && !input.force) throw notFound(`These objects could not be found in ${id}: ${missing.slice(0, 5).join(', ')}`);
    await this.stores.transaction(async (tx) => {
      const orphans = await tx.objects.removeCopies(
        id,
        found.map((row) => row.objectId),
      );
      await tx.objects.deleteObjects(orphans, Date.now());
    });
    this.hooks.onObjectsDeleted();
    return { id };
  }

  async clone(caller: Caller, id: string, input: RouteParsedInput<'project-xxxx/clone'>, now: number) {
    const source = await this.access.require(caller, id, 'VIEW', 'Copying data');
    const target = await this.access.require(caller, input.project, 'UPLOAD', 'Copying data into a project');
    if (id === input.project) throw invalidInput('The destination must be a different project or container; use move within one');
    assertUserCopyAllowed(source.project, target.project);
    const destination = normalizeFolder(input.destination ?? '/');
    if (input.parents) await this.stores.projects.insertFolders(input.project, pathWithAncestors(destination));
    else if (!(await this.stores.projects.folderExists(input.project, destination))) {
      throw notFound(`The folder "${destination}" could not be found in ${input.project}`);
    }

    // Objects named directly land in the destination folder; folders keep their subtree below it.
    const plan = new Map<string, string>();
    const objectIds = input.objects ?? [];
    const named = await this.stores.objects.findManyInContainer(id, objectIds);
    const missing = objectIds.filter((objectId) => !named.some((row) => row.objectId === objectId));
    if (missing.length) throw notFound(`These objects could not be found in ${id}: ${missing.slice(0, 5).join(', ')}`);
    for (const row of named) plan.set(row.objectId, destination);
    const newFolders: string[] = [];
    for (const raw of input.folders ?? []) {
      const folder = normalizeFolder(raw);
      await this.requireFolder(id, folder);
      const base = folder === '/' ? destination : joinFolder(destination, lastSegment(folder));
      for (const path of await this.stores.projects.foldersUnder(id, folder)) newFolders.push(rebaseFolder(path, folder, base));
      const ids = await this.stores.objects.idsUnderFolder(id, folder, Number.MAX_SAFE_INTEGER);
      for (const row of await this.stores.objects.findManyInContainer(id, ids)) {
        plan.set(row.objectId, rebaseFolder(row.folder, folder, base));
      }
    }
    const rows = await this.stores.objects.findManyInContainer(id, [...plan.keys()]);
    // An object named in the call and removed since it was read fails the clone rather than drop out
    // of it silently (one removed from a cloned folder meanwhile is simply no longer in that folder).
    const found = new Set(rows.map((row) => row.objectId));
    const vanished = objectIds.filter((objectId) => !found.has(objectId));
    if (vanished.length) throw notFound(`These objects were removed from ${id} while being cloned: ${vanished.slice(0, 5).join(', ')}`);
    const notClosed = rows.filter((row) => row.state !== 'closed');
    if (notClosed.length)
      throw invalidState(
        `Only closed objects can be copied; not closed: ${notClosed
          .slice(0, 5)
          .map((row) => row.objectId)
          .join(', ')}`,
      );
    const existing = new Set((await this.stores.objects.findManyInContainer(input.project, [...plan.keys()])).map((row) => row.objectId));
    const copies = rows
      .filter((row) => !existing.has(row.objectId))
      .map((row) => ({
        projectId: input.project,
        objectId: row.objectId,
        class: row.class,
        name: row.name,
        folder: plan.get(row.objectId) ?? destination,
        hidden: row.hidden,
        tags: row.tags,
        types: row.types,
        properties: row.properties,
        details: row.details,
        created: row.created,
        modified: now,
      }));
    await this.stores.transaction(async (tx) => {
      // The sources are checked again, held, in the transaction: a removal committed since the reads
      // above would otherwise leave copies of objects it deleted as orphans.
      const held = await tx.objects.holdCopies(
        id,
        copies.map((copy) => copy.objectId),
      );
      const gone = copies.filter((copy) => !held.has(copy.objectId)).map((copy) => copy.objectId);
      if (gone.length) throw notFound(`These objects were removed from ${id} while being cloned: ${gone.slice(0, 5).join(', ')}`);
      await tx.projects.insertFolders(input.project, [...new Set(newFolders.flatMap((folder) => pathWithAncestors(folder)))]);
      await tx.objects.insertCopies(copies);
    });
    return { id, project: input.project, exists: [...existing] };
  }
}

/** Where `path` (at or under `from`) lands when `from` is copied to `base`. */
export function rebaseFolder(path: string, from: string, base: string): string {
  if (path === from) return base;
  const relative = from === '/' ? path : path.slice(from.length);
  return base === '/' ? relative : base + relative;
}
