import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

/**
 * Ports below Linux's ephemeral range (32768-60999): a port the kernel hands out for listen(0) is also
 * one it hands out as the local end of outgoing connections, and the tests open many (PostgreSQL, moto,
 * the API). Between choosing such a port and a server listening on it, one of those connections took
 * it (EADDRINUSE in CI); a port chosen below the range can only collide with another listener, which
 * the trial bind below detects.
 */
const PORT_RANGE = { first: 20000, last: 32767 };

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 that nothing listens on, outside the range the kernel uses for outgoing connections. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.first + Math.floor(Math.random() * (PORT_RANGE.last - PORT_RANGE.first + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${PORT_RANGE.first} and ${PORT_RANGE.last}`);
}

/** Whether an error is a listen on a port something else took first. */
export function isAddressInUse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EADDRINUSE';
}

let moto: { process: ChildProcess; endpoint: string } | undefined;

/**
 * moto's server, run so that it ends with this process however that ends: it exits when its standard
 * input closes. Vitest kills its worker processes without running their 'exit' handlers, which left a
 * moto server behind per test file that used S3 (45 after one CI run), each holding memory and a
 * little CPU on a machine that CI shares.
 */
const MOTO_UNTIL_STDIN_CLOSES = `import os, sys, threading
def watch():
    sys.stdin.buffer.read()
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from moto.server import main
main(sys.argv[1:])
`;

/** Starts one real moto S3 server for this test process (moto is preinstalled; see docs/OPERATIONS.md). */
export async function startMoto(): Promise<string> {
  if (moto) return moto.endpoint;
  // Another process may take the port between the trial bind and moto's own: moto then exits, and a
  // new port is tried. Only an S3 bucket listing counts as moto's answer (another test's server, on a
  // port taken meanwhile, answers too, and would otherwise be taken for moto).
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn('python3', ['-c', MOTO_UNTIL_STDIN_CLOSES, '-H', '127.0.0.1', '-p', String(port)], { stdio: ['pipe', 'ignore', 'ignore'] });
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    const endpoint = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && !exited; i++) {
      try {
        const response = await fetch(endpoint);
        const isS3 = response.status === 200 && (await response.text()).includes('<ListAllMyBucketsResult');
        if (isS3 && !exited) {
          moto = { process: child, endpoint };
          process.once('exit', () => child.kill());
          return endpoint;
        }
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill();
    if (attempt === 3) throw new Error(exited ? 'moto exited on start three times' : 'moto did not start');
  }
}
