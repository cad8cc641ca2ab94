#!/usr/bin/env node
// The `px` command. It runs the compiled CLI; a fresh checkout has to be built first.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write(`px: the CLI is not built yet: run "npm run build" first (in ${fileURLToPath(new URL('../../..', import.meta.url))})\n`);
  process.exit(1);
}
await import(main.href);
