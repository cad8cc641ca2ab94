import { defaultRuntimeConfig, type RuntimeConfig } from '@panx/contract';

/** The web app's runtime configuration: defaults, the server's own settings, then the operator's `ui` overrides. */
export class UiConfigService {
  constructor(private readonly settings: { publicUrl: string; selfSignUp: boolean; overrides: Record<string, unknown> }) {}

  deployManifest(): Record<string, unknown> {
    return { configFile: 'panx', version: '0.1.0', apiServer: this.settings.publicUrl };
  }

  runtimeConfig(): RuntimeConfig {
    const defaults: RuntimeConfig = { ...defaultRuntimeConfig(this.settings.publicUrl), selfSignUp: this.settings.selfSignUp };
    const overrides = this.settings.overrides;
    return {
      ...defaults,
      ...overrides,
      flags: { ...defaults.flags, ...((overrides.flags as Record<string, boolean> | undefined) ?? {}) },
    };
  }
}
