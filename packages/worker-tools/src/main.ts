import { PanxApiError } from '@panx/client';
import { ToolError } from './errors.js';
import { io, type ToolIo, withIo } from './io.js';

/**
 * The entry of every bin: loads only the module of the command it runs (start-up time is paid on
 * each helper call of a job script), runs it, and turns failures into one line on stderr and an exit
 * code: 1 for failures, 2 for wrong arguments (as argparse), 3 where dx uses it.
 */

export type Command = (argv: string[]) => Promise<number | undefined> | number | undefined;

const COMMANDS: Record<string, () => Promise<{ run: Command }>> = {
  dx: () => import('./commands/dx.js'),
  'dx-download-all-inputs': () => import('./commands/download-all-inputs.js'),
  'dx-upload-all-outputs': () => import('./commands/upload-all-outputs.js'),
  'dx-jobutil-add-output': () => import('./commands/add-output.js'),
  'dx-jobutil-new-job': () => import('./commands/new-job.js'),
  'dx-jobutil-report-error': () => import('./commands/report-error.js'),
  'dx-print-bash-vars': () => import('./commands/print-bash-vars.js'),
};

export function describeError(error: unknown): { message: string; exitCode: number } {
  if (error instanceof ToolError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof PanxApiError) return { message: `${error.type}: ${error.message}`, exitCode: 1 };
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (error.message === 'fetch failed' && cause) return { message: `cannot reach the API server: ${cause.code ?? cause.message}`, exitCode: 1 };
    return { message: error.message, exitCode: 1 };
  }
  return { message: String(error), exitCode: 1 };
}

/** Runs one command with the given streams and environment; answers its exit code (never throws). */
export async function runTool(command: string, argv: string[], toolIo: ToolIo): Promise<number> {
  const load = COMMANDS[command];
  if (!load) {
    toolIo.stderr.write(`${command}: not a Panx worker tool (known: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  return withIo(toolIo, async () => {
    try {
      const { run } = await load();
      return (await run(argv)) ?? 0;
    } catch (error) {
      const { message, exitCode } = describeError(error);
      toolIo.stderr.write(`${command}: ${message}\n`);
      return exitCode;
    }
  });
}

/** The entry of a bin run as its own process. */
export async function main(command: string, argv: string[] = process.argv.slice(2)): Promise<void> {
  // `dx ls | head`: a closed pipe ends the output, not in a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await runTool(command, argv, io());
}

/** The commands a job can run, for the helper host. */
export const TOOL_NAMES: readonly string[] = Object.keys(COMMANDS);
