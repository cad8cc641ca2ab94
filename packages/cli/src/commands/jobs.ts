import { isApiError, type PanxClient } from '@panx/client';
import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { formatTime, note, print, printJson, printTable, withJson } from '../output.js';
import { collectPages, requireObjects, resolvePath, resolveProject } from '../paths.js';
import { ask } from '../prompt.js';
import { type Context, connect, requireProject } from '../session.js';
import { connectWebSocket } from '../websocket.js';

const collect = (value: string, previous: string[]) => [...previous, value];
const JOB_ID = /^job-[0-9A-Za-z]{24}$/;

interface IoSpecItem {
  name: string;
  class: string;
  optional?: boolean;
  default?: unknown;
}

interface Executable {
  id: string;
  name: string;
  inputSpec: IoSpecItem[] | null;
  /** The route to run it: `applet-xxxx` or the app's id. */
  subject: string;
}

/** An applet or app by ID, app name (`app-name`, `app-name/version`), or an applet's path or name in the project. */
async function resolveExecutable(ctx: Context, spec: string): Promise<Executable> {
  const describe = async (subject: string, project?: string): Promise<Executable> => {
    const described = (await ctx.client.post(subject, 'describe', project ? { project } : {})) as { id: string; name: string; inputSpec?: IoSpecItem[] | null };
    return { id: described.id, name: described.name, inputSpec: described.inputSpec ?? null, subject: described.id };
  };
  if (/^applet-[0-9A-Za-z]{24}$/.test(spec)) return describe(spec);
  if (spec.startsWith('app-')) return describe(spec);
  if (!spec.includes('/') && !spec.includes(':')) {
    try {
      return await describe(`app-${spec}`);
    } catch (error) {
      if (!isApiError(error, 'ResourceNotFound') && !isApiError(error, 'InvalidInput')) throw error;
    }
  }
  const objects = requireObjects(await resolvePath(ctx, spec), spec).filter((object) => object.class === 'applet');
  const [applet] = objects;
  if (!applet) throw new CliError(`"${spec}" is not an applet or app`);
  return describe(applet.id, applet.project);
}

/** A data object given as an ID, `job-xxxx:field` (a job-based reference), or a path or name. */
async function objectValue(ctx: Context, text: string): Promise<unknown> {
  const jbor = /^(job-[0-9A-Za-z]{24}):([A-Za-z_][0-9A-Za-z_]*)$/.exec(text);
  if (jbor) return { $dnanexus_link: { job: jbor[1], field: jbor[2] } };
  if (/^(file|record|applet|workflow|database)-[0-9A-Za-z]{24}$/.test(text)) return { $dnanexus_link: text };
  const [object] = requireObjects(await resolvePath(ctx, text), text);
  if (!object) throw new CliError(`no data object "${text}"`);
  return { $dnanexus_link: { project: object.project, id: object.id } };
}

async function scalarValue(ctx: Context, name: string, cls: string, text: string): Promise<unknown> {
  switch (cls) {
    case 'string':
      return text;
    case 'int': {
      const value = Number(text);
      if (!Number.isInteger(value)) throw new UsageError(`-i${name}: "${text}" is not an integer`);
      return value;
    }
    case 'float': {
      const value = Number(text);
      if (!Number.isFinite(value)) throw new UsageError(`-i${name}: "${text}" is not a number`);
      return value;
    }
    case 'boolean':
      if (!/^(true|false|1|0|yes|no)$/i.test(text)) throw new UsageError(`-i${name}: "${text}" is not a boolean`);
      return /^(true|1|yes)$/i.test(text);
    case 'hash':
      try {
        return JSON.parse(text);
      } catch {
        throw new UsageError(`-i${name}: "${text}" is not JSON`);
      }
    default:
      return objectValue(ctx, text);
  }
}

/** `-iname=value` pairs → the run input, typed by the executable's inputSpec (as dx run does). */
export async function parseInputs(ctx: Context, pairs: readonly string[], inputSpec: IoSpecItem[] | null): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = {};
  for (const pair of pairs) {
    const cut = pair.indexOf('=');
    if (cut <= 0) throw new UsageError(`-i${pair}: inputs are given as -iname=value`);
    const name = pair.slice(0, cut);
    const text = pair.slice(cut + 1);
    const item = inputSpec?.find((candidate) => candidate.name === name);
    if (inputSpec && !item)
      throw new UsageError(`-i${name}: the executable has no input "${name}" (its inputs: ${inputSpec.map((i) => i.name).join(', ') || 'none'})`);
    if (!item) {
      let value: unknown = text;
      try {
        value = JSON.parse(text);
      } catch {
        if (/^(job-[0-9A-Za-z]{24}:|(file|record|applet)-[0-9A-Za-z]{24}$)/.test(text)) value = await objectValue(ctx, text);
      }
      input[name] = value;
      continue;
    }
    if (item.class.startsWith('array:')) {
      const cls = item.class.slice('array:'.length);
      const values = text.startsWith('[') && cls !== 'string' ? (JSON.parse(text) as unknown[]) : [await scalarValue(ctx, name, cls, text)];
      input[name] = [...((input[name] as unknown[] | undefined) ?? []), ...values];
    } else {
      if (name in input) throw new UsageError(`-i${name} is given twice, but it is not an array input`);
      input[name] = await scalarValue(ctx, name, item.class, text);
    }
  }
  return input;
}

