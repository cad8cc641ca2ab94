import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type PanxClient } from '@panx/client';
import { CliError } from './errors.js';

/** What `px login`, `px select` and `px cd` remember between runs, in `<config dir>/config.json`. */
export interface SavedConfig {
  server?: string;
  token?: string;
  /** `session` for password logins (revoked by `px logout`); `api` for tokens given with `--token`. */
  tokenKind?: 'session' | 'api';
  userId?: string;
  username?: string;
  project?: string;
  projectName?: string;
  cwd?: string;
}

export type Source = 'env' | 'file' | 'none';

/** The saved configuration with the environment applied over it (`PANX_SERVER`, `PANX_TOKEN`, `PANX_PROJECT`). */
export interface Session extends SavedConfig {
  sources: { server: Source; token: Source; project: Source };
}

export const CLI_VERSION = '0.1.0';

/** `~/.panx`, or `PANX_CONFIG_DIR`. */
export function configDir(): string {
  return process.env.PANX_CONFIG_DIR || path.join(os.homedir(), '.panx');
}

export function configPath(): string {
  return path.join(configDir(), 'config.json');
}

export function loadConfig(): SavedConfig {
  let text: string;
  try {
    text = fs.readFileSync(configPath(), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as SavedConfig) : {};
  } catch {
    throw new CliError(`${configPath()} is not valid JSON: fix or delete it, then run px login again`);
  }
}

/** Writes the configuration readable by its owner only (it holds a token). */
export function saveConfig(config: SavedConfig): void {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = configPath();
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, file);
}

/** Applies `change` to the saved file (not to the environment overrides) and saves it. */
export function updateConfig(change: (config: SavedConfig) => SavedConfig): SavedConfig {
  const next = change(loadConfig());
  saveConfig(next);
  return next;
}

export function loadSession(): Session {
  const saved = loadConfig();
  const env = process.env;
  const session: Session = { ...saved, sources: { server: 'none', token: 'none', project: 'none' } };
  if (env.PANX_SERVER) {
    session.server = env.PANX_SERVER;
    session.sources.server = 'env';
  } else if (saved.server) session.sources.server = 'file';
  if (env.PANX_TOKEN) {
    session.token = env.PANX_TOKEN;
    session.tokenKind = 'api';
    session.sources.token = 'env';
  } else if (saved.token) session.sources.token = 'file';
  if (env.PANX_PROJECT) {
    if (env.PANX_PROJECT !== saved.project) {
      session.project = env.PANX_PROJECT;
      session.projectName = undefined;
      session.cwd = '/';
    }
    session.sources.project = 'env';
  } else if (saved.project) session.sources.project = 'file';
  session.cwd ??= '/';
  return session;
}

/** The session plus a client for it. */
export interface Context {
  session: Session;
  client: PanxClient;
}

export function makeClient(server: string, token: string | undefined): PanxClient {
  const retries = Number(process.env.PANX_RETRIES ?? 3);
  return createClient({
    baseUrl: server,
    token,
    retries: Number.isFinite(retries) && retries >= 0 ? retries : 3,
    userAgent: `px/${CLI_VERSION} node/${process.versions.node}`,
  });
}

/** A client for the saved session; fails with a hint when `px login` has not been run. */
export function connect(options: { requireToken?: boolean } = {}): Context {
  const session = loadSession();
  if (!session.server) throw new CliError('not logged in: run "px login --server URL --token TOKEN" (or set PANX_SERVER and PANX_TOKEN)');
  if (options.requireToken !== false && !session.token) throw new CliError(`not logged in to ${session.server}: run "px login"`);
  return { session, client: makeClient(session.server, session.token) };
}

/** The current project, or a hint to select one. */
export function requireProject(session: Session): string {
  if (!session.project) throw new CliError('no project selected: run "px select <project>" or give a path as "project:/folder"');
  return session.project;
}
