import fs from 'node:fs';
import path from 'node:path';
import type { Platform } from './app.js';
import { bundledAppsEnabled, loadAppCatalogue } from './demo/app-catalogue.js';
import { loadDemoData } from './demo/demo-data.js';
import { loadDemoWorkflows } from './demo/demo-workflows.js';
import { newSecret } from './lib/ids.js';

export interface AdminCredentials {
  username: string;
  password: string;
  token: string;
}

/**
 * First start: an administrator (with the configured or a generated password and API token) and a
 * demo project. Generated credentials are kept in `<dataDir>/admin-credentials.json` (mode 600) so
 * that every start can print them; configured ones are never written to disk.
 */
export async function bootstrap(platform: Platform): Promise<AdminCredentials> {
  const { config, services, stores } = platform;
  const now = Date.now();
  const file = path.join(config.dataDir, 'admin-credentials.json');
  const saved = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<AdminCredentials>) : {};
  const username = config.admin.username;
  const password = config.admin.password ?? saved.password ?? newSecret(12);
  const token = config.admin.token ?? saved.token ?? newSecret();
  const adminId = `user-${username}`;

  if (!(await stores.users.findById(adminId))) {
    await services.users.create(
      { userId: adminId, tokenId: 'bootstrap', tokenKind: 'api', isAdmin: true, scope: null },
      { username, email: config.admin.email, first: 'Panx', last: 'Administrator', password, admin: true },
      now,
    );
    if (!config.admin.password || !config.admin.token) {
      fs.writeFileSync(
        file,
        JSON.stringify({ username, password: config.admin.password ? undefined : password, token: config.admin.token ? undefined : token }, null, 2),
        { mode: 0o600 },
      );
    }
  }
  await services.auth.registerKnownToken(adminId, token, 'administrator token (bootstrap)', now);

  if (config.createDemoProject) {
    const caller = { userId: adminId, tokenId: 'bootstrap', tokenKind: 'api' as const, isAdmin: true, scope: null };
    const existing = await services.projects.find(caller, { name: 'Demo project', limit: 1 });
    if (!existing.results.length) {
      const { id } = await services.projects.create(caller, { name: 'Demo project', summary: 'A project to try Panx with', tags: ['demo'] }, now);
      for (const folder of ['/reads', '/reference', '/results']) await services.folders.newFolder(caller, id, { folder, parents: true });
      await services.objects.create(
        caller,
        { project: id, name: 'sample-sheet', folder: '/', details: { samples: ['NA12878', 'NA12891', 'NA12892'] }, types: ['SampleSheet'], close: true },
        { cls: 'record', state: 'closed' },
        now,
      );
      // The synthetic genome (reference, read pairs, planted SNPs) that the germline workflow runs on.
      await loadDemoData(services, caller, id, {}, now);
    }
  }
  // The genomics apps of apps/ (fastp, bwa_mem, ...): added to the app catalogue when missing.
  if (bundledAppsEnabled(config.createDemoProject)) {
    const caller = { userId: adminId, tokenId: 'bootstrap', tokenKind: 'api' as const, isAdmin: true, scope: null };
    await loadAppCatalogue(services, caller, { log: platform.log, now });
    // The workflows of apps/workflows (the germline workflow), built from those apps in the demo project.
    const demo = config.createDemoProject ? (await services.projects.find(caller, { name: 'Demo project', limit: 1 })).results[0] : undefined;
    if (demo) await loadDemoWorkflows(services, caller, demo.id, { log: platform.log, now });
  }
  return { username, password: config.admin.password ? '(as configured in PANX_ADMIN_PASSWORD)' : password, token };
}
