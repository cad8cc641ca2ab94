// The process entry of the bins (bin/* → lib/run-tool.bash → here when no helper host serves the call):
// `node dist/cli.js <command> [args...]`.
import { main } from './main.js';

const [command = '', ...args] = process.argv.slice(2);
await main(command, args);
