import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Command, Option } from 'commander';
import { CliError, describeFailure, UsageError } from '../errors.js';
import { note, print, printJson, withJson } from '../output.js';
import { baseName, displayPath, joinPath, type ObjectInfo, requireObjects, resolvePath, toObjectInfo } from '../paths.js';
import { type Context, connect } from '../session.js';
import { downloadFile, downloadUrl } from '../transfer/download.js';
import { allOrFirstError, Limiter } from '../transfer/limiter.js';
import { Progress } from '../transfer/progress.js';
import { MiB, type UploadResult, type UploadTarget, uploadFile } from '../transfer/upload.js';

const collect = (value: string, previous: string[]) => [...previous, value];

function positiveNumber(name: string, value: string): number {
  const number = Number(value);
  if (!(number > 0)) throw new UsageError(`${name} must be a positive number, got "${value}"`);
  return number;
}

interface UploadOptions {
  destination?: string;
  recursive?: boolean;
  parents?: boolean;
  parts: string;
  partSize: string;
  progress: boolean;
  wait?: boolean;
  tag: string[];
  property: string[];
  json?: boolean;
}

interface UploadJob {
  local: string;
  size: number;
  target: UploadTarget;
}

/** Local files (folders walked with -r) and where each goes; also the remote folders to create for empty local ones. */
function planUploads(locals: string[], options: UploadOptions, destination: { project: string; folder: string; name?: string; parents: boolean }) {
  const jobs: UploadJob[] = [];
  const emptyFolders: string[] = [];
  const walk = (dir: string, remote: string) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    if (!entries.length) emptyFolders.push(remote);
    for (const entry of entries) {
      const local = path.join(dir, entry.name);
      const stat = fs.statSync(local);
      if (stat.isDirectory()) walk(local, joinPath(remote, entry.name));
      else if (stat.isFile()) jobs.push({ local, size: stat.size, target: { project: destination.project, folder: remote, name: entry.name, parents: true } });
    }
  };
  for (const local of locals) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(local);
    } catch {
      throw new CliError(`${local}: no such file or folder`);
    }
    if (stat.isDirectory()) {
      if (!options.recursive) throw new UsageError(`${local} is a folder: use -r to upload it with its contents`);
      walk(local, joinPath(destination.folder, path.basename(path.resolve(local))));
    } else if (stat.isFile()) {
      jobs.push({
        local,
        size: stat.size,
        target: { project: destination.project, folder: destination.folder, name: destination.name ?? path.basename(local), parents: destination.parents },
      });
    } else throw new CliError(`${local} is neither a file nor a folder`);
  }
  return { jobs, emptyFolders };
}

