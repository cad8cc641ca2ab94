import fs from 'node:fs';
import { isApiError } from '@panx/client';
import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { note, print, printJson, printTable, withJson } from '../output.js';
import { baseName, locate, parentOf, requireObjects, resolvePath, resolveProject } from '../paths.js';
import { ask } from '../prompt.js';
import { type Context, connect, requireProject } from '../session.js';
import { parseInputs, watchJob } from './jobs.js';

/**
 * Workflows from the command line: `px new workflow`, `px add stage`, `px remove stage`,
 * `px list stages`, `px import workflow` / `px export workflow` (the JSON of apps/workflows), and what
 * `px run`, `px watch` and `px describe` do with workflows and analyses.
 */

const collect = (value: string, previous: string[]) => [...previous, value];
const WORKFLOW_ID = /^workflow-[0-9A-Za-z]{24}$/;
export const ANALYSIS_ID = /^analysis-[0-9A-Za-z]{24}$/;

interface IoSpecItem {
  name: string;
  class: string;
  optional?: boolean;
  default?: unknown;
}

interface Stage {
  id: string;
  name: string | null;
  executable: string;
  folder: string | null;
  input: Record<string, unknown>;
  accessible: boolean;
}

export interface WorkflowInfo {
  id: string;
  project: string;
  name: string;
  editVersion: number;
  outputFolder: string | null;
  stages: Stage[];
  inputSpec: IoSpecItem[] | null;
}

/** A workflow by ID or by path/name (`project:/folder/name`). */
export async function resolveWorkflow(ctx: Context, spec: string): Promise<WorkflowInfo> {
  let target: { id: string; project?: string };
  if (WORKFLOW_ID.test(spec)) target = { id: spec, project: ctx.session.project };
  else {
    const objects = requireObjects(await resolvePath(ctx, spec), spec, { allowMany: true }).filter((object) => object.class === 'workflow');
    if (!objects.length) throw new CliError(`"${spec}" is not a workflow`);
    if (objects.length > 1) throw new CliError(`"${spec}" names ${objects.length} workflows (${objects.map((object) => object.id).join(', ')}): use an ID`);
    const [found] = objects as [(typeof objects)[number]];
    target = { id: found.id, project: found.project };
  }
  const describe = (project?: string) => ctx.client.call('workflow-xxxx/describe', target.id, project ? { project } : {}) as Promise<unknown>;
  let described: unknown;
  try {
    described = await describe(target.project);
  } catch (error) {
    if (!target.project || !isApiError(error, 'ResourceNotFound')) throw error;
    described = await describe();
  }
  return described as WorkflowInfo;
}

/** What `px run` was given, if it is a workflow (by ID, or a path or name naming one and no applet). */
export async function workflowTarget(ctx: Context, spec: string): Promise<WorkflowInfo | undefined> {
  if (WORKFLOW_ID.test(spec)) return resolveWorkflow(ctx, spec);
  if (/^(applet|app)-/.test(spec)) return undefined;
  let classes: string[];
  try {
    classes = (await resolvePath(ctx, spec)).objects.map((object) => object.class);
  } catch {
    return undefined;
  }
  return classes.includes('workflow') && !classes.includes('applet') ? resolveWorkflow(ctx, spec) : undefined;
}

/** A stage by ID, by index (0 is the first) or by name. */
export function findStage(workflow: Pick<WorkflowInfo, 'stages' | 'id'>, ref: string): Stage {
  const byId = workflow.stages.find((stage) => stage.id === ref);
  if (byId) return byId;
  if (/^\d+$/.test(ref)) {
    const byIndex = workflow.stages[Number(ref)];
    if (byIndex) return byIndex;
  }
  const byName = workflow.stages.filter((stage) => stage.name === ref);
  if (byName.length === 1) return byName[0] as Stage;
  if (byName.length > 1) throw new UsageError(`${byName.length} stages of ${workflow.id} are named "${ref}": use a stage ID`);
  throw new UsageError(
    `${workflow.id} has no stage "${ref}" (its stages: ${workflow.stages.map((stage, index) => `${index} ${stage.id}${stage.name ? ` "${stage.name}"` : ''}`).join(', ') || 'none'})`,
  );
}

