import { createPlatform } from './app.js';
import { bootstrap } from './bootstrap.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const platform = await createPlatform(config);
const admin = await bootstrap(platform);
await platform.http.listen({ port: config.port, host: config.host });

const line = '-'.repeat(72);
process.stdout.write(
  `\n${line}\n Panx is running at ${config.publicUrl}/panx\n` +
    ` API:            ${config.publicUrl}  (docs: ${config.publicUrl}/api-docs)\n` +
    ` Storage:        ${config.databaseUrl ? 'PostgreSQL' : `SQLite ${config.sqlitePath}`} + ${config.s3 ? `S3 bucket ${config.s3.bucket}` : `blobs in ${config.blobDir}`}\n` +
    ` Administrator:  ${admin.username} / ${admin.password}\n` +
    ` API token:      ${admin.token}\n` +
    ` CLI:            px login --server ${config.publicUrl} --token <API token>\n${line}\n\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    platform.log.info({ signal }, 'shutting down');
    void platform.close().then(() => process.exit(0));
  });
}
