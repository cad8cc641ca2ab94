import type { HandlerTable } from '../../http/handler.js';
import type { SupportService } from './support.service.js';

export function supportHandlers(support: SupportService): HandlerTable<'system/reportFailure' | 'system/findFailureReports'> {
  return {
    'system/reportFailure': (ctx, input) => support.reportFailure(ctx.caller, input, ctx.now),
    'system/findFailureReports': (ctx, input) => support.find(ctx.caller, input),
  };
}