/** Runs an edit with the workflow's current editVersion, and once more if someone else edited it meanwhile. */
async function editWorkflow<T>(ctx: Context, spec: string, edit: (workflow: WorkflowInfo) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const workflow = await resolveWorkflow(ctx, spec);
    try {
      return await edit(workflow);
    } catch (error) {
      if (attempt === 0 && isApiError(error, 'InvalidState') && /editVersion/.test((error as Error).message)) continue;
      throw error;
    }
  }
}

/** `-i<stage>.<field>=value` with the stage as ID, index or name → `<stageId>.<field>=value`. */
export function stageInputPairs(workflow: Pick<WorkflowInfo, 'stages' | 'id' | 'inputSpec'>, pairs: readonly string[]): string[] {
  const names = new Set((workflow.inputSpec ?? []).map((item) => item.name));
  return pairs.map((pair) => {
    const cut = pair.indexOf('=');
    if (cut <= 0) throw new UsageError(`-i${pair}: inputs are given as -i<stage>.<field>=value`);
    const key = pair.slice(0, cut);
    if (names.has(key)) return pair;
    const dot = key.lastIndexOf('.');
    if (dot <= 0) {
      throw new UsageError(`-i${key}: a workflow's inputs are named <stage>.<field> (the stage as ID, index or name), for example -i0.${key}=...`);
    }
    const stage = findStage(workflow, key.slice(0, dot));
    return `${stage.id}.${key.slice(dot + 1)}${pair.slice(cut)}`;
  });
}

interface RunWorkflowOptions {
  input: string[];
  instanceType?: string;
  watch?: boolean;
  yes?: boolean;
  folder?: string;
  name?: string;
  project?: string;
  priority?: string;
  ignoreReuse?: boolean;
  rerunStage?: string[];
  stageFolder?: string[];
  dependsOn: string[];
  tag: string[];
  json?: boolean;
}

/** `px run <workflow>`: inputs typed by the workflow's inputSpec, an analysis started, optionally watched. */
export async function runWorkflow(ctx: Context, workflow: WorkflowInfo, options: RunWorkflowOptions): Promise<void> {
  if (!workflow.inputSpec) {
    const hidden = workflow.stages.filter((stage) => !stage.accessible).map((stage) => stage.id);
    throw new CliError(`${workflow.id} has inaccessible stage(s): ${hidden.join(', ')} (their executables cannot be described by you)`);
  }
  const project = options.project ? (await resolveProject(ctx.client, options.project.replace(/:$/, ''))).id : requireProject(ctx.session);
  const input = await parseInputs(ctx, stageInputPairs(workflow, options.input), workflow.inputSpec);
  const missing = workflow.inputSpec.filter((item) => !item.optional && item.default === undefined && !(item.name in input));
  if (missing.length) {
    throw new UsageError(`missing input${missing.length > 1 ? 's' : ''}: ${missing.map((item) => `-i${item.name}=<${item.class}>`).join(' ')}`);
  }
  // The workflow's output folder when it has one, else the current folder (as dx run does).
  const folder = options.folder ?? (workflow.outputFolder ? undefined : project === ctx.session.project ? (ctx.session.cwd ?? '/') : '/');
  const stageFolders: Record<string, string> = {};
  for (const pair of options.stageFolder ?? []) {
    const cut = pair.indexOf('=');
    if (cut <= 0) throw new UsageError(`--stage-folder ${pair}: give it as <stage>=<folder>`);
    stageFolders[findStage(workflow, pair.slice(0, cut)).id] = pair.slice(cut + 1);
  }
  const rerunStages = (options.rerunStage ?? []).map((ref) => (ref === '*' ? '*' : findStage(workflow, ref).id));
  if (!options.yes && process.stdin.isTTY) {
    note(`Running ${workflow.name} (${workflow.id}) in ${project}:${folder ?? workflow.outputFolder ?? '/'} with input:`);
    note(JSON.stringify(input, null, 2));
    const answer = (await ask('Confirm running the workflow with this input [Y/n]: ')).trim();
    if (answer && !/^y(es)?$/i.test(answer)) throw new CliError('not run');
  }
  const run = await ctx.client.call('workflow-xxxx/run', workflow.id, {
    input,
    project,
    ...(folder ? { folder } : {}),
    ...(options.name ? { name: options.name } : {}),
    ...(options.instanceType ? { systemRequirements: { '*': { instanceType: options.instanceType } } } : {}),
    ...(options.priority ? { priority: options.priority as 'low' | 'normal' | 'high' } : {}),
    ...(options.ignoreReuse ? { ignoreReuse: true } : {}),
    ...(rerunStages.length ? { rerunStages } : {}),
    ...(Object.keys(stageFolders).length ? { stageFolders } : {}),
    ...(options.dependsOn.length ? { dependsOn: options.dependsOn } : {}),
    ...(options.tag.length ? { tags: options.tag } : {}),
  });
  if (options.json) printJson({ id: run.id, stages: run.stages });
  else print(run.id);
  if (options.watch) await watchAnalysis(ctx, run.id, { quiet: options.json });
}