interface LogFrame {
  timestamp?: number;
  source?: string;
  level?: string;
  job?: string;
  msg?: string;
}

function formatLine(frame: LogFrame, names: Map<string, string>): string {
  const time = formatTime(frame.timestamp ?? Date.now());
  const job = frame.job ? `${names.get(frame.job) ?? ''} ${frame.job}`.trim() : '';
  return `${time} ${job} (${frame.level ?? 'INFO'}) ${frame.msg ?? ''}`;
}

/** Follows a job's log (and its subjobs') over the websocket until the job ends; answers its final state. */
export async function watchJob(ctx: Context, jobId: string, options: { recurse: boolean; quiet?: boolean }): Promise<string> {
  const base = new URL(ctx.client.baseUrl);
  const url = `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}/${jobId}/getLog/websocket`;
  const names = new Map<string, string>();
  for (;;) {
    const ended = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      connectWebSocket(url, {
        onText: (text) => {
          let frame: LogFrame;
          try {
            frame = JSON.parse(text) as LogFrame;
          } catch {
            return;
          }
          if (frame.source === 'SYSTEM' && frame.msg === 'END_LOG') return;
          if (!options.quiet) print(formatLine(frame, names));
        },
        onClose: (code, reason) => resolve({ code, reason }),
      }).then(
        (socket) =>
          socket.sendText(
            JSON.stringify({
              access_token: ctx.session.token,
              token_type: 'Bearer',
              numRecentMessages: 262_144,
              recurseJobs: options.recurse,
              tail: true,
              metricsFormat: 'text',
            }),
          ),
        reject,
      );
    });
    if (ended.code === 1001) {
      note('the server is restarting: reconnecting in 2 s');
      await new Promise((resolve) => setTimeout(resolve, 2000));
      continue;
    }
    if (ended.code !== 1000) {
      let message = ended.reason;
      try {
        const parsed = JSON.parse(ended.reason) as { type?: string; message?: string };
        message = `${parsed.type}: ${parsed.message}`;
      } catch {
        // a plain reason
      }
      throw new CliError(`the log stream ended: ${message || `code ${ended.code}`}`);
    }
    break;
  }
  const job = (await ctx.client.post(jobId, 'describe', { fields: { state: true, failureReason: true, failureMessage: true } })) as {
    state: string;
    failureReason?: string | null;
    failureMessage?: string | null;
  };
  const summary = `${jobId} is ${job.state}${job.failureReason ? `: ${job.failureReason}: ${job.failureMessage}` : ''}`;
  // dx watch exits 3 when the job did not succeed.
  if (job.state !== 'done') throw new CliError(summary, 3);
  note(summary);
  return job.state;
}

interface RunOptions {
  input: string[];
  instanceType?: string;
  watch?: boolean;
  yes?: boolean;
  folder?: string;
  name?: string;
  project?: string;
  priority?: string;
  ignoreReuse?: boolean;
  costLimit?: string;
  dependsOn: string[];
  tag: string[];
  json?: boolean;
  rerunStage: string[];
  stageFolder: string[];
}

