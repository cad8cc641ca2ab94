import type { HandlerTable } from '../../http/handler.js';
import type { UsersService } from './users.service.js';

export function userHandlers(users: UsersService): HandlerTable<'user/new' | 'user-xxxx/describe' | 'user-xxxx/update' | 'system/findUsers'> {
  return {
    'user/new': (ctx, input) => users.create(ctx.caller, input, ctx.now),
    'user-xxxx/describe': (ctx, input, id) => users.describe(ctx.caller, id, input),
    'user-xxxx/update': (ctx, input, id) => users.update(ctx.caller, id, input, ctx.now),
    'system/findUsers': (ctx, input) => users.find(ctx.caller, input),
  };
}
