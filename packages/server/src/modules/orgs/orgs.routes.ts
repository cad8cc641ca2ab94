import type { HandlerTable } from '../../http/handler.js';
import type { OrgsService } from './orgs.service.js';

export function orgHandlers(
  orgs: OrgsService,
): HandlerTable<
  | 'org/new'
  | 'org-xxxx/describe'
  | 'org-xxxx/update'
  | 'org-xxxx/invite'
  | 'org-xxxx/removeMember'
  | 'org-xxxx/setMemberAccess'
  | 'org-xxxx/findMembers'
  | 'org-xxxx/findProjects'
  | 'org-xxxx/findApps'
  | 'system/findOrgs'
> {
  return {
    'org/new': (ctx, input) => orgs.create(ctx.caller, input, ctx.now),
    'org-xxxx/describe': (ctx, input, id) => orgs.describe(ctx.caller, id, input),
    'org-xxxx/update': (ctx, input, id) => orgs.update(ctx.caller, id, input, ctx.now),
    'org-xxxx/invite': (ctx, input, id) => orgs.invite(ctx.caller, id, input, ctx.now),
    'org-xxxx/removeMember': (ctx, input, id) => orgs.removeMember(ctx.caller, id, input),
    'org-xxxx/setMemberAccess': (ctx, input, id) => orgs.setMemberAccess(ctx.caller, id, input),
    'org-xxxx/findMembers': (ctx, input, id) => orgs.findMembers(ctx.caller, id, input),
    'org-xxxx/findProjects': (ctx, input, id) => orgs.findProjects(ctx.caller, id, input),
    'org-xxxx/findApps': (ctx, input, id) => orgs.findApps(ctx.caller, id, input),
    'system/findOrgs': (ctx, input) => orgs.findOrgs(ctx.caller, input),
  };
}
