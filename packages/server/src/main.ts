import cluster from 'node:cluster';
import { createPlatform } from './app.js';
import { bootstrap } from './bootstrap.js';
import { ROLE_VARIABLE, runSupervisor } from './cluster/supervisor.js';
import { loadConfig } from './config.js';
import { missingNodeFlags } from './node-flags.js';

const config = loadConfig();

if (config.processes > 1 && cluster.isPrimary) {
  // Several processes share the port: this one only supervises them (cluster/supervisor.ts).
  runSupervisor(config.processes, (message) => process.stderr.write(`panx: ${message}\n`));
} else {
  await serve();
}

async function serve(): Promise<void> {
  // An API-only process of a cluster: no engine, no background work, no bootstrap (the leader's).
  const apiOnly = process.env[ROLE_VARIABLE] === 'api';
  const platform = await createPlatform(apiOnly ? { ...config, background: false, engine: { ...config.engine, enabled: false } } : config);
  const admin = apiOnly ? undefined : await bootstrap(platform);
  await platform.http.listen({ port: config.port, host: config.host });
  const missing = missingNodeFlags();
  if (missing.length) {
    platform.log.warn(
      { missing },
      `started without the Node options the server is meant to run with (node ${missing.join(' ')} packages/server/dist/main.js): large uploads will cost more CPU; see docs/OPERATIONS.md`,
    );
  }

  if (admin) {
    const line = '-'.repeat(72);
    process.stdout.write(
      `\n${line}\n Panx is running at ${config.publicUrl}/panx\n` +
        ` API:            ${config.publicUrl}  (docs: ${config.publicUrl}/api-docs)\n` +
        ` Storage:        ${config.databaseUrl ? 'PostgreSQL' : `SQLite ${config.sqlitePath}`} + ${config.s3 ? `S3 bucket ${config.s3.bucket}` : `blobs in ${config.blobDir}`}\n` +
        (config.processes > 1 ? ` Processes:      ${config.processes} (node:cluster; this leader runs the engine)\n` : '') +
        ` Administrator:  ${admin.username} / ${admin.password}\n` +
        ` API token:      ${admin.token}\n` +
        ` CLI:            px login --server ${config.publicUrl} --token <API token>\n${line}\n\n`,
    );
  }

  let closing = false;
  const shutDown = (why: string) => {
    if (closing) return;
    closing = true;
    platform.log.info({ why }, 'shutting down');
    void platform.close().then(() => process.exit(0));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => shutDown(signal));
  // A cluster process whose supervisor is gone would hold the port with nobody to hand it connections.
  if (cluster.isWorker) process.once('disconnect', () => shutDown('the supervisor is gone'));
}
