import type { HandlerTable } from '../../http/handler.js';
import type { RecordsService } from './records.service.js';

export function recordHandlers(records: RecordsService): HandlerTable<'record/new' | 'record-xxxx/close'> {
  return {
    'record/new': (ctx, input) => records.create(ctx.caller, input, ctx.now),
    'record-xxxx/close': (ctx, _input, id) => records.close(ctx.caller, id, ctx.now),
  };
}
