import type { HandlerTable } from '../../http/handler.js';
import type { CommunitiesService } from './communities.service.js';

export function communityHandlers(
  communities: CommunitiesService,
): HandlerTable<'system/newCommunity' | 'system/updateCommunity' | 'system/describeCommunity' | 'system/findCommunities'> {
  return {
    'system/newCommunity': (ctx, input) => communities.create(ctx.caller, input, ctx.now),
    'system/updateCommunity': (ctx, input) => communities.update(ctx.caller, input, ctx.now),
    'system/describeCommunity': (ctx, input) => communities.describe(ctx.caller, input.id),
    'system/findCommunities': (ctx) => communities.find(ctx.caller),
  };
}
