import fs from 'node:fs';
import { io, localPath } from '../io.js';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { allOrFirstError, Limiter, MiB, silentProgress, type UploadShared, type UploadTarget, uploadFile } from '@panx/client/transfer';
import { parseArgs } from '../args.js';
import { ToolError, UsageError } from '../errors.js';
import { describeText } from '../format.js';
import { joinPath, resolvePath } from '../paths.js';
import { dxContext, helpRequested, printJson } from './context.js';

const USAGE = `usage: dx upload [-h] [--path PATH] [-p] [-r] [--brief] [--json] [--wait] [--visibility {hidden,visible}]
                 [--property KEY=VALUE] [--type TYPE] [--tag TAG] [--details JSON] [--no-progress] filename [filename ...]

Uploads local files ("-" for stdin), and folders with -r. Inside a job they go to the workspace
(DX_WORKSPACE_ID), in the folder DX_CLI_WD (default "/").
  --path, --destination PATH   [project:][/folder/][name]: a folder (ending in "/" or existing) or,
                               for one file, the new name
  -p, --parents                create the destination folder when missing
  --brief                      print only the new file IDs
  --wait                       wait until the files are closed
`;

interface Job {
  local: string;
  target: UploadTarget;
}

function walk(local: string, project: string, folder: string, jobs: Job[]): void {
  for (const entry of fs.readdirSync(local, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = path.join(local, entry.name);
    if (entry.isDirectory()) walk(child, project, joinPath(folder, entry.name), jobs);
    else if (entry.isFile()) jobs.push({ local: child, target: { project, folder, name: entry.name, parents: true } });
  }
}

/** Stdin copied to a temporary file (the multipart upload needs sizes and offsets). */
async function stdinToFile(): Promise<{ file: string; cleanup: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dx-upload-'));
  const file = path.join(dir, 'stdin');
  await pipeline(io().stdin(), fs.createWriteStream(file));
  return { file, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const args = parseArgs(argv, [
    { names: ['--path', '--destination'], key: 'path', kind: 'value' },
    { names: ['-p', '--parents'], key: 'parents', kind: 'flag' },
    { names: ['-r', '--recursive'], key: 'recursive', kind: 'flag' },
    { names: ['--brief'], key: 'brief', kind: 'flag' },
    { names: ['--json'], key: 'json', kind: 'flag' },
    { names: ['--wait'], key: 'wait', kind: 'flag' },
    { names: ['--visibility'], key: 'visibility', kind: 'value' },
    { names: ['--property'], key: 'property', kind: 'list' },
    { names: ['--type'], key: 'type', kind: 'list' },
    { names: ['--tag'], key: 'tag', kind: 'list' },
    { names: ['--details'], key: 'details', kind: 'value' },
    { names: ['--no-progress'], key: 'noProgress', kind: 'flag' },
  ]);
  const locals = args.positionals;
  if (!locals.length) throw new UsageError('usage: dx upload [--path PATH] [-p] [--brief] filename [filename ...]');
  const properties: Record<string, string> = {};
  for (const pair of args.list('property')) {
    const cut = pair.indexOf('=');
    if (cut <= 0) throw new UsageError(`--property "${pair}" is not KEY=VALUE`);
    properties[pair.slice(0, cut)] = pair.slice(cut + 1);
  }
  let details: unknown;
  const detailsText = args.value('details');
  if (detailsText !== undefined) {
    try {
      details = JSON.parse(detailsText);
    } catch {
      throw new UsageError('--details must be JSON');
    }
  }
  const visibility = args.value('visibility');
  if (visibility !== undefined && visibility !== 'hidden' && visibility !== 'visible') throw new UsageError('--visibility is hidden or visible');

  const ctx = dxContext('upload');
  const spec = args.value('path') ?? '.';
  const resolution = await resolvePath(ctx, spec);
  const oneFile =
    locals.length === 1 && (locals[0] === '-' || (fs.existsSync(localPath(locals[0] as string)) && fs.statSync(localPath(locals[0] as string)).isFile()));
  let destination: { folder: string; name?: string; parents: boolean };
  if (resolution.isFolder || spec.endsWith('/')) destination = { folder: resolution.path, parents: args.flag('parents') };
  else if (oneFile) destination = { folder: resolution.parent, name: resolution.name, parents: args.flag('parents') };
  else destination = { folder: resolution.path, parents: args.flag('parents') };

  const jobs: Job[] = [];
  const cleanups: (() => void)[] = [];
  for (const local of locals) {
    if (local === '-') {
      const { file, cleanup } = await stdinToFile();
      cleanups.push(cleanup);
      jobs.push({
        local: file,
        target: { project: resolution.container, folder: destination.folder, name: destination.name ?? '-', parents: destination.parents },
      });
      continue;
    }
    let stat: fs.Stats;
    try {
      stat = fs.statSync(localPath(local));
    } catch {
      throw new ToolError(`${local}: no such file or folder`);
    }
    if (stat.isDirectory()) {
      if (!args.flag('recursive')) throw new ToolError(`${local} is a folder: use -r to upload it with its contents`);
      walk(localPath(local), resolution.container, joinPath(destination.folder, path.basename(localPath(local))), jobs);
    } else {
      jobs.push({
        local: localPath(local),
        target: { project: resolution.container, folder: destination.folder, name: destination.name ?? path.basename(local), parents: destination.parents },
      });
    }
  }
  try {
    const shared: UploadShared = { parts: new Limiter(4), progress: silentProgress, parameters: new Map() };
    const files = new Limiter(4);
    const fields = {
      ...(visibility ? { hidden: visibility === 'hidden' } : {}),
      ...(args.has('type') ? { types: args.list('type') } : {}),
      ...(details === undefined ? {} : { details }),
    };
    const results = await allOrFirstError(
      jobs.map((job) =>
        files.run(() =>
          uploadFile(
            ctx.client,
            job.local,
            job.target,
            { partSizeBytes: 16 * MiB, wait: args.flag('wait'), tags: args.list('tag'), properties, fields },
            shared,
          ),
        ),
      ),
    );
    if (args.flag('brief')) {
      for (const { id } of results) io().stdout.write(`${id}\n`);
      return 0;
    }
    const described = await Promise.all(
      results.map(
        ({ id }, i) =>
          ctx.client.post(id, 'describe', { project: jobs[i]?.target.project, properties: true, details: true }) as Promise<Record<string, unknown>>,
      ),
    );
    if (args.flag('json')) printJson(described.length === 1 ? described[0] : described);
    else io().stdout.write(described.map((desc) => describeText(desc)).join('\n'));
    return 0;
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}
