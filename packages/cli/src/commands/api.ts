import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { printJson } from '../output.js';
import { readStdin } from '../prompt.js';
import { connect } from '../session.js';

export function registerApiCommand(program: Command): void {
  program
    .command('api <subject> <method> [input]')
    .description('call any API route and print the JSON answer, e.g. px api file-xxxx describe \'{"fields":{"parts":true}}\'')
    .addHelpText('after', '\nThe input is a JSON object, or "-" to read it from standard input (default: {}).')
    .action(async (subject: string, method: string, input: string | undefined) => {
      const text = input === '-' ? await readStdin() : (input ?? '{}');
      let body: unknown;
      try {
        body = text.trim() ? JSON.parse(text) : {};
      } catch (error) {
        throw new UsageError(`the input is not valid JSON: ${(error as Error).message}`);
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new UsageError('the input must be a JSON object');
      const { client } = connect({ requireToken: false });
      printJson(await client.post(subject.replace(/^\/+/, ''), method, body));
    });
}
