import { connect, readEnvironment } from '../environment.js';
import { io } from '../io.js';
import type { Context } from '../paths.js';

/** The client and environment of a dx command. */
export function dxContext(command: string): Context {
  const environment = readEnvironment();
  return { client: connect(environment, `dx-${command}`), environment };
}

/** Prints JSON as dx --json does (indent 4). */
export function printJson(value: unknown): void {
  io().stdout.write(`${JSON.stringify(value, null, 4)}\n`);
}

export function helpRequested(argv: string[], usage: string): boolean {
  if (!argv.includes('-h') && !argv.includes('--help')) return false;
  io().stdout.write(usage);
  return true;
}
