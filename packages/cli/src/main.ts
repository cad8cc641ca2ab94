import { CommanderError } from 'commander';
import { describeFailure } from './errors.js';
import { buildProgram } from './program.js';
import { loadSession } from './session.js';

/** Exit codes: 0 success, 1 failure (API or local), 3 usage error. */
async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed its message (or the help) already.
      return ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code) ? 0 : 3;
    }
    let server: string | undefined;
    try {
      server = loadSession().server;
    } catch {
      server = undefined;
    }
    const { message, exitCode } = describeFailure(error, server);
    process.stderr.write(`error: ${message}\n`);
    return exitCode;
  }
}

// `px ls | head`: a closed pipe ends the output, not in a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv);
