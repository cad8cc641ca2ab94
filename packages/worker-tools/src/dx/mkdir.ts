import { parseArgs } from '../args.js';
import { io } from '../io.js';
import { ToolError, UsageError } from '../errors.js';
import { locate } from '../paths.js';
import { dxContext, helpRequested } from './context.js';

const USAGE = `usage: dx mkdir [-h] [-p] path [path ...]

Creates folders. With -p, missing parents are created too and an existing folder is not an error.
`;

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const args = parseArgs(argv, [{ names: ['-p', '--parents'], key: 'parents', kind: 'flag' }]);
  if (!args.positionals.length) throw new UsageError('usage: dx mkdir [-p] path [path ...]');
  const ctx = dxContext('mkdir');
  let failed = 0;
  for (const spec of args.positionals) {
    const { container, path } = await locate(ctx, spec);
    try {
      await ctx.client.post(container, 'newFolder', { folder: path, parents: args.flag('parents') });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      io().stderr.write(`dx mkdir: ${spec}: ${(error as { type?: string }).type ? `${(error as { type: string }).type}: ` : ''}${message}\n`);
      failed++;
    }
  }
  if (failed) throw new ToolError(`${failed} of ${args.positionals.length} folders could not be created`);
  return 0;
}
