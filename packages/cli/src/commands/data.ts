import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { formatBytes, formatTime, note, print, printJson, printTable, withJson } from '../output.js';
import { baseName, displayPath, joinPath, locate, type ObjectInfo, parentOf, type Resolution, requireObjects, resolvePath, toObjectInfo } from '../paths.js';
import { type Context, connect } from '../session.js';

const LS_FIELDS = { id: true, class: true, name: true, folder: true, project: true, state: true, size: true, modified: true, hidden: true };

/** One line of `ls -l`, `find data` and the like. */
export function longRow(object: ObjectInfo, label = object.name): string[] {
  return [object.state ?? '', formatTime(object.modified), object.class === 'file' ? formatBytes(object.size) : '', `${label} (${object.id})`];
}
export const LONG_HEADERS = ['STATE', 'MODIFIED', 'SIZE', 'NAME (ID)'];

async function listFolder(ctx: Context, project: string, folder: string, includeHidden: boolean): Promise<{ folders: string[]; objects: ObjectInfo[] }> {
  const folders = new Set<string>();
  const objects: ObjectInfo[] = [];
  let starting: unknown;
  for (;;) {
    const page = await ctx.client.call('project-xxxx/listFolder', project, {
      folder,
      describe: { fields: LS_FIELDS },
      includeHidden,
      ...(starting ? { starting } : {}),
    });
    for (const entry of page.folders) folders.add(typeof entry === 'string' ? entry : entry[0]);
    objects.push(...page.objects.map((object) => toObjectInfo(object.describe, { id: object.id, project })));
    if (page.next === undefined || page.next === null || !page.objects.length) break;
    starting = page.next;
  }
  return { folders: [...folders].sort(), objects };
}

/** Removes a folder in as many `partial` calls as the server wants (it answers `completed: false` to pause). */
export async function removeFolder(ctx: Context, project: string, folder: string, recurse: boolean): Promise<void> {
  for (;;) {
    const result = await ctx.client.call('project-xxxx/removeFolder', project, { folder, recurse, force: true, partial: true });
    if (result.completed !== false) return;
  }
}

function notFound(resolution: Resolution, spec: string): CliError {
  return new CliError(`ResourceNotFound: no folder or data object "${spec}" (${displayPath(resolution)})`);
}

async function resolveAll(ctx: Context, specs: string[]): Promise<{ spec: string; resolution: Resolution }[]> {
  const results: { spec: string; resolution: Resolution }[] = [];
  for (const spec of specs) results.push({ spec, resolution: await resolvePath(ctx, spec, { glob: true }) });
  for (const { spec, resolution } of results) if (!resolution.objects.length && !resolution.isFolder) throw notFound(resolution, spec);
  return results;
}

