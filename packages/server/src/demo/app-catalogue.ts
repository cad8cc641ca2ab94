import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteParsedInput } from '@panx/contract';
import type { Logger } from 'pino';
import type { Services } from '../app.js';
import type { Caller } from '../modules/auth/caller.js';

/**
 * The genomics apps that ship with Panx: the DNAnexus-style applet folders under `apps/` at the
 * repository root (a dxapp.json, `src/<name>.sh`, a README), turned into app versions at start-up
 * the way `dx build --create-app` does (code inlined as `runSpec.code`, `runSpec.file` dropped),
 * published, made the default version and opened to every user (PUBLIC).
 */

/** `apps/` at the repository root: this file is at packages/server/{src,dist}/demo/. */
export function defaultAppsDir(): string {
  return process.env.PANX_APPS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'apps');
}

/**
 * Whether start-up loads the bundled apps: `PANX_BUNDLED_APPS` (true/false, 1/0) when set; otherwise
 * with the demo project (so test platforms, which have none, start without them).
 */
export function bundledAppsEnabled(createDemoProject: boolean, env: Record<string, string | undefined> = process.env): boolean {
  const value = env.PANX_BUNDLED_APPS?.trim().toLowerCase();
  if (value === undefined || value === '') return createDemoProject;
  return ['1', 'true', 'yes', 'on'].includes(value);
}

export type DxAppJson = Record<string, unknown> & {
  name: string;
  version?: string;
  runSpec: Record<string, unknown> & { interpreter: string; file?: string; code?: string };
};

export interface AppFolder {
  /** The folder holding dxapp.json. */
  folder: string;
  /** dxapp.json as written. */
  dxapp: DxAppJson;
  /** What `dx build` sends: dxapp.json with `runSpec.code` inlined from `runSpec.file`, which is dropped. */
  spec: DxAppJson & { runSpec: { code: string } };
  /** Absolute path of the entry point script. */
  script: string;
}

/** Reads an applet folder as `dx build` does; resources/ folders are not supported here (none of the bundled apps has one). */
export function readAppFolder(folder: string): AppFolder {
  const file = path.join(folder, 'dxapp.json');
  const dxapp = JSON.parse(fs.readFileSync(file, 'utf8')) as DxAppJson;
  if (typeof dxapp.name !== 'string' || typeof dxapp.runSpec !== 'object' || dxapp.runSpec === null) {
    throw new Error(`${file}: name and runSpec are required`);
  }
  if (fs.existsSync(path.join(folder, 'resources'))) throw new Error(`${folder}: resources/ folders are not supported for bundled apps`);
  const { file: source, ...runSpec } = dxapp.runSpec;
  if (typeof source !== 'string') throw new Error(`${file}: runSpec.file is required`);
  const script = path.resolve(folder, source);
  return { folder, dxapp, spec: { ...dxapp, runSpec: { ...runSpec, code: fs.readFileSync(script, 'utf8') } }, script };
}

/** The app folders in `appsDir` (every subfolder with a dxapp.json), sorted by name. */
export function listAppFolders(appsDir: string = defaultAppsDir()): string[] {
  if (!fs.existsSync(appsDir)) return [];
  return fs
    .readdirSync(appsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(appsDir, entry.name, 'dxapp.json')))
    .map((entry) => path.join(appsDir, entry.name))
    .sort();
}

export interface CatalogueResult {
  /** `name/version` of the versions created now. */
  created: string[];
  /** `name/version` of the versions that were there already (left as they are: versions never change). */
  existing: string[];
  /** Folders that could not be loaded, with the reason (the others still are). */
  failed: { folder: string; error: string }[];
}

/**
 * Creates (app/new), publishes as the default version and authorizes PUBLIC for each app folder whose
 * name/version does not exist yet. Idempotent and quick on later starts (one lookup per app). A
 * folder that fails is reported and logged; it never stops start-up.
 */
export async function loadAppCatalogue(
  services: Pick<Services, 'apps'>,
  caller: Caller,
  options: { appsDir?: string; log?: Pick<Logger, 'info' | 'warn'>; now?: number } = {},
): Promise<CatalogueResult> {
  const result: CatalogueResult = { created: [], existing: [], failed: [] };
  const now = options.now ?? Date.now();
  for (const folder of listAppFolders(options.appsDir ?? defaultAppsDir())) {
    try {
      const { spec } = readAppFolder(folder);
      const version = spec.version ?? '0.0.1';
      const ref = `${spec.name}/${version}`;
      const exists = await services.apps.resolve(caller, `app-${ref}`).then(
        () => true,
        (error: unknown) => {
          if ((error as { type?: string }).type === 'ResourceNotFound') return false;
          throw error;
        },
      );
      if (exists) {
        result.existing.push(ref);
        continue;
      }
      const { id } = await services.apps.create(caller, { ...spec, version } as RouteParsedInput<'app/new'>, now);
      await services.apps.publish(caller, id, { makeDefault: true }, now);
      await services.apps.changeList(caller, id, 'authorizedUsers', ['PUBLIC'], true);
      result.created.push(ref);
    } catch (error) {
      result.failed.push({ folder, error: (error as Error).message });
      options.log?.warn({ folder, err: error }, 'a bundled app could not be loaded');
    }
  }
  if (result.created.length) options.log?.info({ apps: result.created }, 'bundled apps added to the catalogue');
  return result;
}
