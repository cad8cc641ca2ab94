import { createClusterBus } from './cluster/cluster-bus.js';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ResolvedConfig } from './config.js';
import { type DatabaseHandle, migrate, openDatabase } from './db/database.js';
import { Stores } from './db/stores.js';
import { assertHandlersComplete, registerApiRoutes } from './http/api-router.js';
import { registerBlobRoutes } from './http/blob-routes.js';
import type { Handler } from './http/handler.js';
import { createHttpServer, registerStaticRoutes } from './http/server.js';
import { newSecret } from './lib/ids.js';
import { FreeSpaceWatch } from './lib/free-space.js';
import { createLogger } from './lib/logger.js';
import { UrlSigner } from './lib/signing.js';
import { authHandlers } from './modules/auth/auth.routes.js';
import { clientErrorHandlers } from './modules/client-errors/client-errors.routes.js';
import { communityHandlers } from './modules/communities/communities.routes.js';
import { CommunitiesService } from './modules/communities/communities.service.js';
import { ClientErrorsService } from './modules/client-errors/client-errors.service.js';
import { AuthService } from './modules/auth/auth.service.js';
import { commonObjectHandlers, dataObjectSystemHandlers } from './modules/data-objects/data-objects.routes.js';
import { DataObjectsService } from './modules/data-objects/data-objects.service.js';
import { AppletsService } from './modules/executables/applets.service.js';
import { AppsService } from './modules/executables/apps.service.js';
import { executableHandlers } from './modules/executables/executables.routes.js';
import { fileHandlers } from './modules/files/files.routes.js';
import { FilesService } from './modules/files/files.service.js';
import { InstanceTypes } from './modules/jobs/instance-types.js';
import { JobEngine } from './modules/jobs/job-engine.js';
import { JobLogsQuery } from './modules/jobs/job-log-stream.js';
import { JobLogsService } from './modules/jobs/job-logs.service.js';
import { jobSpec } from './modules/jobs/job-model.js';
import { jobHandlers } from './modules/jobs/jobs.routes.js';
import { JobsService } from './modules/jobs/jobs.service.js';
import type { JobRow } from './modules/jobs/jobs.repository.js';
import { NoncesService } from './modules/nonces/nonces.service.js';
import { notificationHandlers } from './modules/notifications/notifications.routes.js';
import { NotificationsService } from './modules/notifications/notifications.service.js';
import { orgHandlers } from './modules/orgs/orgs.routes.js';
import { OrgsService } from './modules/orgs/orgs.service.js';
import { AccessService } from './modules/projects/access.service.js';
import { FoldersService } from './modules/projects/folders.service.js';
import { projectHandlers } from './modules/projects/projects.routes.js';
import { ProjectsService } from './modules/projects/projects.service.js';
import { recordHandlers } from './modules/records/records.routes.js';
import { RecordsService } from './modules/records/records.service.js';
import { supportHandlers } from './modules/support/support.routes.js';
import { SupportService } from './modules/support/support.service.js';
import { twoFactorHandlers } from './modules/two-factor/two-factor.routes.js';
import { TwoFactorService } from './modules/two-factor/two-factor.service.js';
import { uiConfigHandlers } from './modules/ui-config/ui-config.routes.js';
import { UiConfigService } from './modules/ui-config/ui-config.service.js';
import { userHandlers } from './modules/users/users.routes.js';
import { UsersService } from './modules/users/users.service.js';
import { AnalysesService } from './modules/workflows/analyses.service.js';
import { workflowHandlers } from './modules/workflows/workflows.routes.js';
import { WorkflowsService } from './modules/workflows/workflows.service.js';
import type { Executor } from './scheduler/executors/executor.js';
import { LocalExecutor } from './scheduler/executors/local.executor.js';
import { createSlurmExecutor } from './scheduler/executors/slurm.executor.js';
import { defaultRunnerCommand, defaultWorkerToolsBin } from './scheduler/launch-spec.js';
import { Scheduler } from './scheduler/scheduler.js';
import type { BlobStore } from './storage/blob-store.js';
import { FsBlobStore } from './storage/fs.blob-store.js';
import { S3BlobStore } from './storage/s3.blob-store.js';

