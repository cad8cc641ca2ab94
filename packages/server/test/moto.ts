import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
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
  const port = await freePort();
  const child = spawn('python3', ['-c', MOTO_UNTIL_STDIN_CLOSES, '-H', '127.0.0.1', '-p', String(port)], { stdio: ['pipe', 'ignore', 'ignore'] });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      const response = await fetch(endpoint);
      if (response.status < 500) break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (i === 99) throw new Error('moto did not start');
  }
  moto = { process: child, endpoint };
  process.once('exit', () => child.kill());
  return endpoint;
}
