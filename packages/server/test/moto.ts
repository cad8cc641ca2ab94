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

/** Starts one real moto S3 server for this test process (moto is preinstalled; see docs/OPERATIONS.md). */
export async function startMoto(): Promise<string> {
  if (moto) return moto.endpoint;
  const port = await freePort();
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
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