interface AnalysisInfo {
  id: string;
  name: string;
  state: string;
  failureReason?: string | null;
  failureMessage?: string | null;
  stages: { id: string; execution: { id: string; name?: string; state?: string } }[];
}

const FINISHED = ['done', 'failed', 'terminated'];

/** Follows the log of each stage job in turn (all of it, live while it runs) until the analysis ends; exit 3 unless it is done. */
export async function watchAnalysis(ctx: Context, id: string, options: { quiet?: boolean } = {}): Promise<string> {
  const describe = () =>
    ctx.client.call('analysis-xxxx/describe', id, {
      fields: { name: true, state: true, stages: true, failureReason: true, failureMessage: true },
    }) as Promise<unknown> as Promise<AnalysisInfo>;
  const analysis = await describe();
  for (const [index, stage] of analysis.stages.entries()) {
    if (!options.quiet) note(`── stage ${index} ${stage.id}${stage.execution.name ? ` (${stage.execution.name})` : ''}: ${stage.execution.id}`);
    try {
      await watchJob(ctx, stage.execution.id, { recurse: true, quiet: options.quiet });
    } catch (error) {
      // A failed stage: the others may still run (or have failed with it); the analysis's state says how it ended.
      if (!(error instanceof CliError) || error.exitCode !== 3) throw error;
      note(error.message);
    }
  }
  let final = await describe();
  for (let waited = 0; !FINISHED.includes(final.state) && waited < 100; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    final = await describe();
  }
  const summary = `${id} is ${final.state}${final.failureReason ? `: ${final.failureReason}: ${final.failureMessage}` : ''}`;
  if (final.state !== 'done') throw new CliError(summary, 3);
  note(summary);
  return final.state;
}

/** Stage rows for `px list stages` and `px describe` of a workflow or an analysis. */
export function stageTable(stages: readonly Stage[]): string[][] {
  return stages.map((stage, index) => [
    String(index),
    stage.id,
    stage.name ?? '',
    stage.executable,
    stage.folder ?? '',
    Object.entries(stage.input)
      .map(([field, value]) => `${field}=${formatBound(value)}`)
      .join(' '),
  ]);
}

function formatBound(value: unknown): string {
  const body = (value as { $dnanexus_link?: unknown } | null)?.$dnanexus_link;
  if (body && typeof body === 'object') {
    const link = body as { stage?: string; outputField?: string; inputField?: string; id?: string };
    if (link.stage && link.outputField) return `${link.stage}.${link.outputField}`;
    if (link.stage && link.inputField) return `${link.stage}.input:${link.inputField}`;
    if (link.id) return link.id;
  }
  if (typeof body === 'string') return body;
  return JSON.stringify(value);
}

/** A workflow's or analysis's describe without `stages`, which printStagesOf shows as a table. */
export function withoutStages(described: Record<string, unknown>): Record<string, unknown> {
  if (described.class !== 'workflow' && described.class !== 'analysis') return described;
  const { stages: _stages, ...rest } = described;
  return rest;
}

/** What `px describe` prints after the fields of a workflow or an analysis: its stages. */
export function printStagesOf(described: Record<string, unknown>): void {
  if (described.class === 'workflow' && Array.isArray(described.stages)) {
    print();
    printTable(['#', 'STAGE', 'NAME', 'EXECUTABLE', 'FOLDER', 'BOUND INPUTS'], stageTable(described.stages as Stage[]));
  }
  if (described.class === 'analysis' && Array.isArray(described.stages)) {
    print();
    const rows = (described.stages as AnalysisInfo['stages']).map((stage, index) => [
      String(index),
      stage.id,
      stage.execution.name ?? '',
      stage.execution.id,
      stage.execution.state ?? '',
    ]);
    printTable(['#', 'STAGE', 'NAME', 'JOB', 'STATE'], rows);
  }
}

