// A helper host as a process of its own: `PANX_HELPER_KEY=<key> node dist/host-main.js <key file>`.
// The server starts one for the jobs of its local executor, so that helper calls never run on its
// event loop. It writes the key to the key file (mode 0600), prints "listening <port>" once it
// listens, and leaves when its parent does (its standard input closes).
import { startHelperHost } from './host.js';

const key = process.env.PANX_HELPER_KEY;
const keyFile = process.argv[2];
if (!key || !keyFile) {
  process.stderr.write('usage: PANX_HELPER_KEY=<key> host-main.js <key file>\n');
  process.exit(2);
}
const host = await startHelperHost({ key, keyFile });
process.stdout.write(`listening ${host.port}\n`);
process.stdin.resume();
process.stdin.on('close', () => {
  void host.close().then(() => process.exit(0));
});
process.on('SIGTERM', () => {
  void host.close().then(() => process.exit(0));
});