async function runExecutable(spec: string, options: RunOptions): Promise<void> {
  const ctx = connect();
  // Workflows run as analyses (commands/workflows.ts).
  const workflows = await import('./workflows.js');
  const workflow = await workflows.workflowTarget(ctx, spec);
  if (workflow) {
    if (options.costLimit !== undefined) throw new UsageError('--cost-limit applies to applets and apps, not to workflows');
    return workflows.runWorkflow(ctx, workflow, options);
  }
  if (options.rerunStage.length || options.stageFolder.length) throw new UsageError('--rerun-stage and --stage-folder apply to workflows');
  const executable = await resolveExecutable(ctx, spec);
  const project = options.project ? (await resolveProject(ctx.client, options.project.replace(/:$/, ''))).id : requireProject(ctx.session);
  const input = await parseInputs(ctx, options.input, executable.inputSpec);
  const missing = (executable.inputSpec ?? []).filter((item) => !item.optional && item.default === undefined && !(item.name in input));
  if (missing.length)
    throw new UsageError(`missing input${missing.length > 1 ? 's' : ''}: ${missing.map((item) => `-i${item.name}=<${item.class}>`).join(' ')}`);
  const folder = options.folder ?? (project === ctx.session.project ? (ctx.session.cwd ?? '/') : '/');
  if (!options.yes && process.stdin.isTTY) {
    note(`Running ${executable.name} (${executable.id}) in ${project}:${folder} with input:`);
    note(JSON.stringify(input, null, 2));
    const answer = (await ask('Confirm running the executable with this input [Y/n]: ')).trim();
    if (answer && !/^y(es)?$/i.test(answer)) throw new CliError('not run');
  }
  const costLimit = options.costLimit === undefined ? undefined : Number(options.costLimit);
  if (costLimit !== undefined && !(costLimit > 0)) throw new UsageError('--cost-limit must be a positive number of USD');
  const { id } = (await ctx.client.post(executable.subject, 'run', {
    input,
    project,
    folder,
    ...(options.name ? { name: options.name } : {}),
    ...(options.instanceType ? { systemRequirements: { '*': { instanceType: options.instanceType } } } : {}),
    ...(options.priority ? { priority: options.priority } : {}),
    ...(options.ignoreReuse ? { ignoreReuse: true } : {}),
    ...(costLimit !== undefined ? { costLimit } : {}),
    ...(options.dependsOn.length ? { dependsOn: options.dependsOn } : {}),
    ...(options.tag.length ? { tags: options.tag } : {}),
  })) as { id: string };
  if (options.json) printJson({ id });
  else print(id);
  if (options.watch) await watchJob(ctx, id, { recurse: true, quiet: options.json });
}

interface JobRow {
  id: string;
  describe?: {
    name?: string;
    state?: string;
    launchedBy?: string;
    created?: number;
    startedRunning?: number | null;
    stoppedRunning?: number | null;
    parentJob?: string | null;
  };
}

