import type { HandlerTable } from '../../http/handler.js';
import type { JobsService } from '../jobs/jobs.service.js';
import type { AppletsService } from './applets.service.js';
import type { AppsService } from './apps.service.js';

type ExecutableRoute =
  | 'applet/new'
  | 'applet-xxxx/get'
  | 'applet-xxxx/run'
  | 'app/new'
  | 'app-xxxx/describe'
  | 'app-xxxx/get'
  | 'app-xxxx/run'
  | 'app-xxxx/update'
  | 'app-xxxx/publish'
  | 'app-xxxx/delete'
  | 'app-xxxx/install'
  | 'app-xxxx/uninstall'
  | 'app-xxxx/addCategories'
  | 'app-xxxx/removeCategories'
  | 'app-xxxx/listCategories'
  | 'app-xxxx/addAuthorizedUsers'
  | 'app-xxxx/removeAuthorizedUsers'
  | 'app-xxxx/listAuthorizedUsers'
  | 'app-xxxx/addDevelopers'
  | 'app-xxxx/removeDevelopers'
  | 'app-xxxx/listDevelopers'
  | 'app-xxxx/addTags'
  | 'app-xxxx/removeTags'
  | 'system/findApps'
  | 'system/findGlobalWorkflows';

/** Applet- and app-specific routes (the applet's common data object routes come from data-objects.routes). */
export function executableHandlers(applets: AppletsService, apps: AppsService, jobs: JobsService): HandlerTable<ExecutableRoute> {
  return {
    'applet/new': (ctx, input) => applets.create(ctx.caller, input, ctx.now),
    'applet-xxxx/get': (ctx, input, id) => applets.get(ctx.caller, id, input),
    'applet-xxxx/run': (ctx, input, id) => jobs.runApplet(ctx.caller, id, input, ctx.now),
    'app/new': (ctx, input) => apps.create(ctx.caller, input, ctx.now),
    'app-xxxx/describe': (ctx, input, id) => apps.describe(ctx.caller, id, input),
    'app-xxxx/get': (ctx, _input, id) => apps.get(ctx.caller, id),
    'app-xxxx/run': (ctx, input, id) => jobs.runApp(ctx.caller, id, input, ctx.now),
    'app-xxxx/update': (ctx, input, id) => apps.update(ctx.caller, id, input, ctx.now),
    'app-xxxx/publish': (ctx, input, id) => apps.publish(ctx.caller, id, input, ctx.now),
    'app-xxxx/delete': (ctx, _input, id) => apps.delete(ctx.caller, id, ctx.now),
    'app-xxxx/install': (ctx, _input, id) => apps.install(ctx.caller, id, true, ctx.now),
    'app-xxxx/uninstall': (ctx, _input, id) => apps.install(ctx.caller, id, false, ctx.now),
    'app-xxxx/addCategories': (ctx, input, id) => apps.changeList(ctx.caller, id, 'categories', input.categories as string[], true),
    'app-xxxx/removeCategories': (ctx, input, id) => apps.changeList(ctx.caller, id, 'categories', input.categories as string[], false),
    'app-xxxx/listCategories': async (ctx, _input, id) => ({ categories: await apps.listOf(ctx.caller, id, 'categories') }),
    'app-xxxx/addAuthorizedUsers': (ctx, input, id) => apps.changeList(ctx.caller, id, 'authorizedUsers', input.authorizedUsers as string[], true),
    'app-xxxx/removeAuthorizedUsers': (ctx, input, id) => apps.changeList(ctx.caller, id, 'authorizedUsers', input.authorizedUsers as string[], false),
    'app-xxxx/listAuthorizedUsers': async (ctx, _input, id) => ({ authorizedUsers: await apps.listOf(ctx.caller, id, 'authorizedUsers') }),
    'app-xxxx/addDevelopers': (ctx, input, id) => apps.changeList(ctx.caller, id, 'developers', input.developers as string[], true),
    'app-xxxx/removeDevelopers': (ctx, input, id) => apps.changeList(ctx.caller, id, 'developers', input.developers as string[], false),
    'app-xxxx/listDevelopers': async (ctx, _input, id) => ({ developers: await apps.listOf(ctx.caller, id, 'developers') }),
    'app-xxxx/addTags': (ctx, input, id) => apps.addTags(ctx.caller, id, input.tags, ctx.now),
    'app-xxxx/removeTags': (ctx, input, id) => apps.removeTags(ctx.caller, id, input.tags, ctx.now),
    'system/findApps': (ctx, input) => apps.find(ctx.caller, input),
    'system/findGlobalWorkflows': async () => ({ results: [], next: null }),
  };
}