/** A close younger than this may still be running in another process: the periodic recovery sweep leaves it alone. */
const RECENT_CLOSE_MS = 60_000;
export interface Services {
  auth: AuthService;
  users: UsersService;
  orgs: OrgsService;
  access: AccessService;
  projects: ProjectsService;
  folders: FoldersService;
  objects: DataObjectsService;
  files: FilesService;
  uiConfig: UiConfigService;
  instanceTypes: InstanceTypes;
  applets: AppletsService;
  apps: AppsService;
  jobs: JobsService;
  jobLogs: JobLogsService;
  engine: JobEngine;
  workflows: WorkflowsService;
  analyses: AnalysesService;
  twoFactor: TwoFactorService;
  /** The job engine calls `notifications.executionFinished(event, now)` when a root execution ends. */
  notifications: NotificationsService;
  communities: CommunitiesService;
}

export interface Platform {
  config: ResolvedConfig;
  http: FastifyInstance;
  stores: Stores;
  services: Services;
  blobs: BlobStore;
  log: Logger;
  /** Runs jobs on this server (absent when the engine is disabled in the configuration). */
  scheduler: Scheduler | undefined;
  close(): Promise<void>;
}

/** The signing secret is shared by every API server of an installation; generated once into the data directory. */
function signingSecret(config: ResolvedConfig): string {
  if (config.signingSecret) return config.signingSecret;
  const file = path.join(config.dataDir, 'signing.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, newSecret(48), { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

async function openBlobStore(config: ResolvedConfig, log: Logger): Promise<BlobStore> {
  if (!config.s3) return new FsBlobStore(config.blobDir, { directIo: config.blobDirectIo });
  const store = new S3BlobStore(config.s3);
  const problem = await store.ensureBucket(new URL(config.publicUrl).origin);
  if (problem) log.warn({ bucket: config.s3.bucket }, problem);
  return store;
}

/** The composition root: configuration → database → repositories → services → HTTP. */
export async function createPlatform(config: ResolvedConfig, log: Logger = createLogger(config.logLevel)): Promise<Platform> {
  const database: DatabaseHandle = openDatabase({
    databaseUrl: config.databaseUrl,
    sqlitePath: config.sqlitePath,
    onPoolError: (error) => log.warn({ err: error }, 'an idle PostgreSQL connection was lost; the pool replaces it'),
  });
  const applied = await migrate(database);
  if (applied.length) log.info({ migrations: applied }, 'database migrated');
  const stores = new Stores(database.db, database.dialect);
  const blobs = await openBlobStore(config, log);

  // Called by services after commits that orphan blobs; `files` exists by the time any request runs.
  const onObjectsDeleted = () => void files.collectGarbage();
  // Events every process of a multi-process server must hear (a no-op in a single process).
  const bus = createClusterBus();
  const auth = new AuthService(stores, bus);
  const twoFactor = new TwoFactorService(database.db, auth, { issuer: 'Panx' });
  auth.useSecondFactor(twoFactor);
  const notifications = new NotificationsService(database.db);
  const communities = new CommunitiesService(database.db, { platformName: 'Panx' });
  const users = new UsersService(stores, { selfSignUp: config.selfSignUp, onAccountChange: () => auth.invalidateCache() });
  const access = new AccessService(stores);
  const projects = new ProjectsService(stores, access, {
    onObjectsDeleted,
    // A failed notification never fails the share itself.
    onProjectShared: (event, now) =>
      notifications.projectShared(event, now).catch((error: unknown) => log.warn({ err: error }, 'project-shared notification failed')),
  });
  const folders = new FoldersService(stores, access, { onObjectsDeleted });
  const objects = new DataObjectsService(stores, access);
  const files: FilesService = new FilesService(stores, objects, blobs, new UrlSigner(signingSecret(config)), config.publicUrl, log);
  const uiConfig = new UiConfigService({ publicUrl: config.publicUrl, selfSignUp: config.selfSignUp, overrides: config.ui });
  const nonces = new NoncesService(stores);
  const instanceTypes = new InstanceTypes(config.engine.instanceTypes);
  const applets = new AppletsService(stores, access, objects, instanceTypes);
  const apps = new AppsService(stores, folders, instanceTypes);
  const orgs = new OrgsService(stores, access, projects, users, apps);
  const jobLogs = new JobLogsService(stores, bus);
  const engine = new JobEngine(stores, auth, applets, apps, projects, jobLogs, log, {
    maxRestarts: 9,
    keepWorkDirs: config.engine.keepWorkDirs,
    delayedWorkspaceTtlMs: config.engine.delayedWorkspaceTtlHours * 3_600_000,
  });
  // The launcher of a job tree or an analysis hears when it ends. An analysis's stage jobs are roots of
  // their own trees but are not told apart: the analysis's own end is (`analyses.onFinished` below).
  const executionFinished = async (row: JobRow, now: number): Promise<void> => {
    if (row.id !== row.rootExecution || !(row.state === 'done' || row.state === 'failed' || row.state === 'terminated')) return;
    if (row.class === 'job' && jobSpec(row).analysis) return;
    await notifications.executionFinished(
      {
        id: row.id,
        name: row.name,
        state: row.state,
        project: row.project,
        launchedBy: row.launchedBy,
        failureReason: row.failureReason ?? undefined,
        failureMessage: row.failureMessage ?? undefined,
      },
      now,
    );
  };
  engine.onTerminal(executionFinished);
  const jobs = new JobsService(stores, access, objects, applets, apps, instanceTypes, engine, {
    defaultTimeoutMs: config.engine.defaultTimeoutHours * 3_600_000,
  });
  const jobLogQuery = new JobLogsQuery(jobs, jobLogs, auth, stores);
  const workflows = new WorkflowsService(stores, access, objects, jobs);
  const analyses = new AnalysesService(stores, access, jobs, engine, workflows);
  analyses.attach();
  const support = new SupportService(database.db, jobs);
  // A failed notification never fails the analysis's state change.
  analyses.onFinished((analysis, now) =>
    executionFinished(analysis, now).catch((error: unknown) => log.warn({ err: error, analysis: analysis.id }, 'execution notification failed')),
  );

  const handlers = {
    ...authHandlers(auth, users),
    ...userHandlers(users),
    ...orgHandlers(orgs),
    ...projectHandlers(projects, folders),
    ...fileHandlers(files),
    ...commonObjectHandlers(objects, 'file'),
    ...commonObjectHandlers(objects, 'record'),
    ...recordHandlers(new RecordsService(objects, access)),
    ...commonObjectHandlers(objects, 'applet'),
    ...executableHandlers(applets, apps, jobs),
    ...jobHandlers(jobs, jobLogQuery),
    ...commonObjectHandlers(objects, 'workflow'),
    ...workflowHandlers(workflows, analyses),
    ...dataObjectSystemHandlers(objects),
    ...uiConfigHandlers(uiConfig),
    ...clientErrorHandlers(new ClientErrorsService(log)),
    ...twoFactorHandlers(twoFactor),
    ...notificationHandlers(notifications),
    ...supportHandlers(support),
    ...communityHandlers(communities),
  };
  assertHandlersComplete(handlers);

  const http = createHttpServer(log, config.bodyLimitBytes);
  registerApiRoutes(http, {
    handlers: handlers as unknown as Record<string, Handler<never>>,
    auth,
    nonces,
    bodyLimit: config.bodyLimitBytes,
    validateResponses: config.validateResponses,
  });
  registerBlobRoutes(http, files);
  jobLogQuery.registerWebsocket(http);
  registerStaticRoutes(http, {
    publicUrl: config.publicUrl,
    webDir: config.webDir,
    manifest: () => uiConfig.deployManifest(),
    runtimeConfig: () => uiConfig.runtimeConfig(),
    downloadOrigin: await blobs.directDownloadOrigin(),
  });
  // The local folders written to: SQLite's and the blob store's (PostgreSQL and S3 watch their own).
  const freeSpace = new FreeSpaceWatch(
    {
      ...(database.dialect === 'sqlite' ? { database: path.dirname(config.sqlitePath) } : {}),
      ...(blobs.kind === 'local' ? { blobs: config.blobDir } : {}),
    },
    log,
  );
  http.get('/health', async () => ({ status: 'ok' }));
  http.get('/ready', async (_request, reply) => {
    try {
      await stores.users.count();
      await blobs.check();
      // Which process answered: in a server of several processes, the leader runs the engine.
      const role = config.processes > 1 ? (config.background ? 'leader' : 'api') : 'single';
      return {
        status: 'ready',
        database: database.dialect,
        blobStore: blobs.kind,
        freeBytes: await freeSpace.measure(),
        process: { pid: process.pid, role },
      };
    } catch (error) {
      return reply.code(503).send({ error: { type: 'ServiceUnavailable', message: `Not ready: ${(error as Error).message}` } });
    }
  });

  // Recovery of files left closing (and of day-old open uploads): in the leader only, in a cluster.
  let sweeper: NodeJS.Timeout | undefined;
  if (config.background) {
    // In a server of several processes, the others may be closing files while this one starts.
    await files.recover(Date.now(), { closingOlderThanMs: config.processes > 1 ? RECENT_CLOSE_MS : 0 });
    await freeSpace.check();
    sweeper = setInterval(() => {
      void files.recover(Date.now(), { closingOlderThanMs: RECENT_CLOSE_MS });
      void freeSpace.check();
    }, RECENT_CLOSE_MS);
    sweeper.unref();
  }

  let scheduler: Scheduler | undefined;
  let stopAnalysisSweeps = () => {};
  if (config.engine.enabled) {
    stopAnalysisSweeps = analyses.startSweeping(60_000);
    const executor: Executor =
      config.engine.executor === 'slurm'
        ? await createSlurmExecutor(config.engine.slurm)
        : new LocalExecutor({ cores: config.engine.local.cores, memoryMB: config.engine.local.memoryMB, oversubscribe: config.engine.local.oversubscribe });
    scheduler = new Scheduler(
      stores,
      engine,
      jobLogs,
      auth,
      access,
      executor,
      {
        serverId: config.engine.serverId ?? `${os.hostname()}:${createHash('sha256').update(config.dataDir).digest('hex').slice(0, 12)}`,
        tickMs: config.engine.tickMs,
        serverTimeoutMs: config.engine.serverTimeoutMs,
        runner: {
          apiUrl: config.engine.apiUrl ?? config.publicUrl,
          workerToolsBin: config.engine.workerToolsBin ?? defaultWorkerToolsBin(),
          workRoot: path.resolve(config.engine.workDir ?? path.join(config.dataDir, 'jobs')),
          bundledDependsRoot: config.engine.bundledDependsRoot,
          execDepends: config.engine.execDepends,
          runnerCommand: defaultRunnerCommand(),
          inline:
            config.engine.executor === 'local'
              ? config.engine.local.runner === 'inline'
              : config.engine.executor === 'slurm' && config.engine.slurm.runner === 'inline',
        },
      },
      log,
    );
    await scheduler.start();
  }

  return {
    config,
    http,
    stores,
    blobs,
    log,
    services: {
      auth,
      users,
      orgs,
      access,
      projects,
      folders,
      objects,
      files,
      uiConfig,
      instanceTypes,
      applets,
      apps,
      jobs,
      jobLogs,
      engine,
      workflows,
      analyses,
      twoFactor,
      notifications,
      communities,
    },
    scheduler,
    async close() {
      if (sweeper) clearInterval(sweeper);
      stopAnalysisSweeps();
      await scheduler?.close();
      jobLogQuery.closeAll();
      // Stop accepting, drop idle keep-alive connections now and any still busy after 5 s, so that a
      // shutdown never waits out a client's keep-alive (72 s).
      const closing = http.close();
      http.server.closeIdleConnections();
      const force = setTimeout(() => http.server.closeAllConnections(), 5_000);
      force.unref();
      await closing;
      clearTimeout(force);
      // Let background file work (assembly, blob deletion) finish before the database goes away.
      await Promise.race([files.drain(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      await database.close();
    },
  };
}
