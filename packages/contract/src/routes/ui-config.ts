import { z } from 'zod';
import { FEATURE_FLAGS, HEARTBEAT_INTERVAL_MS, SESSION_GRACE_PERIOD_MS, SESSION_TIMEOUT_MS } from '../constants.js';
import { systemRoute } from '../route.js';

/** Runtime configuration of the web app (SPEC §3); the server merges its settings over the defaults. */
export const runtimeConfigSchema = z
  .object({
    apiServer: z.object({ proto: z.string(), host: z.string(), port: z.number(), hostName: z.string() }),
    sessionTimeout: z.object({ gracePeriod: z.number(), highSecurity: z.number(), normalSecurity: z.number(), lowSecurity: z.number() }),
    heartbeat: z.number(),
    polling: z.object({ interval: z.number() }),
    featuredProjects: z.array(z.string()),
    communityPortalOrgIds: z.array(z.string()),
    partnerOrgs: z.array(z.string()),
    toolCategories: z.array(z.string()),
    maintenanceWindow: z.object({ active: z.boolean() }).loose(),
    flags: z.record(z.string(), z.boolean()),
    selfSignUp: z.boolean(),
  })
  .loose();
export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

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

export const uiConfigRoutes = {
  'system/getUIConfig': systemRoute('getUIConfig', {
    summary: "The web app's runtime configuration, merged with server settings",
    extension: 'Not in the DNAnexus route table (dxpy never calls it); the web app does.',
    input: z.object({ host: z.string().optional() }).loose(),
    output: runtimeConfigSchema,
  }),
};
