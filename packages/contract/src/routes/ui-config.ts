import { z } from 'zod';
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

export { defaultRuntimeConfig } from '../runtime-config-defaults.js';

export const uiConfigRoutes = {
  'system/getUIConfig': systemRoute('getUIConfig', {
    summary: "The web app's runtime configuration, merged with server settings",
    extension: 'Not in the DNAnexus route table (dxpy never calls it); the web app does.',
    input: z.object({ host: z.string().optional() }).loose(),
    output: runtimeConfigSchema,
  }),
};