/** `-iname=value` for a stage's bound inputs: typed by the executable's inputSpec; `stage-x.field` links to another stage's output. */
async function boundInputs(ctx: Context, workflow: WorkflowInfo, executable: string, pairs: readonly string[]): Promise<Record<string, unknown>> {
  const described = (await ctx.client.post(executable, 'describe', executable.startsWith('applet-') ? { project: workflow.project } : {})) as {
    inputSpec?: IoSpecItem[] | null;
  };
  const links: Record<string, unknown> = {};
  const plain: string[] = [];
  for (const pair of pairs) {
    const cut = pair.indexOf('=');
    const value = pair.slice(cut + 1);
    const match = /^(stage-[A-Za-z0-9_-]+)\.([A-Za-z_][0-9A-Za-z_]*)$/.exec(value);
    if (cut > 0 && match && workflow.stages.some((stage) => stage.id === match[1])) {
      links[pair.slice(0, cut)] = { $dnanexus_link: { stage: match[1], outputField: match[2] } };
    } else plain.push(pair);
  }
  return { ...(await parseInputs(ctx, plain, described.inputSpec ?? null)), ...links };
}

/** An applet or app for a stage: an ID, `app-name[/version]`, a bare app name, or an applet's path or name. */
async function executableRef(ctx: Context, spec: string): Promise<string> {
  if (/^applet-[0-9A-Za-z]{24}$/.test(spec) || spec.startsWith('app-')) return spec;
  if (!spec.includes('/') && !spec.includes(':')) {
    try {
      return ((await ctx.client.post(`app-${spec}`, 'describe', {})) as { id: string }).id;
    } catch (error) {
      if (!isApiError(error, 'ResourceNotFound') && !isApiError(error, 'InvalidInput')) throw error;
    }
  }
  const applets = requireObjects(await resolvePath(ctx, spec), spec).filter((object) => object.class === 'applet');
  if (!applets[0]) throw new CliError(`"${spec}" is not an applet or app`);
  return applets[0].id;
}

