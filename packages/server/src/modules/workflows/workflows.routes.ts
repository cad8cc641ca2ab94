import type { HandlerTable } from '../../http/handler.js';
import type { AnalysesService } from './analyses.service.js';
import type { WorkflowsService } from './workflows.service.js';

type WorkflowRoute =
  | 'workflow/new'
  | 'workflow/import'
  | 'workflow-xxxx/describe'
  | 'workflow-xxxx/addStage'
  | 'workflow-xxxx/removeStage'
  | 'workflow-xxxx/moveStage'
  | 'workflow-xxxx/update'
  | 'workflow-xxxx/updateStageExecutable'
  | 'workflow-xxxx/isStageCompatible'
  | 'workflow-xxxx/overwrite'
  | 'workflow-xxxx/close'
  | 'workflow-xxxx/run'
  | 'workflow-xxxx/dryRun'
  | 'workflow-xxxx/export'
  | 'analysis-xxxx/describe'
  | 'analysis-xxxx/terminate'
  | 'analysis-xxxx/addTags'
  | 'analysis-xxxx/removeTags'
  | 'analysis-xxxx/setProperties';

/**
 * Workflow- and analysis-specific routes. The workflow's common data object routes come from
 * data-objects.routes, except describe, which adds the stages and the computed specs (spread this
 * table after the common one).
 */
export function workflowHandlers(workflows: WorkflowsService, analyses: AnalysesService): HandlerTable<WorkflowRoute> {
  return {
    'workflow/new': (ctx, input) => workflows.create(ctx.caller, input, ctx.now),
    'workflow/import': (ctx, input) => workflows.import(ctx.caller, input, ctx.now),
    'workflow-xxxx/describe': (ctx, input, id) => workflows.describe(ctx.caller, id, input),
    'workflow-xxxx/addStage': (ctx, input, id) => workflows.addStage(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/removeStage': (ctx, input, id) => workflows.removeStage(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/moveStage': (ctx, input, id) => workflows.moveStage(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/update': (ctx, input, id) => workflows.update(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/updateStageExecutable': (ctx, input, id) => workflows.updateStageExecutable(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/isStageCompatible': (ctx, input, id) => workflows.isStageCompatible(ctx.caller, id, input),
    'workflow-xxxx/overwrite': (ctx, input, id) => workflows.overwrite(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/close': (ctx, _input, id) => workflows.close(ctx.caller, id, ctx.now),
    'workflow-xxxx/run': (ctx, input, id) => analyses.run(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/dryRun': (ctx, input, id) => analyses.dryRun(ctx.caller, id, input, ctx.now),
    'workflow-xxxx/export': (ctx, input, id) => workflows.export(ctx.caller, id, input),
    'analysis-xxxx/describe': (ctx, input, id) => analyses.describe(ctx.caller, id, input, ctx.now),
    'analysis-xxxx/terminate': (ctx, _input, id) => analyses.terminate(ctx.caller, id, ctx.now),
    'analysis-xxxx/addTags': (ctx, input, id) => analyses.changeTags(ctx.caller, id, input.tags, true, ctx.now),
    'analysis-xxxx/removeTags': (ctx, input, id) => analyses.changeTags(ctx.caller, id, input.tags, false, ctx.now),
    'analysis-xxxx/setProperties': (ctx, input, id) => analyses.setProperties(ctx.caller, id, input.properties, ctx.now),
  };
}
