import { Readable } from 'node:stream';
import { io } from '../io.js';
import { pipeline } from 'node:stream/promises';
import { downloadUrl } from '@panx/client/transfer';
import { ToolError, UsageError } from '../errors.js';
import { type Context, requireOne, resolvePath } from '../paths.js';
import { dxContext, helpRequested } from './context.js';

const USAGE = `usage: dx cat [-h] path [path ...]

Prints the contents of files (paths or IDs).
`;

/** Streams one file's bytes to stdout. */
export async function catFile(ctx: Context, spec: string): Promise<void> {
  const object = requireOne(await resolvePath(ctx, spec), spec, 'file');
  const { url, headers } = await downloadUrl(ctx.client, { id: object.id, project: object.project || undefined });
  const response = await fetch(url, { headers, signal: io().signal });
  if (!response.ok || !response.body) throw new ToolError(`GET of ${object.id} failed with HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>), io().stdout, { end: false });
}

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  if (!argv.length) throw new UsageError('usage: dx cat path [path ...]');
  const ctx = dxContext('cat');
  for (const spec of argv) await catFile(ctx, spec);
  return 0;
}
