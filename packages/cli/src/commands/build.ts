import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, UsageError } from '../errors.js';
import { note } from '../output.js';
import { joinPath, locate } from '../paths.js';
import type { Context } from '../session.js';
import { Limiter } from '../transfer/limiter.js';
import { Progress } from '../transfer/progress.js';
import { MiB, uploadFile } from '../transfer/upload.js';

interface BuildOptions {
  overwrite?: boolean;
  app?: boolean;
  version?: string;
  publish?: boolean;
  destination?: string;
}

type DxApp = Record<string, unknown> & {
  name?: unknown;
  version?: unknown;
  runSpec?: Record<string, unknown> & { file?: unknown; code?: unknown; bundledDepends?: unknown[] };
};

/** Every file under `dir` (relative paths, sorted), so that the checksum of a folder does not depend on listing order. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** SHA-1 of the resources folder's paths, modes and contents: the same folder always gives the same checksum. */
function resourcesChecksum(dir: string): string {
  const hash = createHash('sha1');
  for (const file of filesUnder(dir)) {
    const full = path.join(dir, file);
    const stat = fs.lstatSync(full);
    hash.update(`${file}\0${stat.mode & 0o777}\0`);
    hash.update(stat.isSymbolicLink() ? `link:${fs.readlinkSync(full)}` : fs.readFileSync(full));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * The resources/ folder as a hidden `resources.tar.gz` with the `resource_bundle_checksum` property
 * (reference §8): an identical bundle already in the project is used again instead of uploaded.
 */
async function bundleResources(ctx: Context, dir: string, project: string, folder: string): Promise<string | undefined> {
  const resources = path.join(dir, 'resources');
  if (!fs.existsSync(resources) || !filesUnder(resources).length) return undefined;
  const checksum = resourcesChecksum(resources);
  const existing = await ctx.client.call('system/findDataObjects', {
    state: 'closed',
    visibility: 'either',
    properties: { resource_bundle_checksum: checksum },
    scope: { project, folder: '/' },
    limit: 1,
  });
  if (existing.results[0]) return existing.results[0].id;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'px-build-'));
  try {
    const tarball = path.join(scratch, 'resources.tar.gz');
    const tar = spawnSync('tar', ['-czf', tarball, '--sort=name', '--owner=0', '--group=0', '--numeric-owner', '-C', resources, '.'], { encoding: 'utf8' });
    if (tar.status !== 0) throw new CliError(`packing ${resources} failed: ${tar.stderr.trim()}`);
    note(`Uploading resources/ as resources.tar.gz (${fs.statSync(tarball).size} bytes)`);
    const shared = { parts: new Limiter(4), progress: await Progress.create(false, 0, 1), parameters: new Map() };
    const settings = { partSizeBytes: 16 * MiB, wait: true, tags: [], properties: { resource_bundle_checksum: checksum } };
    const { id } = await uploadFile(ctx, tarball, { project, folder, name: 'resources.tar.gz', parents: true }, settings, shared);
    await ctx.client.post(id, 'setVisibility', { project, hidden: true });
    return id;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** `px build`: dxapp.json with its code inlined and its resources bundled, as `dx build` sends it. */
export async function buildExecutable(ctx: Context, folder: string, options: BuildOptions): Promise<string> {
  const dir = path.resolve(folder);
  const manifest = path.join(dir, 'dxapp.json');
  let dxapp: DxApp;
  try {
    dxapp = JSON.parse(fs.readFileSync(manifest, 'utf8')) as DxApp;
  } catch (error) {
    throw new CliError(`${manifest}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (typeof dxapp.name !== 'string' || !dxapp.name) throw new CliError(`${manifest}: "name" is required`);
  const runSpec = dxapp.runSpec;
  if (!runSpec || typeof runSpec !== 'object') throw new CliError(`${manifest}: "runSpec" is required`);
  if (typeof runSpec.file === 'string') {
    const codeFile = path.resolve(dir, runSpec.file);
    if (!fs.existsSync(codeFile)) throw new CliError(`runSpec.file: ${codeFile} does not exist`);
    runSpec.code = fs.readFileSync(codeFile, 'utf8');
    delete runSpec.file;
  }
  if (typeof runSpec.code !== 'string') throw new CliError(`${manifest}: runSpec needs "file" (the entry point script)`);

  const destination = await locate(ctx, options.destination ?? '.');
  const bundle = await bundleResources(ctx, dir, destination.project, destination.path);
  if (bundle) runSpec.bundledDepends = [...(runSpec.bundledDepends ?? []), { name: 'resources.tar.gz', id: { $dnanexus_link: bundle } }];
  runSpec.assetDepends ??= [];

  if (options.app) {
    const version = options.version ?? (typeof dxapp.version === 'string' ? dxapp.version : undefined);
    if (!version) throw new UsageError('an app needs a version: set "version" in dxapp.json or pass --version');
    const { id } = (await ctx.client.post('app', 'new', { ...dxapp, version })) as { id: string };
    if (options.publish) await ctx.client.post(id, 'publish', { makeDefault: true });
    return id;
  }

  const existing = await ctx.client.call('system/findDataObjects', {
    class: 'applet',
    name: dxapp.name,
    visibility: 'either',
    scope: { project: destination.project, folder: destination.path, recurse: false },
  });
  if (existing.results.length && !options.overwrite) {
    throw new CliError(
      `an applet named ${dxapp.name} is already in ${joinPath(destination.path, dxapp.name)} (${existing.results[0]?.id}): pass -f to replace it`,
    );
  }
  const { version: _version, ...appletFields } = dxapp;
  const { id } = (await ctx.client.post('applet', 'new', { ...appletFields, project: destination.project, folder: destination.path, parents: true })) as {
    id: string;
  };
  if (existing.results.length)
    await ctx.client.call('project-xxxx/removeObjects', destination.project, { objects: existing.results.map((hit) => hit.id), force: true });
  return id;
}
