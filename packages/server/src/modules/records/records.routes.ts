import type { HandlerTable } from '../../http/handler.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';

export function recordHandlers(objects: DataObjectsService): HandlerTable<'record/new' | 'record-xxxx/close'> {
  return {
    'record/new': (ctx, input, _id) => objects.create(ctx.caller, input, { cls: 'record', state: input.close ? 'closed' : 'open' }, ctx.now),
    'record-xxxx/close': (ctx, _input, id) => objects.closeRecord(ctx.caller, id, ctx.now),
  };
}
