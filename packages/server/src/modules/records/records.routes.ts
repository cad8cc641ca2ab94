import type { HandlerTable } from '../../http/handler.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';
import { RecordsService } from './records.service.js';

export function recordHandlers(objects: DataObjectsService): HandlerTable<'record/new' | 'record-xxxx/close'> {
  const records = new RecordsService(objects);
  return {
    'record/new': (ctx, input) => records.create(ctx.caller, input, ctx.now),
    'record-xxxx/close': (ctx, _input, id) => records.close(ctx.caller, id, ctx.now),
  };
}
