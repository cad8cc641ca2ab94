import { type AppConfig, apiBaseUrl, type DeployManifest, defaultConfig, mergeConfig } from './config';

export type BootResult =
  /** Start the app. `remoteConfigLoaded` is false when getUIConfig failed and the local config alone is used. */
  | { kind: 'ready'; manifest: DeployManifest; config: AppConfig; apiBaseUrl: string; remoteConfigLoaded: boolean }
  /** `maintenanceWindow.active`: show the maintenance page. */
  | { kind: 'maintenance'; manifest: DeployManifest; config: AppConfig; apiBaseUrl: string }
  /** Leave the app for the static error page (SPEC §8). */
  | { kind: 'error-page'; url: string; status: number; message: string };

export interface BootDependencies {
  fetch: typeof fetch;
  /** The page's origin, e.g. `http://localhost:8080`: manifest and config are fetched from it. */
  origin: string;
  /** Sent to getUIConfig as `host`. */
  host: string;
  /** The stored bearer token, if any. */
  token: string | undefined;
}

export const MANIFEST_ERROR = "Couldn't load manifest";
export const CONFIG_ERROR = "Couldn't load config";

/** `/error/error.html?status=500&message=Couldn't+load+config` (status 0 for a network error). */
export function errorPageUrl(status: number, message: string): string {
  return `/error/error.html?${new URLSearchParams({ status: String(status), message }).toString()}`;
}

class BootFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function getJson(deps: BootDependencies, url: string, failure: string): Promise<unknown> {
  let response: Response;
  try {
    response = await deps.fetch(url, { headers: { accept: 'application/json' }, cache: 'no-cache' });
  } catch (error) {
    // A network error: the page shows the browser's own message.
    throw new BootFailure(0, error instanceof Error && error.message ? error.message : failure);
  }
  if (!response.ok) throw new BootFailure(response.status, failure);
  try {
    return await response.json();
  } catch {
    throw new BootFailure(response.status, failure);
  }
}

/** POST {apiServer}/system/getUIConfig; any failure means "use the local config alone". */
async function getUiConfig(deps: BootDependencies, baseUrl: string): Promise<unknown> {
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (deps.token) headers.authorization = `Bearer ${deps.token}`;
    const response = await deps.fetch(`${baseUrl}/system/getUIConfig`, {
      method: 'POST',
      headers,
      credentials: 'include',
      body: JSON.stringify({ host: deps.host }),
    });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The start-up sequence of SPEC §7: manifest → config → getUIConfig merged over the local config.
 * Pure apart from the injected fetch, so it is unit-tested without a browser.
 */
export async function boot(deps: BootDependencies): Promise<BootResult> {
  const origin = deps.origin.replace(/\/+$/, '');
  try {
    const manifestBody = await getJson(deps, `${origin}/deployManifest.json`, MANIFEST_ERROR);
    const configFile = typeof manifestBody === 'object' && manifestBody !== null ? (manifestBody as { configFile?: unknown }).configFile : undefined;
    if (typeof configFile !== 'string' || !configFile) throw new BootFailure(200, MANIFEST_ERROR);
    const manifest = manifestBody as DeployManifest;

    const localBody = await getJson(deps, `${origin}/asset/${encodeURIComponent(configFile)}/config.json`, CONFIG_ERROR);
    if (typeof localBody !== 'object' || localBody === null || Array.isArray(localBody)) throw new BootFailure(200, CONFIG_ERROR);
    const local = mergeConfig(defaultConfig(origin), localBody);

    const remote = await getUiConfig(deps, apiBaseUrl(local));
    const config = remote ? mergeConfig(local, remote) : local;
    const baseUrl = apiBaseUrl(config);
    if (config.maintenanceWindow.active) return { kind: 'maintenance', manifest, config, apiBaseUrl: baseUrl };
    return { kind: 'ready', manifest, config, apiBaseUrl: baseUrl, remoteConfigLoaded: remote !== undefined };
  } catch (error) {
    const failure = error instanceof BootFailure ? error : new BootFailure(0, error instanceof Error ? error.message : String(error));
    return { kind: 'error-page', url: errorPageUrl(failure.status, failure.message), status: failure.status, message: failure.message };
  }
}
