import { isApiError } from '@panx/client';
import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { formatBytes, formatTime, print, printFields, printJson, withJson } from '../output.js';
import { CONTAINER_ID, type ObjectInfo, type ProjectRef, requireObjects, resolvePath, resolveProject, splitProjectPath } from '../paths.js';
import { type Context, connect, loadConfig, updateConfig } from '../session.js';

/** `project-xxxx` or `name:` (nothing after the colon) names a project rather than a path in it. */
async function projectTarget(ctx: Context, spec: string): Promise<ProjectRef | undefined> {
  if (CONTAINER_ID.test(spec)) return resolveProject(ctx.client, spec);
  const { projectSpec, path } = splitProjectPath(spec);
  if (projectSpec && path === '') return resolveProject(ctx.client, projectSpec);
  return undefined;
}

async function objectTargets(ctx: Context, spec: string, all: boolean | undefined): Promise<ObjectInfo[]> {
  return requireObjects(await resolvePath(ctx, spec), spec, { allowMany: all });
}

const LABELS: Record<string, string> = {
  id: 'ID',
  class: 'Class',
  project: 'Project',
  folder: 'Folder',
  name: 'Name',
  state: 'State',
  hidden: 'Hidden',
  types: 'Types',
  tags: 'Tags',
  properties: 'Properties',
  details: 'Details',
  size: 'Size',
  media: 'Media type',
  archivalState: 'Archival state',
  links: 'Outgoing links',
  summary: 'Summary',
  description: 'Description',
  billTo: 'Billed to',
  level: 'Access level',
  region: 'Region',
  protected: 'Protected',
  restricted: 'Restricted',
  downloadRestricted: 'Download restricted',
  containsPHI: 'Contains PHI',
  dataUsage: 'Data usage (GB)',
  handle: 'Handle',
  fullName: 'Full name',
  email: 'E-mail',
  admin: 'Administrator',
  disabled: 'Disabled',
  created: 'Created',
  createdBy: 'Created by',
  modified: 'Last modified',
};

function formatValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return '-';
  if ((key === 'created' || key === 'modified' || key.endsWith('Time')) && typeof value === 'number') return formatTime(value);
  if (key === 'size' && typeof value === 'number') return `${formatBytes(value)} (${value} bytes)`;
  if (key === 'createdBy' && typeof value === 'object') return Object.values(value as Record<string, unknown>).join(' via ') || '-';
  if (key === 'properties' && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(', ') : '-';
  }
  if (Array.isArray(value)) return value.length ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ') : '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Every field of a describe, the well-known ones first with readable labels. */
export function describeFields(described: Record<string, unknown>): [string, string][] {
  const known = Object.keys(LABELS).filter((key) => key in described);
  const rest = Object.keys(described)
    .filter((key) => !(key in LABELS))
    .sort();
  return [...known, ...rest].map((key) => [LABELS[key] ?? key, formatValue(key, described[key])]);
}

/** IDs of entities that are neither data objects nor projects: users, orgs, apps, jobs, ... */
const OTHER_ENTITY_ID = /^((user|org|app|globalworkflow)-[a-z0-9][a-z0-9._]*(\/[^/:]+)?|(job|analysis|container)-[0-9A-Za-z]{24})$/;

async function describeAny(ctx: Context, spec: string): Promise<Record<string, unknown>[]> {
  const project = await projectTarget(ctx, spec);
  if (project) return [(await ctx.client.call('project-xxxx/describe', project.id, {})) as Record<string, unknown>];
  if (OTHER_ENTITY_ID.test(spec)) {
    return [(await ctx.client.post(spec, 'describe', {})) as Record<string, unknown>];
  }
  let objects: ObjectInfo[] = [];
  let isFolder = false;
  try {
    const resolution = await resolvePath(ctx, spec);
    objects = resolution.objects;
    isFolder = resolution.isFolder;
  } catch (error) {
    // Without a selected project a bare word can still name a project.
    if (!(error instanceof CliError) || spec.includes('/')) throw error;
  }
  if (objects.length) {
    const described: Record<string, unknown>[] = [];
    for (const object of objects) {
      described.push((await ctx.client.post(object.id, 'describe', { project: object.project, properties: true, details: true })) as Record<string, unknown>);
    }
    return described;
  }
  if (!spec.includes('/') && !spec.includes(':')) {
    try {
      const byName = await resolveProject(ctx.client, spec);
      return [(await ctx.client.call('project-xxxx/describe', byName.id, {})) as Record<string, unknown>];
    } catch (error) {
      if (!(error instanceof CliError) && !isApiError(error, 'ResourceNotFound')) throw error;
    }
  }
  if (isFolder) throw new CliError(`"${spec}" is a folder: px ls shows what it holds`);
  throw new CliError(`ResourceNotFound: nothing named "${spec}" (no data object, project or ID)`);
}

