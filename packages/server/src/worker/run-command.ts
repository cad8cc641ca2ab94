import { spawn } from 'node:child_process';

export interface CommandResult {
  /** null when the command could not be started (then `stderr` says why, e.g. ENOENT). */
  status: number | null;
  stdout: string;
  stderr: string;
}

export type CommandRunner = (command: string, args: string[], env?: Record<string, string | undefined>) => Promise<CommandResult>;

/**
 * Runs a command to its end and answers its status and (the start of) its output. `env`, when given,
 * is the whole environment: a job's commands get the job's, never the server's secrets.
 */
export const runCommand: CommandRunner = (command, args, env) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: (env ?? process.env) as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < 1_000_000) stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 65_536) stderr += chunk.toString();
    });
    child.once('error', (error) => resolve({ status: null, stdout, stderr: error.message }));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
