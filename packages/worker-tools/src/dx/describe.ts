import { parseArgs } from '../args.js';
import { io } from '../io.js';
import { UsageError } from '../errors.js';
import { DATA_OBJECT_ID, ENTITY_ID } from '../links.js';
import { describeText } from '../format.js';
import { describeById, requireOne, resolveContainer, resolvePath, splitProjectPath } from '../paths.js';
import { dxContext, helpRequested, printJson } from './context.js';

const USAGE = `usage: dx describe [-h] [--json] [--name] path

Describes a data object (by path or ID), or any entity by ID (project-, container-, job-, user-...).
  --json   print the describe output as JSON
  --name   print only the name
`;

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const args = parseArgs(argv, [
    { names: ['--json'], key: 'json', kind: 'flag' },
    { names: ['--name'], key: 'name', kind: 'flag' },
    { names: ['--details'], key: 'details', kind: 'flag' },
    { names: ['--verbose', '-v'], key: 'verbose', kind: 'flag' },
  ]);
  if (args.positionals.length !== 1) throw new UsageError('usage: dx describe [--json] path');
  const spec = args.positionals[0] as string;
  const ctx = dxContext('describe');
  const { projectSpec, path } = splitProjectPath(spec);
  const options = { properties: true, details: true };
  let described: Record<string, unknown>;
  if (!projectSpec && ENTITY_ID.test(path) && !DATA_OBJECT_ID.test(path)) described = (await ctx.client.post(path, 'describe', {})) as Record<string, unknown>;
  else if (DATA_OBJECT_ID.test(path.replace(/^\/+/, ''))) {
    const container = projectSpec ? await resolveContainer(ctx.client, projectSpec) : undefined;
    described = await describeById(ctx, path.replace(/^\/+/, ''), container, options);
  } else {
    const object = requireOne(await resolvePath(ctx, spec), spec);
    described = await describeById(ctx, object.id, object.project, options);
  }
  if (args.flag('json')) printJson(described);
  else if (args.flag('name')) io().stdout.write(`${String(described.name ?? '')}\n`);
  else io().stdout.write(describeText(described));
  return 0;
}
