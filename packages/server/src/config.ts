import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

const s3Schema = z.object({
  endpoint: z.string().url().optional(),
  region: z.string().default('us-east-1'),
  bucket: z.string().min(3),
  prefix: z.string().default(''),
  accessKeyId: z.string().optional(),
  secretAccessKey: z.string().optional(),
  forcePathStyle: z.boolean().default(true),
  /** `presigned`: clients download straight from S3; `proxy`: the API server streams the bytes. */
  downloadMode: z.enum(['presigned', 'proxy']).default('presigned'),
});

const instanceTypeSchema = z.object({
  cores: z.number().int().positive(),
  memoryMB: z.number().int().positive(),
  diskGB: z.number().nonnegative(),
  /** USD per hour while a job of this type runs. */
  pricePerHour: z.number().nonnegative(),
});
export type InstanceTypeConfig = z.infer<typeof instanceTypeSchema>;

/** The Slurm executor (`executor: 'slurm'`; docs/OPERATIONS.md, "Slurm"). Jobs' work directories (`workDir`) must be on storage the nodes share. */
const slurmSchema = z.object({
  /** `sbatch --partition`; the cluster's default partition when unset. */
  partition: z.string().min(1).optional(),
  /** `sbatch --account`. */
  account: z.string().min(1).optional(),
  /** `sbatch --qos`. */
  qos: z.string().min(1).optional(),
  /** More `sbatch` arguments, one word each (e.g. `["--time=7-0", "--constraint=ssd"]`); never passed through a shell. */
  extraArgs: z.array(z.string().min(1)).default([]),
  /** Where sbatch, squeue, scontrol, scancel and sinfo are (default: PATH). */
  binDir: z.string().optional(),
  /** The most one job gets (default: the partition's largest node, from sinfo). */
  maxCores: z.number().int().positive().optional(),
  maxMemoryMB: z.number().int().positive().optional(),
  /** How much this server keeps submitted at once (default: the whole partition, from sinfo); the rest waits in Panx's queue. */
  totalCores: z.number().int().positive().optional(),
  totalMemoryMB: z.number().int().positive().optional(),
  /** How often output and exit-status files are read. */
  pollMs: z.number().int().positive().default(500),
  /** How often one `squeue` asks about every watched job. */
  statePollMs: z.number().int().positive().default(1000),
  /** After `scancel`, how long before `scancel --signal=KILL`. */
  killGraceMs: z.number().int().nonnegative().default(10_000),
  /**
   * `process`: each batch job runs the Node job runner, which prepares the job's directory and
   * reports its outcome over the API, and serves the dx helpers on the node. `inline`: the server
   * prepares the directory (on the shared storage) before `sbatch`, the batch job runs only the entry
   * point, and the server reads the outcome from the directory when it ends: one Node start and
   * three API calls less per job, but a job's dx helpers then start Node for each call on nodes
   * other than the server's.
   */
  runner: z.enum(['process', 'inline']).default('process'),
});
export type SlurmConfig = z.infer<typeof slurmSchema>;

