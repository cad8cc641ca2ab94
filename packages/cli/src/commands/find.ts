import type { FindDataObjectsInput, PropertiesFilter } from '@panx/contract';
import type { Command } from 'commander';
import { loadContract, parseLevel } from '../contract.js';
import { UsageError } from '../errors.js';
import { printJson, printTable, withJson } from '../output.js';
import { collectPages, joinPath, normalizePath, resolveProject, toObjectInfo } from '../paths.js';
import { connect, requireProject } from '../session.js';
import { LONG_HEADERS, longRow } from './data.js';
import { nameOf } from './projects.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `--name` as DNAnexus takes it: a glob when it has wildcards, else an exact name. */
function nameFilter(name: string): FindDataObjectsInput['name'] {
  return /[*?]/.test(name) ? { glob: name } : name;
}

interface FindDataOptions {
  name?: string;
  class?: string;
  state?: string;
  tag: string[];
  property: string[];
  folder?: string;
  norecurse?: boolean;
  project?: string;
  allProjects?: boolean;
  json?: boolean;
}

function propertiesFilter(pairs: string[]): PropertiesFilter | undefined {
  if (!pairs.length) return undefined;
  const filters = pairs.map((pair): PropertiesFilter => {
    const cut = pair.indexOf('=');
    return cut < 0 ? { [pair]: true } : { [pair.slice(0, cut)]: pair.slice(cut + 1) };
  });
  return filters.length === 1 ? filters[0] : { $and: filters };
}

export function registerFindCommands(program: Command): void {
  const find = program.command('find').description('search data objects or projects');

  withJson(
    find
      .command('data')
      .description('search data objects in the current project (or --project, or --all-projects)')
      .option('--name <glob>', 'name, with * and ? as wildcards')
      .option('--class <class>', 'object class: file, record, applet, workflow or database')
      .option('--state <state>', 'open, closing or closed')
      .option('--tag <tag>', 'has this tag (repeat for several: all must match)', collect, [])
      .option('--property <key[=value]>', 'has this property (with this value); repeatable', collect, [])
      .option('--folder <folder>', 'only under this folder (relative to the current one)')
      .option('--norecurse', 'only directly in --folder, not in its subfolders')
      .option('--project <project>', 'search this project instead of the current one')
      .option('--all-projects', 'search every project you can see')
      .action(async (options: FindDataOptions) => {
        const ctx = connect();
        const { DATA_OBJECT_CLASSES } = await loadContract();
        if (options.class && !(DATA_OBJECT_CLASSES as readonly string[]).includes(options.class)) {
          throw new UsageError(`"${options.class}" is not a data object class: use one of ${DATA_OBJECT_CLASSES.join(', ')}`);
        }
        if (options.state && !['open', 'closing', 'closed'].includes(options.state)) throw new UsageError('--state is open, closing or closed');
        if (options.allProjects && (options.project || options.folder)) throw new UsageError('--all-projects cannot be combined with --project or --folder');
        let scope: FindDataObjectsInput['scope'];
        if (!options.allProjects) {
          const project = options.project ? (await resolveProject(ctx.client, options.project.replace(/:$/, ''))).id : requireProject(ctx.session);
          const sameProject = project === ctx.session.project;
          scope = {
            project,
            ...(options.folder ? { folder: normalizePath(sameProject ? (ctx.session.cwd ?? '/') : '/', options.folder) } : {}),
            recurse: !options.norecurse,
          };
        }
        const query: FindDataObjectsInput = {
          visibility: 'visible',
          describe: { fields: { id: true, class: true, name: true, folder: true, project: true, state: true, size: true, modified: true } },
          ...(scope ? { scope } : {}),
          ...(options.name ? { name: nameFilter(options.name) } : {}),
          ...(options.class ? { class: options.class as FindDataObjectsInput['class'] } : {}),
          ...(options.state ? { state: options.state as FindDataObjectsInput['state'] } : {}),
          ...(options.tag.length ? { tags: options.tag.length === 1 ? options.tag[0] : { $and: options.tag } } : {}),
          ...(options.property.length ? { properties: propertiesFilter(options.property) } : {}),
        };
        const hits = await collectPages((starting) => ctx.client.call('system/findDataObjects', { ...query, limit: 1000, ...(starting ? { starting } : {}) }));
        const objects = hits.map((hit) => toObjectInfo(hit.describe, hit));
        if (options.json) return printJson(objects);
        const label = (object: (typeof objects)[number]) => `${options.allProjects ? `${object.project}:` : ''}${joinPath(object.folder, object.name)}`;
        if (objects.length)
          printTable(
            LONG_HEADERS.map((header) => (header === 'NAME (ID)' ? 'PATH (ID)' : header)),
            objects.map((object) => longRow(object, label(object))),
          );
      }),
  );

  withJson(
    find
      .command('projects')
      .description('list the projects you can see')
      .option('--name <glob>', 'name, with * and ? as wildcards')
      .option('--level <level>', 'at least this access level (VIEW, UPLOAD, CONTRIBUTE or ADMINISTER)')
      .action(async (options: { name?: string; level?: string; json?: boolean }) => {
        const { client } = connect();
        const level = options.level ? await parseLevel(options.level) : undefined;
        const projects = await collectPages((starting) =>
          client.call('system/findProjects', {
            describe: { fields: { name: true, billTo: true, created: true } },
            ...(options.name ? { name: /[*?]/.test(options.name) ? { glob: options.name } : options.name } : {}),
            ...(level ? { level } : {}),
            limit: 1000,
            ...(starting ? { starting } : {}),
          }),
        );
        if (options.json) return printJson(projects.map((project) => ({ id: project.id, name: nameOf(project.describe, project.id), level: project.level })));
        if (projects.length)
          printTable(
            ['ID', 'NAME', 'LEVEL'],
            projects.map((project) => [project.id, nameOf(project.describe, project.id), project.level]),
          );
      }),
  );
}
