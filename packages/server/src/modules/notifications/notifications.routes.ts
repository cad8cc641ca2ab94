import type { HandlerTable } from '../../http/handler.js';
import type { NotificationsService } from './notifications.service.js';

export function notificationHandlers(notifications: NotificationsService): HandlerTable<'notifications/get' | 'notifications/markRead'> {
  return {
    'notifications/get': (ctx, input) => notifications.get(ctx.caller, input),
    'notifications/markRead': (ctx, input) => notifications.markRead(ctx.caller, input, ctx.now),
  };
}