function parseProperties(pairs: string[]): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const pair of pairs) {
    const cut = pair.indexOf('=');
    if (cut <= 0) throw new UsageError(`"${pair}" is not key=value`);
    properties[pair.slice(0, cut)] = pair.slice(cut + 1);
  }
  return properties;
}

type Change =
  | { kind: 'addTags' | 'removeTags'; tags: string[] }
  | { kind: 'setProperties'; properties: Record<string, string | null> }
  | { kind: 'rename'; name: string };

async function applyChange(ctx: Context, spec: string, change: Change, all?: boolean): Promise<void> {
  const project = await projectTarget(ctx, spec);
  if (project) {
    if (change.kind === 'rename') {
      await ctx.client.call('project-xxxx/update', project.id, { name: change.name });
      if (project.id === loadConfig().project) updateConfig((config) => ({ ...config, projectName: change.name }));
    } else if (change.kind === 'setProperties') await ctx.client.call('project-xxxx/setProperties', project.id, { properties: change.properties });
    else await ctx.client.call(`project-xxxx/${change.kind}`, project.id, { tags: change.tags });
    return;
  }
  if (change.kind === 'rename') {
    const resolution = await resolvePath(ctx, spec);
    if (!resolution.objects.length && resolution.isFolder) {
      if (resolution.path === '/') throw new CliError('the root folder cannot be renamed');
      await ctx.client.call('project-xxxx/renameFolder', resolution.project, { folder: resolution.path, name: change.name });
      return;
    }
    const [object] = requireObjects(resolution, spec) as [ObjectInfo];
    await ctx.client.post(object.id, 'rename', { project: object.project, name: change.name });
    return;
  }
  const { kind, ...body } = change;
  for (const object of await objectTargets(ctx, spec, all)) await ctx.client.post(object.id, kind, { project: object.project, ...body });
}

export function registerMetadataCommands(program: Command): void {
  withJson(
    program
      .command('describe <target>')
      .description('describe a data object (path, name or ID), a project (name or ID) or any other entity ID (user-x, org-x)')
      .action(async (spec: string, options: { json?: boolean }) => {
        const ctx = connect();
        const described = await describeAny(ctx, spec);
        if (options.json) return printJson(described.length === 1 ? described[0] : described);
        const { printStagesOf, withoutStages } = await import('./workflows.js');
        described.forEach((entry, i) => {
          if (i) print();
          printFields(describeFields(withoutStages(entry)));
          // Workflows and analyses: their stages as a table.
          printStagesOf(entry);
        });
      }),
  );

  program
    .command('tag <target> <tags...>')
    .description('add tags to a data object (path, name or ID) or a project (project-xxxx, or name:)')
    .option('-a, --all', 'tag every object the name matches')
    .action((spec: string, tags: string[], options: { all?: boolean }) => applyChange(connect(), spec, { kind: 'addTags', tags }, options.all));

  program
    .command('untag <target> <tags...>')
    .description('remove tags from a data object or a project')
    .option('-a, --all', 'untag every object the name matches')
    .action((spec: string, tags: string[], options: { all?: boolean }) => applyChange(connect(), spec, { kind: 'removeTags', tags }, options.all));

  program
    .command('set_properties <target> <properties...>')
    .usage('<target> key=value...')
    .description('set properties (key=value) on a data object or a project')
    .option('-a, --all', 'change every object the name matches')
    .action((spec: string, pairs: string[], options: { all?: boolean }) =>
      applyChange(connect(), spec, { kind: 'setProperties', properties: parseProperties(pairs) }, options.all),
    );

  program
    .command('unset_properties <target> <keys...>')
    .description('remove properties from a data object or a project')
    .option('-a, --all', 'change every object the name matches')
    .action((spec: string, keys: string[], options: { all?: boolean }) =>
      applyChange(connect(), spec, { kind: 'setProperties', properties: Object.fromEntries(keys.map((key) => [key, null])) }, options.all),
    );

  program
    .command('rename <target> <name>')
    .description('rename a data object, a folder (last segment) or a project (project-xxxx, or name:)')
    .action((spec: string, name: string) => {
      if (name.includes('/')) throw new UsageError('the new name must not contain "/": use px mv to move');
      return applyChange(connect(), spec, { kind: 'rename', name });
    });
}
