import { FEATURE_FLAGS, HEARTBEAT_INTERVAL_MS, type RuntimeConfig, SESSION_GRACE_PERIOD_MS, SESSION_TIMEOUT_MS } from '@panx/contract';

/** The web app's runtime configuration: defaults, the server's own settings, then the operator's `ui` overrides. */
export class UiConfigService {
  constructor(private readonly settings: { publicUrl: string; selfSignUp: boolean; overrides: Record<string, unknown> }) {}

  deployManifest(): Record<string, unknown> {
    return { configFile: 'panx', version: '0.1.0', apiServer: this.settings.publicUrl };
  }

  runtimeConfig(): RuntimeConfig {
    const url = new URL(this.settings.publicUrl);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const defaults: RuntimeConfig = {
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
      selfSignUp: this.settings.selfSignUp,
    };
    const overrides = this.settings.overrides;
    return {
      ...defaults,
      ...overrides,
      flags: { ...defaults.flags, ...((overrides.flags as Record<string, boolean> | undefined) ?? {}) },
    };
  }
}
