import { isApiError } from '@panx/client';
import type { Command } from 'commander';
import { parseLevel } from '../contract.js';
import { CliError, UsageError } from '../errors.js';
import { note, print, printJson, printTable, withJson } from '../output.js';
import { collectPages, displayPath, locate, resolveProject } from '../paths.js';
import { ask } from '../prompt.js';
import { connect, requireProject, updateConfig } from '../session.js';

type Grantable = 'VIEW' | 'UPLOAD' | 'CONTRIBUTE' | 'ADMINISTER';

/** `bob` → `user-bob`; org IDs, user IDs and e-mail addresses stay as they are. */
export function normalizeInvitee(value: string): string {
  if (value.includes('@') || value.startsWith('user-') || value.startsWith('org-')) return value;
  return `user-${value}`;
}

function warnIfProjectOverridden(): void {
  if (process.env.PANX_PROJECT) note('note: PANX_PROJECT is set and takes precedence over the saved project');
}

export function registerProjectCommands(program: Command): void {
  program
    .command('select [project]')
    .description('choose the current project by name or ID; without one, list your projects (and ask which on a terminal)')
    .option('--level <level>', 'list only projects where you have at least this level', 'VIEW')
    .action(async (spec: string | undefined, options: { level: string }) => {
      const { client } = connect();
      let chosen: { id: string; name: string } | undefined;
      if (spec) chosen = await resolveProject(client, spec);
      else {
        const level = await parseLevel(options.level);
        const projects = await collectPages((starting) =>
          client.call('system/findProjects', { describe: { fields: { name: true } }, level, limit: 1000, ...(starting ? { starting } : {}) }),
        );
        const rows = projects.map((project, i) => [String(i + 1), nameOf(project.describe, project.id), project.id, project.level]);
        if (!rows.length) return note('You have no projects yet: create one with px new project NAME');
        printTable(['#', 'NAME', 'ID', 'LEVEL'], rows);
        if (!process.stdin.isTTY) return;
        const answer = (await ask('Pick a numbered choice (or press Enter to keep the current project): ')).trim();
        if (!answer) return;
        const picked = projects[Number(answer) - 1];
        if (!/^\d+$/.test(answer) || !picked) throw new UsageError(`"${answer}" is not one of the numbers listed`);
        chosen = { id: picked.id, name: nameOf(picked.describe, picked.id) };
      }
      updateConfig((config) => ({ ...config, project: chosen.id, projectName: chosen.name, cwd: '/' }));
      warnIfProjectOverridden();
      print(`Selected project ${chosen.name} (${chosen.id})`);
    });

  program
    .command('pwd')
    .description('print the current project and folder, as project:/folder')
    .action(() => {
      const { session } = connect({ requireToken: false });
      const project = requireProject(session);
      print(`${session.projectName ?? project}:${session.cwd ?? '/'}`);
    });

  program
    .command('cd [folder]')
    .description('change the current folder (relative, absolute, or project:/folder to switch project too); no argument: the root')
    .action(async (spec: string | undefined) => {
      const ctx = connect();
      const location = await locate(ctx, spec ?? '/');
      try {
        await ctx.client.call('project-xxxx/listFolder', location.project, { folder: location.path, only: 'folders', describe: false });
      } catch (error) {
        if (isApiError(error, 'ResourceNotFound')) throw new CliError(`ResourceNotFound: no folder ${displayPath(location)}`);
        throw error;
      }
      updateConfig((config) => ({
        ...config,
        project: location.project,
        projectName: location.projectName ?? (config.project === location.project ? config.projectName : undefined),
        cwd: location.path,
      }));
      if (location.explicitProject) warnIfProjectOverridden();
    });

  const create = program.command('new').description('create a project');
  withJson(
    create
      .command('project <name>')
      .description('create a project (you get ADMINISTER) and print its ID')
      .option('--bill-to <id>', 'bill to this org (org-xxxx) or user instead of yourself')
      .option('-s, --select', 'make it the current project')
      .action(async (name: string, options: { billTo?: string; select?: boolean; json?: boolean }) => {
        const { client } = connect();
        const { id } = await client.call('project/new', { name, ...(options.billTo ? { billTo: options.billTo } : {}) });
        if (options.select) {
          updateConfig((config) => ({ ...config, project: id, projectName: name, cwd: '/' }));
          warnIfProjectOverridden();
        }
        if (options.json) printJson({ id, name });
        else print(id);
      }),
  );

  program
    .command('invite <invitee> <projectOrLevel> [level]')
    .usage('<user|org|email> [project] LEVEL')
    .description('share a project (default: the current one) with a user, an org or an e-mail address at a level (VIEW, UPLOAD, CONTRIBUTE, ADMINISTER)')
    .option('--no-email', 'do not send the invitee an e-mail')
    .action(async (invitee: string, projectOrLevel: string, levelArg: string | undefined, options: { email: boolean }) => {
      const ctx = connect();
      const level = (await parseLevel(levelArg ?? projectOrLevel, { grantable: true })) as Grantable;
      const project = levelArg ? (await resolveProject(ctx.client, projectOrLevel.replace(/:$/, ''))).id : requireProject(ctx.session);
      const who = normalizeInvitee(invitee);
      const result = await ctx.client.call('project-xxxx/invite', project, { invitee: who, level, suppressEmailNotification: !options.email });
      print(`Invited ${who} to ${project} with ${level} access (${result.state})`);
    });

  program
    .command('uninvite <member> [project]')
    .description("revoke a user's or org's access to a project (default: the current one)")
    .action(async (member: string, projectSpec: string | undefined) => {
      const ctx = connect();
      const project = projectSpec ? (await resolveProject(ctx.client, projectSpec.replace(/:$/, ''))).id : requireProject(ctx.session);
      const who = normalizeInvitee(member);
      await ctx.client.call('project-xxxx/decreasePermissions', project, { [who]: null });
      print(`Revoked the access of ${who} to ${project}`);
    });
}

export function nameOf(describe: unknown, fallback: string): string {
  const name = describe && typeof describe === 'object' ? (describe as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : fallback;
}