export function registerDataCommands(program: Command): void {
  withJson(
    program
      .command('ls [path]')
      .description('list a folder (default: the current one), or the data objects a name or glob matches')
      .option('-l, --long', 'show state, modification time, size and ID')
      .option('-a, --all', 'include hidden objects')
      .action(async (spec: string | undefined, options: { long?: boolean; all?: boolean; json?: boolean }) => {
        const ctx = connect();
        const resolution = await resolvePath(ctx, spec ?? '.', { glob: true });
        let folders: string[] = [];
        let objects: ObjectInfo[];
        if (resolution.isFolder) ({ folders, objects } = await listFolder(ctx, resolution.project, resolution.path, Boolean(options.all)));
        else if (resolution.objects.length) objects = resolution.objects;
        else throw notFound(resolution, spec ?? '.');
        objects = [...objects].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
        if (options.json) return printJson({ project: resolution.project, folder: resolution.isFolder ? resolution.path : undefined, folders, objects });
        const names = objects.map((object) => object.name);
        const label = (object: ObjectInfo) => (names.indexOf(object.name) !== names.lastIndexOf(object.name) ? `${object.name} : ${object.id}` : object.name);
        if (options.long) {
          const rows = [...folders.map((folder) => ['', '', '', `${baseName(folder)}/`]), ...objects.map((object) => longRow(object))];
          if (rows.length) printTable(LONG_HEADERS, rows);
          return;
        }
        for (const folder of folders) print(`${baseName(folder)}/`);
        for (const object of objects) print(label(object));
      }),
  );

  program
    .command('mkdir <folders...>')
    .description('create folders')
    .option('-p, --parents', 'create missing parent folders too (and accept existing folders)')
    .action(async (specs: string[], options: { parents?: boolean }) => {
      const ctx = connect();
      for (const spec of specs) {
        const location = await locate(ctx, spec);
        if (location.path === '/') {
          if (options.parents) continue;
          throw new CliError('the root folder always exists');
        }
        await ctx.client.call('project-xxxx/newFolder', location.project, { folder: location.path, parents: Boolean(options.parents) });
      }
    });

  program
    .command('rmdir <folders...>')
    .description('remove empty folders')
    .action(async (specs: string[]) => {
      const ctx = connect();
      for (const spec of specs) {
        const location = await locate(ctx, spec);
        if (location.path === '/') throw new CliError('the root folder cannot be removed');
        await removeFolder(ctx, location.project, location.path, false);
      }
    });

  program
    .command('rm <paths...>')
    .description('remove data objects (by name, glob or ID) and, with -r, folders and everything in them')
    .option('-r, --recursive', 'remove folders and their contents')
    .option('-a, --all', 'remove every object a name matches (names need not be unique)')
    .action(async (specs: string[], options: { recursive?: boolean; all?: boolean }) => {
      const ctx = connect();
      const targets = await resolveAll(ctx, specs);
      const objectsByProject = new Map<string, Set<string>>();
      const folders: { project: string; path: string }[] = [];
      for (const { spec, resolution } of targets) {
        if (resolution.objects.length) {
          const glob = /[*?]/.test(resolution.name);
          for (const object of requireObjects(resolution, spec, { allowMany: options.all || glob })) {
            const ids = objectsByProject.get(object.project) ?? new Set<string>();
            ids.add(object.id);
            objectsByProject.set(object.project, ids);
          }
        }
        if (resolution.isFolder) {
          if (!options.recursive) {
            if (resolution.objects.length) continue;
            throw new CliError(`"${spec}" is a folder: use px rm -r to remove it with its contents, or px rmdir when it is empty`);
          }
          if (resolution.path === '/') throw new CliError('the root folder cannot be removed');
          folders.push({ project: resolution.project, path: resolution.path });
        }
      }
      for (const [project, ids] of objectsByProject) await ctx.client.call('project-xxxx/removeObjects', project, { objects: [...ids], force: true });
      for (const folder of folders) await removeFolder(ctx, folder.project, folder.path, true);
    });

  program
    .command('mv <paths...>')
    .usage('<source...> <destination>')
    .description('move (or rename) data objects and folders within a project; the destination is a folder, or a new name for one source')
    .action(async (paths: string[]) => {
      if (paths.length < 2) throw new UsageError('give at least one source and a destination');
      const ctx = connect();
      const destination = await resolvePath(ctx, paths[paths.length - 1] as string);
      const sources = await resolveAll(ctx, paths.slice(0, -1));
      for (const { spec, resolution } of sources) {
        if (resolution.project !== destination.project) {
          throw new CliError(`"${spec}" is in another project: px mv moves within a project (use px cp to copy between projects)`);
        }
      }
      if (destination.isFolder) {
        const objects = sources.flatMap(({ resolution }) => resolution.objects.map((object) => object.id));
        const folders = sources.filter(({ resolution }) => resolution.isFolder && !resolution.objects.length).map(({ resolution }) => resolution.path);
        if (folders.includes('/')) throw new CliError('the root folder cannot be moved');
        await ctx.client.call('project-xxxx/move', destination.project, { objects, folders, destination: destination.path });
        return;
      }
      if (sources.length > 1) throw new CliError(`${displayPath(destination)} is not a folder: moving several sources needs an existing folder`);
      if (!destination.parentExists) throw new CliError(`ResourceNotFound: no folder ${displayPath({ ...destination, path: destination.parent })}`);
      const { spec, resolution: source } = sources[0] as { spec: string; resolution: Resolution };
      if (source.objects.length) {
        const [object] = requireObjects(source, spec) as [ObjectInfo];
        if (object.folder !== destination.parent) {
          await ctx.client.call('project-xxxx/move', destination.project, { objects: [object.id], destination: destination.parent });
        }
        if (object.name !== destination.name) await ctx.client.post(object.id, 'rename', { project: destination.project, name: destination.name });
        return;
      }
      if (source.path === '/') throw new CliError('the root folder cannot be moved');
      let current = source.path;
      if (parentOf(source.path) !== destination.parent) {
        await ctx.client.call('project-xxxx/move', destination.project, { folders: [source.path], destination: destination.parent });
        current = joinPath(destination.parent, baseName(source.path));
      }
      if (baseName(current) !== destination.name) {
        await ctx.client.call('project-xxxx/renameFolder', destination.project, { folder: current, name: destination.name });
      }
    });

  program
    .command('cp <paths...>')
    .usage('<source...> <destination>')
    .description('copy data objects and folders (recursively) to another project, e.g. px cp /reads other:/inputs; objects keep their IDs')
    .action(async (paths: string[]) => {
      if (paths.length < 2) throw new UsageError('give at least one source and a destination');
      const ctx = connect();
      const destination = await resolvePath(ctx, paths[paths.length - 1] as string);
      const sources = await resolveAll(ctx, paths.slice(0, -1));
      for (const { spec, resolution } of sources) {
        if (resolution.project === destination.project) {
          throw new CliError(`"${spec}" is already in ${destination.project}: copies keep their IDs, so px cp copies between projects (use px mv within one)`);
        }
        if (resolution.isFolder && resolution.path === '/' && !resolution.objects.length) {
          throw new CliError('copying a whole project is not supported: copy its folders and objects');
        }
      }
      const reportExisting = (exists: string[]) => {
        for (const id of exists) note(`${id} is already in ${displayPath(destination)}; not copied again`);
      };
      if (destination.isFolder) {
        const byProject = new Map<string, { objects: string[]; folders: string[] }>();
        for (const { resolution } of sources) {
          const entry = byProject.get(resolution.project) ?? { objects: [], folders: [] };
          entry.objects.push(...resolution.objects.map((object) => object.id));
          if (resolution.isFolder && !resolution.objects.length) entry.folders.push(resolution.path);
          byProject.set(resolution.project, entry);
        }
        for (const [project, entry] of byProject) {
          const result = await ctx.client.call('project-xxxx/clone', project, { ...entry, project: destination.project, destination: destination.path });
          reportExisting(result.exists);
        }
        return;
      }
      if (sources.length > 1) throw new CliError(`${displayPath(destination)} is not a folder: copying several sources needs an existing folder`);
      if (!destination.parentExists) throw new CliError(`ResourceNotFound: no folder ${displayPath({ ...destination, path: destination.parent })}`);
      const { spec, resolution: source } = sources[0] as { spec: string; resolution: Resolution };
      if (source.objects.length) {
        const [object] = requireObjects(source, spec) as [ObjectInfo];
        const result = await ctx.client.call('project-xxxx/clone', source.project, {
          objects: [object.id],
          project: destination.project,
          destination: destination.parent,
        });
        reportExisting(result.exists);
        if (!result.exists.includes(object.id) && object.name !== destination.name) {
          await ctx.client.post(object.id, 'rename', { project: destination.project, name: destination.name });
        }
        return;
      }
      await ctx.client.call('project-xxxx/clone', source.project, { folders: [source.path], project: destination.project, destination: destination.parent });
      const copied = joinPath(destination.parent, baseName(source.path));
      if (baseName(copied) !== destination.name) {
        await ctx.client.call('project-xxxx/renameFolder', destination.project, { folder: copied, name: destination.name });
      }
    });
}