/** The execution engine: executor, instance type catalogue, scheduler timing (docs/OPERATIONS.md). */
const engineSchema = z.object({
  /** Run jobs on this server (the API still accepts runs when off; another server runs them). */
  enabled: z.boolean().default(true),
  executor: z.enum(['local', 'slurm']).default('local'),
  /** Instance types per region (`aws:us-east-1` → name → type); the built-in catalogue when unset. */
  instanceTypes: z.record(z.string(), z.record(z.string(), instanceTypeSchema)).optional(),
  local: z
    .object({
      /** Cores and memory the local executor hands out; the host's when unset. */
      cores: z.number().positive().optional(),
      memoryMB: z.number().int().positive().optional(),
      /**
       * How many jobs' reservations may share each core and MiB (≥ 1; default 1, none): with 4, a
       * 2-core host runs four 2-core jobs at once. Every job is still given and charged its whole
       * instance type. For hosts that run mostly short or idle jobs (tests, demos), not real work.
       */
      oversubscribe: z.number().min(1).default(1),
      /**
       * `inline`: the server prepares each try and starts only its entry point (bash or python3),
       * reading the outcome from the try's directory when it exits; `process`: a Node job runner per
       * try, which talks to the API (as on Slurm). The same results; `inline` saves a Node start
       * and several API calls per job.
       */
      runner: z.enum(['inline', 'process']).default('inline'),
    })
    .default({ oversubscribe: 1, runner: 'inline' }),
  slurm: slurmSchema.default(slurmSchema.parse({})),
  /** Where jobs' working directories go (default <dataDir>/jobs). */
  workDir: z.string().optional(),
  /** Keep a finished job's working directory (for debugging); removed otherwise. */
  keepWorkDirs: z.boolean().default(false),
  /** The URL the job runner and the helpers reach the API at (default: publicUrl). */
  apiUrl: z.string().url().optional(),
  /** Directory of the dx helper commands put first on jobs' PATH (default packages/worker-tools/bin). */
  workerToolsBin: z.string().optional(),
  /** Where bundledDepends tarballs are unpacked: the job's own directory, or / as on DNAnexus workers. */
  bundledDependsRoot: z.enum(['job', 'root']).default('job'),
  /**
   * What workers do with runSpec.execDepends: install the missing packages (apt-get, pip), only check
   * that they are there (a job whose packages are missing fails), or ignore them. Default: install
   * when the server runs as root, check otherwise.
   */
  execDepends: z.enum(['install', 'check', 'ignore']).optional(),
  /** Identity of this server among several on one database (default: host name and data directory). */
  serverId: z.string().min(1).optional(),
  /** Scheduler period; it also runs at once whenever a job changes. */
  tickMs: z.number().int().positive().default(1000),
  /** A server that has not beaten its heart for this long has lost its jobs. */
  serverTimeoutMs: z.number().int().positive().default(60_000),
  /** Timeout of a job whose executable sets none. */
  defaultTimeoutHours: z.number().positive().default(720),
  /** How long a workspace is kept after its job tree finished with `delayWorkspaceDestruction`. */
  delayedWorkspaceTtlHours: z.number().nonnegative().default(72),
});
export type EngineConfig = z.infer<typeof engineSchema>;

export const configSchema = z.object({
  port: z.number().int().min(0).max(65_535).default(8080),
  /**
   * API processes sharing the port (node:cluster): 1 runs everything in this process; N > 1 runs a
   * supervisor, a leader (engine, background work) and N − 1 API-only processes (cluster/supervisor.ts).
   */
  processes: z.number().int().min(1).max(64).default(1),
  /** This process runs the background work (file recovery sweeps); off in a cluster's API-only processes. */
  background: z.boolean().default(true),
  host: z.string().default('0.0.0.0'),
  /** Where clients reach this server; upload/download URLs and the web app's apiServer are built from it. */
  publicUrl: z.string().url().optional(),
  dataDir: z.string().default('./data'),
  /** `postgres://…` selects PostgreSQL; otherwise SQLite at `sqlitePath`. */
  databaseUrl: z.string().optional(),
  sqlitePath: z.string().optional(),
  blobDir: z.string().optional(),
  /**
   * Local blob store: parts are written with O_DIRECT (not through the page cache) where the file
   * system allows it; the page cache's writes cost several times the CPU on virtual machines.
   */
  blobDirectIo: z.boolean().default(true),
  s3: s3Schema.optional(),
  admin: z
    .object({
      username: z.string().default('admin'),
      email: z.string().default('admin@localhost'),
      password: z.string().min(8).optional(),
      token: z.string().min(16).optional(),
    })
    .default({ username: 'admin', email: 'admin@localhost' }),
  createDemoProject: z.boolean().default(true),
  selfSignUp: z.boolean().default(false),
  /** Secret for signed upload/download URLs; generated into the data directory when unset. Share it between API servers. */
  signingSecret: z.string().min(16).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Parse every response against the contract too (on in tests; costs time). */
  validateResponses: z.boolean().default(false),
  /** Built web app to serve under /panx (optional until the web package exists). */
  webDir: z.string().optional(),
  bodyLimitBytes: z
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** Runtime configuration for the web app, merged over the defaults by system/getUIConfig. */
  ui: z.record(z.string(), z.unknown()).default({}),
  engine: engineSchema.default(engineSchema.parse({})),
});

export type Config = z.infer<typeof configSchema>;
export type ResolvedConfig = Config & { publicUrl: string; sqlitePath: string; blobDir: string };

const bool = (value: string | undefined) => (value === undefined ? undefined : ['1', 'true', 'yes', 'on'].includes(value.toLowerCase()));

