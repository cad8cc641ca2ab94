import readline from 'node:readline';
import { UsageError } from './errors.js';

/**
 * Lines of stdin when it is a pipe (`printf 'pw\n123456\n' | px login ...`): one reader for the whole
 * run, so that a second question gets the second line (a reader per question would buffer and lose it).
 */
let pipedLines: { next(): Promise<IteratorResult<string>>; close(): void } | undefined;

/** Reads one line of stdin: the whole answer when stdin is a pipe. */
async function readLine(): Promise<string> {
  if (!pipedLines) {
    const rl = readline.createInterface({ input: process.stdin, terminal: false });
    const lines = rl[Symbol.asyncIterator]();
    pipedLines = { next: () => lines.next(), close: () => rl.close() };
  }
  const line = await pipedLines.next();
  // Let the process exit even when the pipe stays open; a later question resumes reading.
  process.stdin.pause();
  if (line.done) throw new UsageError('no answer on standard input');
  return line.value;
}

/** Asks a question on the terminal and reads the answer with echo. */
export async function ask(question: string): Promise<string> {
  if (!process.stdin.isTTY) return readLine();
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await new Promise<string>((resolve) => rl.question(question, resolve));
  } finally {
    rl.close();
  }
}

/** Asks for a secret without echoing it; reads a line from stdin when it is not a terminal. */
export async function askSecret(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return readLine();
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let answer = '';
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === '\r' || char === '\n' || char === '\u0004') {
            stdin.off('data', onData);
            process.stderr.write('\n');
            resolve(answer);
            return;
          }
          if (char === '\u0003') {
            stdin.off('data', onData);
            process.stderr.write('\n');
            reject(new UsageError('cancelled'));
            return;
          }
          if (char === '\u007f' || char === '\b') answer = answer.slice(0, -1);
          else answer += char;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}

/** All of stdin, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
