import type { RoutePath } from '@panx/contract';
import type { HandlerTable } from '../../http/handler.js';
import type { DataObjectsService } from './data-objects.service.js';

type CommonMethod =
  | 'describe'
  | 'addTags'
  | 'removeTags'
  | 'addTypes'
  | 'removeTypes'
  | 'rename'
  | 'setProperties'
  | 'setDetails'
  | 'getDetails'
  | 'setVisibility'
  | 'listProjects';

/** The metadata methods every data object class shares, bound for one class. */
export function commonObjectHandlers<C extends 'file' | 'record' | 'applet' | 'workflow'>(
  objects: DataObjectsService,
  cls: C,
): HandlerTable<`${C}-xxxx/${CommonMethod}` & RoutePath> {
  const table: HandlerTable<`file-xxxx/${CommonMethod}`> = {
    'file-xxxx/describe': (ctx, input, id) => objects.describe(ctx.caller, id, cls, input) as never,
    'file-xxxx/addTags': (ctx, input, id) => objects.changeTags(ctx.caller, id, cls, input, true, ctx.now),
    'file-xxxx/removeTags': (ctx, input, id) => objects.changeTags(ctx.caller, id, cls, input, false, ctx.now),
    'file-xxxx/addTypes': (ctx, input, id) => objects.changeTypes(ctx.caller, id, cls, input, true, ctx.now),
    'file-xxxx/removeTypes': (ctx, input, id) => objects.changeTypes(ctx.caller, id, cls, input, false, ctx.now),
    'file-xxxx/rename': (ctx, input, id) => objects.rename(ctx.caller, id, cls, input, ctx.now),
    'file-xxxx/setProperties': (ctx, input, id) => objects.setProperties(ctx.caller, id, cls, input, ctx.now),
    'file-xxxx/setDetails': (ctx, input, id) => objects.setDetails(ctx.caller, id, cls, input, ctx.now),
    'file-xxxx/getDetails': (ctx, input, id) => objects.getDetails(ctx.caller, id, cls, input),
    'file-xxxx/setVisibility': (ctx, input, id) => objects.setVisibility(ctx.caller, id, cls, input, ctx.now),
    'file-xxxx/listProjects': (ctx, _input, id) => objects.listProjects(ctx.caller, id, cls),
  };
  // Every class's common routes have identical schemas (see the contract), so one table serves each class.
  return Object.fromEntries(Object.entries(table).map(([path, handler]) => [path.replace(/^file-/, `${cls}-`), handler])) as never;
}

export function dataObjectSystemHandlers(
  objects: DataObjectsService,
): HandlerTable<'system/findDataObjects' | 'system/describeDataObjects' | 'system/resolveDataObjects'> {
  return {
    'system/findDataObjects': (ctx, input) => objects.find(ctx.caller, input),
    'system/describeDataObjects': (ctx, input) => objects.describeMany(ctx.caller, input),
    'system/resolveDataObjects': (ctx, input) => objects.resolveMany(ctx.caller, input),
  };
}
