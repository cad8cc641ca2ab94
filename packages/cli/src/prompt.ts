import readline from 'node:readline';
import { UsageError } from './errors.js';

/** Reads one line of stdin: the whole answer when stdin is a pipe (`echo pw | px login ...`). */
function readLine(): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) reject(new UsageError('no answer on standard input'));
    });
  });
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
