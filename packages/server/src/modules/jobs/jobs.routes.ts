import type { HandlerTable } from '../../http/handler.js';
import type { JobLogsQuery } from './job-log-stream.js';
import type { JobsService } from './jobs.service.js';

type JobRoute =
  | 'job/new'
  | 'job-xxxx/describe'
  | 'job-xxxx/terminate'
  | 'job-xxxx/update'
  | 'job-xxxx/addTags'
  | 'job-xxxx/removeTags'
  | 'job-xxxx/setProperties'
  | 'job-xxxx/getLog'
  | 'job-xxxx/reportOutcome'
  | 'system/findExecutions'
  | 'system/findJobs'
  | 'system/findAnalyses'
  | 'system/describeExecutions'
  | 'system/describeInstanceTypes';

export function jobHandlers(jobs: JobsService, logs: JobLogsQuery): HandlerTable<JobRoute> {
  return {
    'job/new': (ctx, input) => jobs.newSubjob(ctx.caller, input, ctx.now),
    'job-xxxx/describe': (ctx, input, id) => jobs.describe(ctx.caller, id, input, ctx.now),
    'job-xxxx/terminate': (ctx, _input, id) => jobs.terminate(ctx.caller, id, ctx.now),
    'job-xxxx/update': (ctx, input, id) => jobs.update(ctx.caller, id, input, ctx.now),
    'job-xxxx/addTags': (ctx, input, id) => jobs.changeTags(ctx.caller, id, input.tags, true, ctx.now),
    'job-xxxx/removeTags': (ctx, input, id) => jobs.changeTags(ctx.caller, id, input.tags, false, ctx.now),
    'job-xxxx/setProperties': (ctx, input, id) => jobs.setProperties(ctx.caller, id, input.properties, ctx.now),
    'job-xxxx/getLog': (ctx, input, id) => logs.page(ctx.caller, id, input),
    'job-xxxx/reportOutcome': (ctx, input, id) => jobs.reportOutcome(ctx.caller, id, input, ctx.now),
    'system/findExecutions': (ctx, input) => jobs.find(ctx.caller, input, undefined, ctx.now),
    'system/findJobs': (ctx, input) => jobs.find(ctx.caller, input, 'job', ctx.now),
    'system/findAnalyses': (ctx, input) => jobs.find(ctx.caller, input, 'analysis', ctx.now),
    'system/describeExecutions': (ctx, input) => jobs.describeMany(ctx.caller, input, ctx.now),
    'system/describeInstanceTypes': (ctx, input) => jobs.describeInstanceTypes(ctx.caller, input),
  };
}
