import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';

/**
 * What a command reads and writes besides the API: its environment, working directory and standard
 * streams. A bin run as its own process uses the process's own; the helper host (host.ts) runs
 * commands inside a resident process, one invocation per job call, each with the caller's. Commands
 * therefore never touch `process.env`, `process.stdout` or relative paths directly: they ask `io()`.
 */
export interface ToolIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Standard input, opened when a command first reads it (`dx upload -`). */
  stdin(): Readable;
  /**
   * Aborted when the caller is gone (in the helper host: its connection closed, as when the job was
   * terminated): the command's API calls and downloads stop instead of running on for nobody.
   */
  readonly signal?: AbortSignal;
}

const processIo: ToolIo = {
  get env() {
    return process.env;
  },
  get cwd() {
    return process.cwd();
  },
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: () => process.stdin,
};

const current = new AsyncLocalStorage<ToolIo>();

/** The streams, environment and directory of the command running now. */
export function io(): ToolIo {
  return current.getStore() ?? processIo;
}

/** Runs `body` with `toolIo` as what `io()` answers, through every await inside it. */
export function withIo<T>(toolIo: ToolIo, body: () => Promise<T>): Promise<T> {
  return current.run(toolIo, body);
}

/** A path the user gave, relative to the command's working directory. */
export function localPath(given: string): string {
  return path.resolve(io().cwd, given);
}

/** Reads standard input whole, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io().stdin()) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
