import { FEATURE_FLAGS, HEARTBEAT_INTERVAL_MS, SESSION_GRACE_PERIOD_MS, SESSION_TIMEOUT_MS } from './constants.js';
import type { RuntimeConfig } from './routes/ui-config.js';

// Apart from routes/ui-config.ts (which re-exports it) so that the web app can use it without zod.

/** The runtime configuration before any operator setting: SPEC §9 values, every feature flag off. */
export function defaultRuntimeConfig(apiOrigin: string): RuntimeConfig {
  const url = new URL(apiOrigin);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return {
    apiServer: { proto: url.protocol.replace(':', ''), host: url.hostname, port, hostName: url.host },
    sessionTimeout: {
      gracePeriod: SESSION_GRACE_PERIOD_MS,
      highSecurity: SESSION_TIMEOUT_MS.high,
      normalSecurity: SESSION_TIMEOUT_MS.normal,
      lowSecurity: SESSION_TIMEOUT_MS.low,
    },
    heartbeat: HEARTBEAT_INTERVAL_MS,
    polling: { interval: 0 },
    featuredProjects: [],
    communityPortalOrgIds: [],
    partnerOrgs: [],
    toolCategories: [],
    maintenanceWindow: { active: false },
    flags: Object.fromEntries(FEATURE_FLAGS.map((flag) => [flag, false])),
    selfSignUp: false,
  };
}
