import type { RoutePath } from '@panx/contract';
import type { HandlerTable } from '../../http/handler.js';
import type { FoldersService } from './folders.service.js';
import type { ProjectsService } from './projects.service.js';

type ContainerMethod = 'describe' | 'listFolder' | 'newFolder' | 'removeFolder' | 'renameFolder' | 'move' | 'removeObjects' | 'clone' | 'destroy';
type ProjectOnly = 'update' | 'invite' | 'decreasePermissions' | 'leave' | 'transfer' | 'acceptTransfer' | 'addTags' | 'removeTags' | 'setProperties';
type Routes =
  | `project-xxxx/${ContainerMethod | ProjectOnly}`
  | `container-xxxx/${ContainerMethod}`
  | 'project/new'
  | 'system/findProjects'
  | 'system/describeProjects';

export function projectHandlers(projects: ProjectsService, folders: FoldersService): HandlerTable<Routes & RoutePath> {
  const container = {
    describe: (ctx, input, id) => projects.describe(ctx.caller, id, input),
    listFolder: (ctx, input, id) => folders.listFolder(ctx.caller, id, input),
    newFolder: (ctx, input, id) => folders.newFolder(ctx.caller, id, input),
    removeFolder: (ctx, input, id) => folders.removeFolder(ctx.caller, id, input),
    renameFolder: (ctx, input, id) => folders.renameFolder(ctx.caller, id, input),
    move: (ctx, input, id) => folders.move(ctx.caller, id, input, ctx.now),
    removeObjects: (ctx, input, id) => folders.removeObjects(ctx.caller, id, input),
    clone: (ctx, input, id) => folders.clone(ctx.caller, id, input, ctx.now),
    destroy: (ctx, _input, id) => projects.destroy(ctx.caller, id),
  } satisfies { [M in ContainerMethod]: HandlerTable<`project-xxxx/${M}`>[`project-xxxx/${M}`] };

  return {
    'project/new': (ctx, input) => projects.create(ctx.caller, input, ctx.now),
    'project-xxxx/describe': container.describe,
    'project-xxxx/listFolder': container.listFolder,
    'project-xxxx/newFolder': container.newFolder,
    'project-xxxx/removeFolder': container.removeFolder,
    'project-xxxx/renameFolder': container.renameFolder,
    'project-xxxx/move': container.move,
    'project-xxxx/removeObjects': container.removeObjects,
    'project-xxxx/clone': container.clone,
    'project-xxxx/destroy': container.destroy,
    'container-xxxx/describe': container.describe,
    'container-xxxx/listFolder': container.listFolder,
    'container-xxxx/newFolder': container.newFolder,
    'container-xxxx/removeFolder': container.removeFolder,
    'container-xxxx/renameFolder': container.renameFolder,
    'container-xxxx/move': container.move,
    'container-xxxx/removeObjects': container.removeObjects,
    'container-xxxx/clone': container.clone,
    'container-xxxx/destroy': container.destroy,
    'project-xxxx/update': (ctx, input, id) => projects.update(ctx.caller, id, input, ctx.now),
    'project-xxxx/invite': (ctx, input, id) => projects.invite(ctx.caller, id, input, ctx.now),
    'project-xxxx/decreasePermissions': (ctx, input, id) => projects.decreasePermissions(ctx.caller, id, input, ctx.now),
    'project-xxxx/leave': (ctx, _input, id) => projects.leave(ctx.caller, id),
    'project-xxxx/transfer': (ctx, input, id) => projects.transfer(ctx.caller, id, input, ctx.now),
    'project-xxxx/acceptTransfer': (ctx, _input, id) => projects.acceptTransfer(ctx.caller, id, ctx.now),
    'project-xxxx/addTags': (ctx, input, id) => projects.changeTags(ctx.caller, id, input.tags, true, ctx.now),
    'project-xxxx/removeTags': (ctx, input, id) => projects.changeTags(ctx.caller, id, input.tags, false, ctx.now),
    'project-xxxx/setProperties': (ctx, input, id) => projects.setProperties(ctx.caller, id, input.properties, ctx.now),
    'system/findProjects': (ctx, input) => projects.find(ctx.caller, input),
    'system/describeProjects': (ctx, input) => projects.describeMany(ctx.caller, input),
  };
}
