import { parseArgs } from '../args.js';
import { io } from '../io.js';
import { UsageError } from '../errors.js';
import { LS_FIELDS, type LsDescribe, lsLine } from '../format.js';
import { collectPages, locate, resolveContainer } from '../paths.js';
import { dxContext, helpRequested, printJson } from './context.js';

const USAGE = `usage: dx find data [-h] [--class CLASS] [--state STATE] [--visibility {hidden,visible,either}]
                    [--name NAME] [--type TYPE] [--tag TAG] [--property KEY[=VALUE]]
                    [--path PROJECT:FOLDER | --folder FOLDER] [--project PROJECT] [--norecurse]
                    [--all-projects] [--brief | --json]

Finds data objects, by default in the whole current container (the workspace inside a job). --name
takes a glob (* and ?). Prints one line per object (state, modified, size, path and ID); --brief
prints project-xxxx:object-xxxx, --json the results with their describe.
`;

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const [what, ...rest] = argv;
  if (what !== 'data') throw new UsageError('only "dx find data" is available in Panx jobs');
  const args = parseArgs(rest, [
    { names: ['--class'], key: 'class', kind: 'value' },
    { names: ['--state'], key: 'state', kind: 'value' },
    { names: ['--visibility'], key: 'visibility', kind: 'value' },
    { names: ['--name'], key: 'name', kind: 'value' },
    { names: ['--name-mode'], key: 'nameMode', kind: 'value' },
    { names: ['--type'], key: 'type', kind: 'value' },
    { names: ['--tag'], key: 'tag', kind: 'list' },
    { names: ['--property'], key: 'property', kind: 'list' },
    { names: ['--path'], key: 'path', kind: 'value' },
    { names: ['--folder'], key: 'folder', kind: 'value' },
    { names: ['--project'], key: 'project', kind: 'value' },
    { names: ['--norecurse'], key: 'norecurse', kind: 'flag' },
    { names: ['--all-projects', '--allprojects'], key: 'allProjects', kind: 'flag' },
    { names: ['--brief'], key: 'brief', kind: 'flag' },
    { names: ['--json'], key: 'json', kind: 'flag' },
  ]);
  if (args.positionals.length) throw new UsageError(`unrecognized arguments: ${args.positionals.join(' ')}`);
  const ctx = dxContext('find');
  const query: Record<string, unknown> = { visibility: args.value('visibility') ?? 'visible' };
  const cls = args.value('class');
  if (cls) query.class = cls;
  const state = args.value('state');
  if (state) query.state = state;
  const type = args.value('type');
  if (type) query.type = type;
  const name = args.value('name');
  if (name !== undefined) {
    const mode = args.value('nameMode') ?? 'glob';
    query.name = mode === 'exact' ? name : mode === 'regexp' ? { regexp: name } : /[*?]/.test(name) ? { glob: name } : name;
  }
  const tags = args.list('tag');
  if (tags.length) query.tags = tags.length === 1 ? tags[0] : { $and: tags };
  const properties = args.list('property');
  if (properties.length) {
    const entries = properties.map((pair) => {
      const cut = pair.indexOf('=');
      return cut < 0 ? { [pair]: true } : { [pair.slice(0, cut)]: pair.slice(cut + 1) };
    });
    query.properties = entries.length === 1 ? entries[0] : { $and: entries };
  }
  if (!args.flag('allProjects')) {
    const scope: Record<string, unknown> = {};
    const pathSpec = args.value('path');
    if (pathSpec !== undefined) {
      const location = await locate(ctx, pathSpec);
      scope.project = location.container;
      scope.folder = location.path;
    } else {
      const project = args.value('project');
      scope.project = project ? await resolveContainer(ctx.client, project.replace(/:$/, '')) : (await locate(ctx, '/')).container;
      const folder = args.value('folder');
      if (folder !== undefined) scope.folder = folder;
    }
    if (args.flag('norecurse')) scope.recurse = false;
    query.scope = scope;
  }
  type Hit = { project: string; id: string; describe?: LsDescribe };
  const results = await collectPages(
    (starting) =>
      ctx.client.post('system', 'findDataObjects', { ...query, describe: { fields: LS_FIELDS }, limit: 1000, ...(starting ? { starting } : {}) }) as Promise<{
        results: Hit[];
        next?: unknown;
      }>,
  );
  if (args.flag('json')) printJson(results);
  else if (args.flag('brief')) for (const result of results) io().stdout.write(`${result.project}:${result.id}\n`);
  else
    for (const result of results) if (result.describe) io().stdout.write(`${lsLine(result.describe, { folder: true, project: args.flag('allProjects') })}\n`);
  return 0;
}
