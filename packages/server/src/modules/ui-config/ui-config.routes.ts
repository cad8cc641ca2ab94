import type { HandlerTable } from '../../http/handler.js';
import type { UiConfigService } from './ui-config.service.js';

export function uiConfigHandlers(uiConfig: UiConfigService): HandlerTable<'system/getUIConfig'> {
  return {
    'system/getUIConfig': async () => uiConfig.runtimeConfig(),
  };
}
