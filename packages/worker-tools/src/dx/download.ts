import fs from 'node:fs';
import { io, localPath } from '../io.js';
import path from 'node:path';
import { allOrFirstError, downloadFile, Limiter, silentProgress } from '@panx/client/transfer';
import { parseArgs } from '../args.js';
import { ToolError, UsageError } from '../errors.js';
import { baseName, collectPages, type ObjectInfo, resolvePath, toObjectInfo } from '../paths.js';
import { catFile } from './cat.js';
import { dxContext, helpRequested } from './context.js';

const USAGE = `usage: dx download [-h] [-o OUTPUT] [-f] [-r] [-a] [--no-progress] path [path ...]

Downloads files (by path, glob or ID), and folders with -r. One file is saved as -o OUTPUT (a file
name, a folder to save into, or "-" for stdout), by default under its name in the current folder.
  -f, --overwrite   replace existing local files
  -r, --recursive   download folders with their contents
  -a, --all         download every file a name or glob matches
`;

async function filesUnder(client: ReturnType<typeof dxContext>['client'], project: string, folder: string): Promise<ObjectInfo[]> {
  const hits = (await collectPages(
    (starting) =>
      client.post('system', 'findDataObjects', {
        class: 'file',
        scope: { project, folder, recurse: true },
        visibility: 'either',
        describe: { fields: { id: true, name: true, folder: true, project: true, size: true, state: true } },
        limit: 1000,
        ...(starting ? { starting } : {}),
      }) as Promise<{ results: { id: string; project: string; describe?: unknown }[]; next?: unknown }>,
  )) as { id: string; project: string; describe?: unknown }[];
  return hits.map((hit) => toObjectInfo(hit.describe, hit));
}

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const args = parseArgs(argv, [
    { names: ['-o', '--output'], key: 'output', kind: 'value' },
    { names: ['-f', '--overwrite'], key: 'overwrite', kind: 'flag' },
    { names: ['-r', '--recursive'], key: 'recursive', kind: 'flag' },
    { names: ['-a', '--all'], key: 'all', kind: 'flag' },
    { names: ['--no-progress'], key: 'noProgress', kind: 'flag' },
  ]);
  if (!args.positionals.length) throw new UsageError('usage: dx download [-o OUTPUT] [-f] [-r] path [path ...]');
  const ctx = dxContext('download');
  const output = args.value('output');
  if (output === '-') {
    for (const spec of args.positionals) await catFile(ctx, spec);
    return 0;
  }
  const single: ObjectInfo[] = [];
  const trees: { root: string; files: ObjectInfo[] }[] = [];
  for (const spec of args.positionals) {
    const resolution = await resolvePath(ctx, spec, { glob: true });
    if (resolution.objects.length) {
      const glob = /[*?]/.test(resolution.name);
      if (resolution.objects.length > 1 && !args.flag('all') && !glob) {
        throw new ToolError(
          `"${spec}" names ${resolution.objects.length} files (${resolution.objects.map((object) => object.id).join(', ')}): use an ID, or -a for all`,
        );
      }
      for (const object of resolution.objects) {
        if (object.class !== 'file') throw new ToolError(`${object.id} is a ${object.class}: only files can be downloaded`);
        single.push(object);
      }
    } else if (resolution.isFolder) {
      if (!args.flag('recursive')) throw new ToolError(`"${spec}" is a folder: use -r to download it with its contents`);
      trees.push({ root: resolution.path, files: await filesUnder(ctx.client, resolution.container, resolution.path) });
    } else throw new ToolError(`ResourceNotFound: no file or folder "${spec}" in ${resolution.container}:${resolution.parent}`);
  }

  const jobs: { object: ObjectInfo; out: string }[] = [];
  const isDir = (p: string) => fs.existsSync(localPath(p)) && fs.statSync(localPath(p)).isDirectory();
  if (single.length + trees.length > 1 || trees.length) {
    const dir = output ?? '.';
    if (fs.existsSync(localPath(dir)) && !isDir(dir)) throw new ToolError(`${dir} is not a folder: downloading several files needs one`);
    for (const object of single) jobs.push({ object, out: path.join(dir, object.name) });
    for (const tree of trees) {
      const base = path.join(dir, baseName(tree.root));
      for (const object of tree.files)
        jobs.push({ object, out: path.join(base, ...path.posix.relative(tree.root, object.folder).split('/').filter(Boolean), object.name) });
    }
  } else if (single[0]) {
    const object = single[0];
    jobs.push({ object, out: output && isDir(output) ? path.join(output, object.name) : (output ?? object.name) });
  }
  const seen = new Set<string>();
  for (const job of jobs) {
    if (seen.has(localPath(job.out))) throw new ToolError(`two files would be saved as ${job.out}: download them one at a time with -o`);
    seen.add(localPath(job.out));
  }
  const limiter = new Limiter(4);
  await allOrFirstError(
    jobs.map((job) =>
      limiter.run(async () => {
        fs.mkdirSync(path.dirname(localPath(job.out)), { recursive: true });
        await downloadFile(ctx.client, { id: job.object.id, project: job.object.project || undefined }, localPath(job.out), {
          overwrite: args.flag('overwrite'),
          progress: silentProgress,
          signal: io().signal,
        });
      }),
    ),
  );
  return 0;
}