function runtime(job: JobRow['describe']): string {
  if (!job?.startedRunning) return '';
  const seconds = Math.round(((job.stoppedRunning ?? Date.now()) - job.startedRunning) / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${h}:${String(m).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

async function findJobs(
  client: PanxClient,
  options: { project?: string; allProjects?: boolean; state?: string; name?: string; origin?: string; limit: string; json?: boolean },
  session: Context['session'],
) {
  const limit = Number(options.limit);
  if (!(limit > 0)) throw new UsageError('-n must be a positive number');
  const project = options.allProjects ? undefined : options.project ? (await resolveProject(client, options.project.replace(/:$/, ''))).id : session.project;
  if (!options.allProjects && !project) throw new CliError('no project selected: run "px select <project>", or pass --project or --all-projects');
  const describe = { fields: { name: true, state: true, launchedBy: true, created: true, startedRunning: true, stoppedRunning: true, parentJob: true } };
  const query = {
    ...(project ? { project } : {}),
    ...(options.state ? { state: options.state } : {}),
    ...(options.name ? { name: /[*?]/.test(options.name) ? { glob: options.name } : options.name } : {}),
    ...(options.origin ? { originJob: [options.origin] } : { parentJob: null }),
    describe,
  };
  const roots = (
    await collectPages((starting) => client.call('system/findJobs', { ...query, limit: Math.min(limit, 1000), ...(starting ? { starting } : {}) }), limit)
  ).slice(0, limit) as JobRow[];
  const rootIds = roots.filter((job) => !job.describe?.parentJob).map((job) => job.id);
  const subjobs = rootIds.length
    ? (
        (await collectPages((starting) =>
          client.call('system/findJobs', { originJob: rootIds, describe, limit: 1000, ...(starting ? { starting } : {}) }),
        )) as JobRow[]
      ).filter((job) => !rootIds.includes(job.id))
    : [];
  return { roots, subjobs };
}

export function registerJobCommands(program: Command): void {
  program
    .command('build <folder>')
    .description('build an applet (or, with --app, an app) from a dxapp.json folder: code inlined, resources/ bundled')
    .option('-f, --overwrite', 'replace an applet of the same name in the destination folder')
    .option('--app', 'build an app (global and versioned) instead of an applet')
    .option('--version <version>', 'app version (default: dxapp.json "version")')
    .option('--publish', 'publish the app version and make it the default')
    .option('-d, --destination <path>', 'project:/folder for the applet (default: the current folder)')
    .action(async (folder: string, options: { overwrite?: boolean; app?: boolean; version?: string; publish?: boolean; destination?: string }) => {
      const { buildExecutable } = await import('./build.js');
      const id = await buildExecutable(connect(), folder, options);
      printJson({ id });
    });

  withJson(
    program
      .command('run <executable>')
      .description(
        'run an applet, app or workflow (ID, app name, or path or name); inputs as -iname=value (files by ID, path or name; job-xxxx:field), for workflows -i<stage>.name=value (stage ID, index or name)',
      )
      .option('-i, --input <name=value>', 'an input (repeat for several, and for each element of an array input)', collect, [])
      .option('--instance-type <type>', 'instance type for every entry point (e.g. mem2_ssd1_x2)')
      .option('--folder <folder>', 'output folder (default: the current folder)')
      .option('--name <name>', 'job name')
      .option('--project <project>', 'project to run in (default: the current one)')
      .option('--priority <priority>', 'low, normal or high')
      .option('--ignore-reuse', 'run even when an identical job already finished')
      .option('--cost-limit <usd>', 'stop the job tree when it has cost this much')
      .option('--depends-on <id>', 'wait for this job (done) or data object (closed); repeatable', collect, [])
      .option('--tag <tag>', 'tag the job (repeatable)', collect, [])
      .option('--rerun-stage <stage>', 'workflows: run this stage even if an identical job could be reused ("*": every stage); repeatable', collect, [])
      .option('--stage-folder <stage=folder>', 'workflows: output folder of a stage, relative to --folder; repeatable', collect, [])
      .option('--watch', 'follow the log until the job (or analysis) ends (exit code 3 if it fails)')
      .option('-y, --yes', 'do not ask for confirmation')
      .action((executable: string, options: RunOptions) => runExecutable(executable, options)),
  );

  program
    .command('watch <job>')
    .description('follow the log of a job and its subjobs (or of an analysis’s stage jobs) live until it ends (exit code 3 if it fails)')
    .option('--no-recurse', 'only this job, not its subjobs')
    .action(async (jobId: string, options: { recurse: boolean }) => {
      if (/^analysis-[0-9A-Za-z]{24}$/.test(jobId)) {
        const { watchAnalysis } = await import('./workflows.js');
        await watchAnalysis(connect(), jobId);
        return;
      }
      if (!JOB_ID.test(jobId)) throw new UsageError(`"${jobId}" is not a job ID (job-xxxx)`);
      await watchJob(connect(), jobId, { recurse: options.recurse });
    });

  program
    .command('terminate <jobs...>')
    .description('terminate jobs (each with its whole job tree)')
    .action(async (jobs: string[]) => {
      const { client } = connect();
      for (const jobId of jobs) {
        if (!JOB_ID.test(jobId)) throw new UsageError(`"${jobId}" is not a job ID (job-xxxx)`);
        await client.post(jobId, 'terminate', {});
      }
    });

  const find = program.commands.find((command) => command.name() === 'find') ?? program.command('find');
  withJson(
    find
      .command('jobs')
      .description('list jobs of the current project (or --project, or --all-projects), newest first, with their subjobs')
      .option('--project <project>', 'project to search')
      .option('--all-projects', 'every project you can see')
      .option('--state <state>', 'only jobs in this state')
      .option('--name <glob>', 'job name, with * and ? as wildcards')
      .option('--origin <job>', 'the jobs of this job tree')
      .option('-n, --num-results <n>', 'at most this many job trees', '20')
      .action(
        async (options: { project?: string; allProjects?: boolean; state?: string; name?: string; origin?: string; numResults: string; json?: boolean }) => {
          const ctx = connect();
          const { roots, subjobs } = await findJobs(ctx.client, { ...options, limit: options.numResults }, ctx.session);
          if (options.json) return printJson([...roots, ...subjobs].map((job) => ({ id: job.id, ...job.describe })));
          const rows: string[][] = [];
          const children = new Map<string, JobRow[]>();
          for (const job of subjobs) {
            const parent = job.describe?.parentJob ?? '';
            children.set(parent, [...(children.get(parent) ?? []), job]);
          }
          const add = (job: JobRow, depth: number) => {
            const d = job.describe;
            rows.push([`${'  '.repeat(depth)}${d?.name ?? ''}`, d?.state ?? '', job.id, d?.launchedBy ?? '', formatTime(d?.created), runtime(d)]);
            for (const child of (children.get(job.id) ?? []).sort((a, b) => (a.describe?.created ?? 0) - (b.describe?.created ?? 0))) add(child, depth + 1);
          };
          for (const root of roots) add(root, 0);
          if (rows.length) printTable(['NAME', 'STATE', 'ID', 'LAUNCHED BY', 'CREATED', 'RUNTIME'], rows);
        },
      ),
  );
}