/** Environment variables (documented in docs/OPERATIONS.md) over an optional JSON config file (`PANX_CONFIG`). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): ResolvedConfig {
  let fileConfig: Record<string, unknown> = {};
  if (env.PANX_CONFIG) fileConfig = JSON.parse(fs.readFileSync(env.PANX_CONFIG, 'utf8')) as Record<string, unknown>;

  const fromEnv: Record<string, unknown> = {
    port: env.PANX_PORT ? Number(env.PANX_PORT) : undefined,
    processes: env.PANX_PROCESSES ? (env.PANX_PROCESSES === 'auto' ? os.availableParallelism() : Number(env.PANX_PROCESSES)) : undefined,
    host: env.PANX_HOST,
    publicUrl: env.PANX_PUBLIC_URL,
    dataDir: env.PANX_DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    sqlitePath: env.PANX_SQLITE_PATH,
    blobDir: env.PANX_BLOB_DIR,
    blobDirectIo: bool(env.PANX_BLOB_DIRECT_IO),
    selfSignUp: bool(env.PANX_SELF_SIGNUP),
    createDemoProject: bool(env.PANX_DEMO_PROJECT),
    signingSecret: env.PANX_SIGNING_SECRET,
    logLevel: env.PANX_LOG_LEVEL,
    webDir: env.PANX_WEB_DIR,
  };
  const engineEnv = dropUndefined({
    enabled: bool(env.PANX_ENGINE),
    executor: env.PANX_EXECUTOR,
    apiUrl: env.PANX_ENGINE_API_URL,
    workDir: env.PANX_JOB_DIR,
    serverId: env.PANX_SERVER_ID,
    workerToolsBin: env.PANX_WORKER_TOOLS_BIN,
    execDepends: env.PANX_EXEC_DEPENDS,
  });
  const localEnv = dropUndefined({
    cores: env.PANX_LOCAL_CORES ? Number(env.PANX_LOCAL_CORES) : undefined,
    memoryMB: env.PANX_LOCAL_MEMORY_MB ? Number(env.PANX_LOCAL_MEMORY_MB) : undefined,
    oversubscribe: env.PANX_LOCAL_OVERSUBSCRIBE ? Number(env.PANX_LOCAL_OVERSUBSCRIBE) : undefined,
    runner: env.PANX_LOCAL_RUNNER,
  });
  const slurmEnv = dropUndefined({
    partition: env.PANX_SLURM_PARTITION,
    account: env.PANX_SLURM_ACCOUNT,
    qos: env.PANX_SLURM_QOS,
    extraArgs: env.PANX_SLURM_EXTRA_ARGS?.trim() ? env.PANX_SLURM_EXTRA_ARGS.trim().split(/\s+/) : undefined,
    binDir: env.PANX_SLURM_BIN_DIR,
    runner: env.PANX_SLURM_RUNNER,
  });
  const fileEngine = (fileConfig.engine as Record<string, unknown> | undefined) ?? {};
  const engine =
    Object.keys(engineEnv).length || Object.keys(localEnv).length || Object.keys(slurmEnv).length || fileConfig.engine
      ? {
          ...fileEngine,
          ...engineEnv,
          local: { ...((fileEngine.local as object | undefined) ?? {}), ...localEnv },
          slurm: { ...((fileEngine.slurm as object | undefined) ?? {}), ...slurmEnv },
        }
      : undefined;
  const admin = {
    ...((fileConfig.admin as object | undefined) ?? {}),
    ...(env.PANX_ADMIN_USER ? { username: env.PANX_ADMIN_USER } : {}),
    ...(env.PANX_ADMIN_PASSWORD ? { password: env.PANX_ADMIN_PASSWORD } : {}),
    ...(env.PANX_ADMIN_TOKEN ? { token: env.PANX_ADMIN_TOKEN } : {}),
  };
  const s3 = env.PANX_S3_BUCKET
    ? {
        ...((fileConfig.s3 as object | undefined) ?? {}),
        bucket: env.PANX_S3_BUCKET,
        endpoint: env.PANX_S3_ENDPOINT,
        region: env.PANX_S3_REGION,
        prefix: env.PANX_S3_PREFIX,
        accessKeyId: env.AWS_ACCESS_KEY_ID,
        secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
        downloadMode: env.PANX_S3_DOWNLOAD_MODE,
      }
    : fileConfig.s3;

  const merged = {
    ...fileConfig,
    ...dropUndefined(fromEnv),
    admin,
    ...(s3 ? { s3: dropUndefined(s3 as Record<string, unknown>) } : {}),
    ...(engine ? { engine } : {}),
    ...overrides,
  };
  const config = configSchema.parse(merged);
  const dataDir = path.resolve(config.dataDir);
  return {
    ...config,
    dataDir,
    publicUrl: (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, ''),
    sqlitePath: path.resolve(config.sqlitePath ?? path.join(dataDir, 'panx.db')),
    blobDir: path.resolve(config.blobDir ?? path.join(dataDir, 'blobs')),
  };
}

function dropUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined && value !== ''));
}
