import { isApiError } from '@panx/client';
import { io } from '../io.js';
import { parseArgs } from '../args.js';
import { ToolError, UsageError } from '../errors.js';
import { LS_FIELDS, type LsDescribe, lsLine } from '../format.js';
import { baseName, resolvePath, toObjectInfo } from '../paths.js';
import { dxContext, helpRequested } from './context.js';

const USAGE = `usage: dx ls [-h] [-l] [--brief] [-a] [path]

Lists the folders (with a trailing "/") and data objects of a folder, or the objects a name or glob
names. Inside a job the default folder is the workspace's DX_CLI_WD (default "/").
  -l, --long   state, modification time, size, name and ID of each object
  --brief      the IDs of the objects only
  -a, --all    include hidden objects
`;

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const args = parseArgs(argv, [
    { names: ['-l', '--long'], key: 'long', kind: 'flag' },
    { names: ['--brief'], key: 'brief', kind: 'flag' },
    { names: ['-a', '--all'], key: 'all', kind: 'flag' },
    { names: ['--obj'], key: 'objects', kind: 'flag' },
    { names: ['--folders'], key: 'folders', kind: 'flag' },
  ]);
  if (args.positionals.length > 1) throw new UsageError('usage: dx ls [-l] [--brief] [path]');
  const spec = args.positionals[0] ?? '.';
  const ctx = dxContext('ls');
  const resolution = await resolvePath(ctx, spec, { glob: true, describe: { fields: LS_FIELDS } });
  const print = (objects: LsDescribe[]) => {
    for (const object of [...objects].sort(byName)) {
      if (args.flag('brief')) io().stdout.write(`${object.id}\n`);
      else if (args.flag('long')) io().stdout.write(`${lsLine(object)}\n`);
      else io().stdout.write(`${object.name}\n`);
    }
  };
  if (!resolution.isFolder) {
    if (!resolution.objects.length) throw new ToolError(`ResourceNotFound: could not find "${spec}" in ${resolution.container}:${resolution.parent}`);
    print(resolution.objects as LsDescribe[]);
    return 0;
  }
  let listing: { objects?: { id: string; describe?: unknown }[]; folders?: unknown[] };
  try {
    listing = (await ctx.client.post(resolution.container, 'listFolder', {
      folder: resolution.path,
      describe: { fields: LS_FIELDS },
      only: args.flag('objects') ? 'objects' : args.flag('folders') ? 'folders' : 'all',
      includeHidden: args.flag('all'),
    })) as typeof listing;
  } catch (error) {
    if (isApiError(error, 'ResourceNotFound')) throw new ToolError(`ResourceNotFound: the folder ${resolution.container}:${resolution.path} does not exist`);
    throw error;
  }
  if (!args.flag('brief')) {
    const folders = (listing.folders ?? []).map((entry) => String(Array.isArray(entry) ? entry[0] : entry)).sort();
    for (const folder of folders) io().stdout.write(`${baseName(folder)}/\n`);
  }
  print((listing.objects ?? []).map((entry) => toObjectInfo(entry.describe, { id: entry.id, project: resolution.container }) as LsDescribe));
  return 0;
}