async function runUpload(locals: string[], options: UploadOptions): Promise<void> {
  const parallel = Math.floor(positiveNumber('--parts', options.parts));
  const partSizeBytes = Math.round(positiveNumber('--part-size', options.partSize) * MiB);
  const properties: Record<string, string> = {};
  for (const pair of options.property) {
    const cut = pair.indexOf('=');
    if (cut <= 0) throw new UsageError(`--property "${pair}" is not key=value`);
    properties[pair.slice(0, cut)] = pair.slice(cut + 1);
  }
  const ctx = connect();
  const spec = options.destination ?? '.';
  const resolution = await resolvePath(ctx, spec);
  const singleFile = locals.length === 1 && fs.existsSync(locals[0] as string) && fs.statSync(locals[0] as string).isFile();
  let destination: { project: string; folder: string; name?: string; parents: boolean };
  if (resolution.isFolder) destination = { project: resolution.project, folder: resolution.path, parents: false };
  else if (singleFile && resolution.parentExists && !spec.endsWith('/')) {
    destination = { project: resolution.project, folder: resolution.parent, name: resolution.name, parents: false };
  } else if (options.parents) destination = { project: resolution.project, folder: resolution.path, parents: true };
  else throw new CliError(`ResourceNotFound: no folder ${displayPath(resolution)}: create it with px mkdir -p, or pass --parents`);

  const { jobs, emptyFolders } = planUploads(locals, options, destination);
  for (const folder of emptyFolders) await ctx.client.call('project-xxxx/newFolder', destination.project, { folder, parents: true });
  const progress = await Progress.create(
    Progress.enabledBy(options.progress),
    jobs.reduce((sum, job) => sum + job.size, 0),
    jobs.length,
  );
  progress.stopOnInterrupt('run the same command again to resume the upload');
  const shared = { parts: new Limiter(parallel), progress, parameters: new Map() };
  const files = new Limiter(parallel);
  const settings = { partSizeBytes, wait: Boolean(options.wait), tags: options.tag, properties };
  const results: (UploadResult | Error)[] = await Promise.all(
    jobs.map((job) =>
      files.run(() =>
        uploadFile(ctx, job.local, job.target, settings, shared).catch((error: unknown) => {
          const failure = error instanceof Error ? error : new Error(String(error));
          progress.log(`error: ${job.local}: ${describeFailure(error, ctx.session.server).message}`);
          return failure;
        }),
      ),
    ),
  );
  progress.stop();
  const failed = results.filter((result): result is Error => result instanceof Error);
  const done = jobs.flatMap((job, i) => {
    const result = results[i];
    return result && !(result instanceof Error) ? [{ job, result }] : [];
  });
  for (const { job, result } of done) {
    const parts = result.partsSent + result.partsSkipped;
    if (result.resumed) note(`${job.local}: uploaded ${result.partsSent} of ${parts} parts, the other ${result.partsSkipped} were already on the server`);
  }
  if (options.json) {
    printJson(
      done.map(({ job, result }) => ({
        path: job.local,
        id: result.id,
        project: job.target.project,
        folder: job.target.folder,
        name: job.target.name,
        resumed: result.resumed,
      })),
    );
  } else if (jobs.length === 1) for (const { result } of done) print(result.id);
  else for (const { job, result } of done) print(`${result.id}  ${job.local}`);
  if (failed.length === 1 && jobs.length === 1) throw failed[0];
  if (failed.length) throw new CliError(`${failed.length} of ${jobs.length} files failed to upload; run the same command again to resume them`);
}

interface DownloadOptions {
  output?: string;
  recursive?: boolean;
  overwrite?: boolean;
  all?: boolean;
  progress: boolean;
  /** --direct-io: auto (the page cache while it is fast), always or never. */
  directIo: 'auto' | 'always' | 'never';
}

/** --direct-io as the download's `directWrites` (unset: decided as the bytes are written). */
const DIRECT_WRITES = { auto: undefined, always: true, never: false } as const;

async function filesUnder(ctx: Context, project: string, folder: string): Promise<ObjectInfo[]> {
  const found: ObjectInfo[] = [];
  let starting: unknown;
  for (;;) {
    const page = await ctx.client.call('system/findDataObjects', {
      class: 'file',
      scope: { project, folder, recurse: true },
      visibility: 'either',
      describe: { fields: { id: true, name: true, folder: true, project: true, size: true, state: true } },
      limit: 1000,
      ...(starting ? { starting } : {}),
    });
    found.push(...page.results.map((hit) => toObjectInfo(hit.describe, hit)));
    if (!page.next || !page.results.length) return found;
    starting = page.next;
  }
}

