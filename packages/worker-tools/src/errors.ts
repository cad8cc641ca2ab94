/** A failure reported as one line, `<command>: <message>`, with its exit code (1 unless said otherwise). */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Wrong arguments: exit code 2, as argparse does. */
export class UsageError extends ToolError {
  constructor(message: string) {
    super(message, 2);
  }
}
