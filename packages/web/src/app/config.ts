import { defaultRuntimeConfig, type RuntimeConfig } from '@panx/contract';
import { FEATURE_FLAGS, type FeatureFlag, SESSION_TIMEOUT_MS, type SecurityLevel } from '../lib/constants';

/** GET /deployManifest.json (SPEC §7): names the configuration file; the rest is informational. */
export interface DeployManifest {
  configFile: string;
  version?: string;
  apiServer?: string;
  [key: string]: unknown;
}

/** The runtime configuration the app works with: every field present, flags defaulting to off (SPEC §9). */
export type AppConfig = RuntimeConfig & { flags: Record<FeatureFlag, boolean> & Record<string, boolean> };

const FLAG_DEFAULTS = Object.fromEntries(FEATURE_FLAGS.map((flag) => [flag, false])) as Record<FeatureFlag, boolean>;

export function defaultConfig(origin: string): AppConfig {
  const defaults = defaultRuntimeConfig(origin);
  return { ...defaults, flags: { ...defaults.flags, ...FLAG_DEFAULTS } };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Merges configuration layers left to right (defaults, config.json, getUIConfig). Nested objects are
 * merged one level deep so that a partial `sessionTimeout` or `flags` keeps the other defaults; a flag
 * that is not a boolean counts as off.
 */
export function mergeConfig(base: AppConfig, ...layers: unknown[]): AppConfig {
  let merged: Record<string, unknown> = { ...base };
  for (const layer of layers) {
    if (!isRecord(layer)) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      const current = merged[key];
      merged = { ...merged, [key]: isRecord(current) && isRecord(value) ? { ...current, ...value } : value };
    }
  }
  const flags = Object.fromEntries(Object.entries(isRecord(merged.flags) ? merged.flags : {}).map(([flag, value]) => [flag, value === true])) as Record<
    string,
    boolean
  >;
  const maintenance = isRecord(merged.maintenanceWindow) ? merged.maintenanceWindow : {};
  return {
    ...(merged as AppConfig),
    flags: { ...FLAG_DEFAULTS, ...flags },
    maintenanceWindow: { ...maintenance, active: maintenance.active === true },
  };
}

/** `{proto, host, port, hostName}` → `https://api.example.org:443`-style base URL of the API server. */
export function apiBaseUrl(config: AppConfig): string {
  const { proto, host, port, hostName } = config.apiServer;
  const scheme = (proto || 'http').replace(/:$/, '');
  if (hostName) return `${scheme}://${hostName}`;
  const defaultPort = (scheme === 'https' && port === 443) || (scheme === 'http' && port === 80);
  return `${scheme}://${host}${port && !defaultPort ? `:${port}` : ''}`;
}

/** Session time-out of a security level, from the configuration (SPEC §9: high 15, normal 60, low 360 minutes). */
export function sessionTimeoutFor(config: AppConfig, level: SecurityLevel): number {
  const table = config.sessionTimeout;
  const value = level === 'high' ? table.highSecurity : level === 'low' ? table.lowSecurity : table.normalSecurity;
  return typeof value === 'number' && value > 0 ? value : SESSION_TIMEOUT_MS[level];
}

export function isFlagOn(config: AppConfig, flag: FeatureFlag): boolean {
  return config.flags[flag] === true;
}
