import type { HandlerTable } from '../../http/handler.js';
import type { ClientErrorsService } from './client-errors.service.js';

export function clientErrorHandlers(clientErrors: ClientErrorsService): HandlerTable<'system/reportClientError'> {
  return {
    'system/reportClientError': async (ctx, input) => {
      clientErrors.report(ctx.caller.userId, input, ctx.now);
      return {};
    },
  };
}
