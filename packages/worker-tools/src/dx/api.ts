import { UsageError } from '../errors.js';
import { dxContext, helpRequested, printJson } from './context.js';

const USAGE = `usage: dx api [-h] [--input FILE] resource method [input_json]

Calls an API route directly, e.g. dx api file-xxxx describe '{"fields": {"name": true}}', and prints
the answer as JSON.
`;

export async function run(argv: string[]): Promise<number> {
  if (helpRequested(argv, USAGE)) return 0;
  const [subject, method, input, ...extra] = argv;
  if (!subject || !method || extra.length) throw new UsageError('usage: dx api resource method [input_json]');
  let body: unknown = {};
  if (input !== undefined) {
    try {
      body = JSON.parse(input);
    } catch {
      throw new UsageError(`the input is not JSON: ${input}`);
    }
  }
  printJson(await dxContext('api').client.post(subject, method, body));
  return 0;
}