export function registerWorkflowCommands(program: Command): void {
  const create = program.commands.find((command) => command.name() === 'new') ?? program.command('new');
  withJson(
    create
      .command('workflow [path]')
      .description('create an empty (or --init-from) workflow at [project:]/folder/name, by default in the current folder; prints its ID')
      .option('--title <title>', 'title')
      .option('--summary <summary>', 'summary')
      .option('--output-folder <folder>', 'default output folder of its runs')
      .option('--init-from <workflow>', 'copy the stages of this workflow (ID or path)')
      .option('-p, --parents', 'create the folder (and its parents) when missing')
      .action(
        async (
          path: string | undefined,
          options: { title?: string; summary?: string; outputFolder?: string; initFrom?: string; parents?: boolean; json?: boolean },
        ) => {
          const ctx = connect();
          const where = await locate(ctx, path ?? '');
          const named = path !== undefined && path !== '' && !path.endsWith('/') && !path.endsWith(':');
          const folder = named ? parentOf(where.path) : where.path;
          const source = options.initFrom ? await resolveWorkflow(ctx, options.initFrom) : undefined;
          const created = await ctx.client.call('workflow/new', {
            project: where.project,
            folder,
            ...(options.parents ? { parents: true } : {}),
            ...(named ? { name: baseName(where.path) } : {}),
            ...(options.title ? { title: options.title } : {}),
            ...(options.summary ? { summary: options.summary } : {}),
            ...(options.outputFolder ? { outputFolder: options.outputFolder } : {}),
            ...(source ? { initializeFrom: { id: source.id, project: source.project } } : {}),
          });
          if (options.json) printJson(created);
          else print(created.id);
        },
      ),
  );

  const add = program.commands.find((command) => command.name() === 'add') ?? program.command('add').description('add to a workflow');
  withJson(
    add
      .command('stage <workflow> <executable>')
      .description('add a stage running an applet or app; -iname=value binds an input (-iname=stage-x.field links to another stage’s output)')
      .option('--name <name>', 'stage name')
      .option('--id <stageId>', 'stage ID (default: a new stage-xxxx)')
      .option('--folder <folder>', 'output folder of the stage, relative to the run’s (or absolute)')
      .option('--instance-type <type>', 'instance type of the stage')
      .option('-i, --input <name=value>', 'a bound input (repeatable)', collect, [])
      .action(
        async (
          workflowSpec: string,
          executableSpec: string,
          options: { name?: string; id?: string; folder?: string; instanceType?: string; input: string[]; json?: boolean },
        ) => {
          const ctx = connect();
          const executable = await executableRef(ctx, executableSpec);
          const added = await editWorkflow(ctx, workflowSpec, async (workflow) =>
            ctx.client.call('workflow-xxxx/addStage', workflow.id, {
              editVersion: workflow.editVersion,
              executable,
              ...(options.id ? { id: options.id } : {}),
              ...(options.name ? { name: options.name } : {}),
              ...(options.folder ? { folder: options.folder } : {}),
              ...(options.instanceType ? { systemRequirements: { '*': { instanceType: options.instanceType } } } : {}),
              ...(options.input.length ? { input: await boundInputs(ctx, workflow, executable, options.input) } : {}),
            }),
          );
          if (options.json) printJson(added);
          else print(added.stage);
        },
      ),
  );

  const remove = program.commands.find((command) => command.name() === 'remove') ?? program.command('remove').description('remove from a workflow');
  remove
    .command('stage <workflow> <stage>')
    .description('remove a stage (by ID, index or name)')
    .action(async (workflowSpec: string, stageRef: string) => {
      const ctx = connect();
      await editWorkflow(ctx, workflowSpec, async (workflow) =>
        ctx.client.call('workflow-xxxx/removeStage', workflow.id, { editVersion: workflow.editVersion, stage: findStage(workflow, stageRef).id }),
      );
    });

  const update = program.commands.find((command) => command.name() === 'update') ?? program.command('update').description('change a workflow or its stages');
  update
    .command('workflow <workflow>')
    .description('change a workflow’s title, summary, description or default output folder (as dx update workflow)')
    .option('--title <title>', 'title')
    .option('--summary <summary>', 'summary')
    .option('--description <description>', 'description')
    .option('--output-folder <folder>', 'default output folder of its runs')
    .option('--no-output-folder', 'runs go to the folder given at run time, else /')
    .action(async (workflowSpec: string, options: { title?: string; summary?: string; description?: string; outputFolder?: string | false }) => {
      const changes = {
        ...(options.title !== undefined ? { title: options.title } : {}),
        ...(options.summary !== undefined ? { summary: options.summary } : {}),
        ...(options.description !== undefined ? { description: options.description } : {}),
        ...(options.outputFolder !== undefined ? { outputFolder: options.outputFolder === false ? null : options.outputFolder } : {}),
      };
      if (!Object.keys(changes).length) throw new UsageError('nothing to change: give --title, --summary, --description or --output-folder');
      const ctx = connect();
      await editWorkflow(ctx, workflowSpec, async (workflow) =>
        ctx.client.call('workflow-xxxx/update', workflow.id, { editVersion: workflow.editVersion, ...changes }),
      );
    });
  update
    .command('stage <workflow> <stage>')
    .description(
      'change a stage (by ID, index or name): its name, output folder, instance type, bound inputs (-iname=value; -iname=stage-x.field links; -iname= unbinds), or its executable (--executable, checked for compatibility unless --force)',
    )
    .option('--name <name>', 'stage name')
    .option('--folder <folder>', 'output folder of the stage, relative to the run’s (or absolute)')
    .option('--instance-type <type>', 'instance type of the stage')
    .option('-i, --input <name=value>', 'bind an input (repeatable; an empty value unbinds it)', collect, [])
    .option('--executable <executable>', 'run another applet or app in this stage')
    .option('--force', 'with --executable: even if bound or linked fields do not fit the new executable')
    .action(
      async (
        workflowSpec: string,
        stageRef: string,
        options: { name?: string; folder?: string; instanceType?: string; input: string[]; executable?: string; force?: boolean },
      ) => {
        const ctx = connect();
        if (options.force && !options.executable) throw new UsageError('--force goes with --executable');
        if (options.executable) {
          const executable = await executableRef(ctx, options.executable);
          await editWorkflow(ctx, workflowSpec, async (workflow) =>
            ctx.client.call('workflow-xxxx/updateStageExecutable', workflow.id, {
              editVersion: workflow.editVersion,
              stage: findStage(workflow, stageRef).id,
              executable,
              ...(options.force ? { force: true } : {}),
            }),
          );
        }
        const unbind = options.input.filter((pair) => pair.endsWith('=') && pair.indexOf('=') === pair.length - 1);
        const bind = options.input.filter((pair) => !unbind.includes(pair));
        if (!options.name && !options.folder && !options.instanceType && !options.input.length) {
          if (!options.executable) throw new UsageError('nothing to change: give --name, --folder, --instance-type, -i or --executable');
          return;
        }
        await editWorkflow(ctx, workflowSpec, async (workflow) => {
          const stage = findStage(workflow, stageRef);
          const input = {
            ...(bind.length ? await boundInputs(ctx, workflow, stage.executable, bind) : {}),
            ...Object.fromEntries(unbind.map((pair) => [pair.slice(0, -1), null])),
          };
          return ctx.client.call('workflow-xxxx/update', workflow.id, {
            editVersion: workflow.editVersion,
            stages: {
              [stage.id]: {
                ...(options.name ? { name: options.name } : {}),
                ...(options.folder ? { folder: options.folder } : {}),
                ...(options.instanceType ? { systemRequirements: { '*': { instanceType: options.instanceType } } } : {}),
                ...(Object.keys(input).length ? { input } : {}),
              },
            },
          });
        });
      },
    );

  const move = program.commands.find((command) => command.name() === 'move') ?? program.command('move').description('move a part of something');
  move
    .command('stage <workflow> <stage> <index>')
    .description('move a stage (by ID, index or name) to another position (0 is the first)')
    .action(async (workflowSpec: string, stageRef: string, index: string) => {
      if (!/^\d+$/.test(index)) throw new UsageError(`the new position must be a number from 0, not "${index}"`);
      const ctx = connect();
      await editWorkflow(ctx, workflowSpec, async (workflow) =>
        ctx.client.call('workflow-xxxx/moveStage', workflow.id, {
          editVersion: workflow.editVersion,
          stage: findStage(workflow, stageRef).id,
          newIndex: Number(index),
        }),
      );
    });

  const list = program.commands.find((command) => command.name() === 'list') ?? program.command('list').description('list the parts of something');
  withJson(
    list
      .command('stages <workflow>')
      .description('the stages of a workflow, in order, with their executables, folders and bound inputs')
      .action(async (workflowSpec: string, options: { json?: boolean }) => {
        const workflow = await resolveWorkflow(connect(), workflowSpec);
        if (options.json) return printJson(workflow.stages);
        printTable(['#', 'STAGE', 'NAME', 'EXECUTABLE', 'FOLDER', 'BOUND INPUTS'], stageTable(workflow.stages));
      }),
  );

  const importCommand = program.commands.find((command) => command.name() === 'import') ?? program.command('import').description('import from a file');
  withJson(
    importCommand
      .command('workflow <file>')
      .description('create a workflow from a workflow file (panx-json: the format of apps/workflows/*.json); prints its ID')
      .option('-d, --destination <path>', 'project:/folder to create it in (default: the current folder)')
      .option('--name <name>', 'name (default: the name in the file)')
      .option('--format <format>', 'file format', 'panx-json')
      .option('--close', 'close the workflow (no more edits; it can then be copied to other projects)')
      .action(async (file: string, options: { destination?: string; name?: string; format: string; close?: boolean; json?: boolean }) => {
        const ctx = connect();
        let source: string;
        try {
          source = fs.readFileSync(file, 'utf8');
        } catch (error) {
          throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
        }
        const where = await locate(ctx, options.destination ?? '');
        const created = await ctx.client.call('workflow/import', {
          format: options.format as 'panx-json',
          source,
          project: where.project,
          folder: where.path,
          parents: true,
          ...(options.name ? { name: options.name } : {}),
          ...(options.close ? { close: true } : {}),
        });
        if (options.json) printJson(created);
        else print(created.id);
      }),
  );

  const exportCommand = program.commands.find((command) => command.name() === 'export') ?? program.command('export').description('export to a file');
  exportCommand
    .command('workflow <workflow>')
    .description('write a workflow as a workflow file (panx-json), to stdout or -o')
    .option('-o, --output <file>', 'write to this file')
    .option('--format <format>', 'file format', 'panx-json')
    .action(async (workflowSpec: string, options: { output?: string; format: string }) => {
      const ctx = connect();
      const workflow = await resolveWorkflow(ctx, workflowSpec);
      const exported = await ctx.client.call('workflow-xxxx/export', workflow.id, { format: options.format as 'panx-json', project: workflow.project });
      const text = `${JSON.stringify(exported.document, null, 2)}\n`;
      if (options.output) fs.writeFileSync(options.output, text);
      else process.stdout.write(text);
    });
}