async function runDownload(specs: string[], options: DownloadOptions): Promise<void> {
  const ctx = connect();
  const single: ObjectInfo[] = [];
  const trees: { root: string; files: ObjectInfo[] }[] = [];
  for (const spec of specs) {
    const resolution = await resolvePath(ctx, spec, { glob: true });
    if (resolution.objects.length) {
      const glob = /[*?]/.test(resolution.name);
      for (const object of requireObjects(resolution, spec, { allowMany: options.all || glob })) {
        if (object.class !== 'file') throw new CliError(`${object.id} is a ${object.class}: only files can be downloaded`);
        single.push(object);
      }
    } else if (resolution.isFolder) {
      if (!options.recursive) throw new UsageError(`"${spec}" is a folder: use -r to download it with its contents`);
      trees.push({ root: resolution.path, files: await filesUnder(ctx, resolution.project, resolution.path) });
    } else throw new CliError(`ResourceNotFound: no file or folder "${spec}" (${displayPath(resolution)})`);
  }

  const jobs: { object: ObjectInfo; out: string }[] = [];
  const many = single.length + trees.length > 1 || trees.length > 0;
  const outDir = options.output ?? '.';
  if (many) {
    if (fs.existsSync(outDir) && !fs.statSync(outDir).isDirectory()) throw new CliError(`${outDir} is not a folder: downloading several files needs one`);
    for (const object of single) jobs.push({ object, out: path.join(outDir, object.name) });
    for (const tree of trees) {
      const base = path.join(outDir, baseName(tree.root));
      for (const object of tree.files) {
        const relative = path.posix.relative(tree.root, object.folder);
        jobs.push({ object, out: path.join(base, ...relative.split('/').filter(Boolean), object.name) });
      }
    }
  } else if (single[0]) {
    const object = single[0];
    const out =
      options.output && fs.existsSync(options.output) && fs.statSync(options.output).isDirectory()
        ? path.join(options.output, object.name)
        : (options.output ?? object.name);
    jobs.push({ object, out });
  }
  const seen = new Set<string>();
  for (const job of jobs) {
    const key = path.resolve(job.out);
    if (seen.has(key)) throw new CliError(`two files would be saved as ${job.out}: download them one at a time with -o`);
    seen.add(key);
  }
  const progress = await Progress.create(
    Progress.enabledBy(options.progress),
    jobs.reduce((sum, job) => sum + (job.object.size ?? 0), 0),
    jobs.length,
  );
  progress.stopOnInterrupt('run the same command again to resume the download from its .part file');
  const limiter = new Limiter(4);
  try {
    await allOrFirstError(
      jobs.map((job) =>
        limiter.run(async () => {
          fs.mkdirSync(path.dirname(job.out), { recursive: true });
          await downloadFile(ctx, { id: job.object.id, project: job.object.project }, job.out, {
            overwrite: Boolean(options.overwrite),
            progress,
            directWrites: DIRECT_WRITES[options.directIo],
          });
        }),
      ),
    );
  } finally {
    progress.stop();
  }
  if (!jobs.length) note('nothing to download');
}

async function runCat(specs: string[]): Promise<void> {
  const ctx = connect();
  for (const spec of specs) {
    const [object] = requireObjects(await resolvePath(ctx, spec), spec) as [ObjectInfo];
    if (object.class !== 'file') throw new CliError(`${object.id} is a ${object.class}: only files have contents`);
    const { url, headers } = await downloadUrl(ctx, object);
    const response = await fetch(url, { headers });
    if (!response.ok || !response.body) throw new CliError(`GET of ${object.id} failed with HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    await pipeline(Readable.fromWeb(response.body), process.stdout, { end: false });
  }
}

export function registerTransferCommands(program: Command): void {
  withJson(
    program
      .command('upload <paths...>')
      .description('upload files (and, with -r, folders) in parallel parts; an interrupted upload resumes when the same command runs again')
      .option('-d, --destination <path>', 'project:/folder to upload into, or project:/folder/name for one file (default: the current folder)')
      .option('-r, --recursive', 'upload folders with their contents into matching folders')
      .option('-p, --parents', 'create the destination folder when it does not exist')
      .option('--parts <n>', 'parts uploaded in parallel', '8')
      .option('--part-size <MiB>', 'part size in MiB (at least 5; grown when a file would need over 10000 parts)', '16')
      .option('--tag <tag>', 'tag the new files (repeatable)', collect, [])
      .option('--property <key=value>', 'set a property on the new files (repeatable)', collect, [])
      .option('--wait', 'wait until the files are closed')
      .option('--no-progress', 'do not show progress bars (they show only when stdout is a terminal)')
      .action((paths: string[], options: UploadOptions) => runUpload(paths, options)),
  );

  program
    .command('download <paths...>')
    .description('download files (and, with -r, folders); an interrupted download resumes from its .part file')
    .option('-o, --output <path>', 'file name, or folder to download into (default: the current folder)')
    .option('-r, --recursive', 'download folders with their contents')
    .option('-f, --overwrite', 'replace existing local files')
    .option('-a, --all', 'download every file a name matches')
    .addOption(
      new Option(
        '--direct-io <when>',
        'write around the page cache (O_DIRECT): auto moves a download of 16 MiB or more there once the page cache takes it in slowly',
      )
        .choices(['auto', 'always', 'never'])
        .default('auto'),
    )
    .option('--no-progress', 'do not show progress bars (they show only when stdout is a terminal)')
    .action((paths: string[], options: DownloadOptions) => runDownload(paths, options));

  program
    .command('cat <files...>')
    .description('print the contents of files')
    .action((paths: string[]) => runCat(paths));
}
