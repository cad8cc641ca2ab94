import { PanxApiError } from '@panx/client';

/** A failure the CLI reports as one line, `error: <message>`, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Wrong arguments or options: exit code 3, like a commander parse error. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 3);
  }
}

/** The one line printed for an error, and the exit code that goes with it. */
export function describeFailure(error: unknown, server?: string): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof PanxApiError) return { message: `${error.type}: ${error.message}`, exitCode: 1 };
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (error.message === 'fetch failed' && cause) {
      return { message: `cannot reach the server${server ? ` ${server}` : ''}: ${cause.code ?? cause.message}`, exitCode: 1 };
    }
    return { message: error.message, exitCode: 1 };
  }
  return { message: String(error), exitCode: 1 };
}
