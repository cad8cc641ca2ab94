/**
 * What running one try of a job takes, shared by the two ways Panx runs it:
 *
 * - the job runner process (job-runner.ts), which the Slurm executor (and the local one with
 *   `engine.local.runner: "process"`) starts, and which talks to the platform only through the API;
 * - the in-server runner of the local executor (scheduler/inline-runner.ts), which prepares the
 *   job's directory in the server process, has the executor start only the entry point (a bash or
 *   python3 process, no Node start), and records the outcome when that process exits.
 *
 * Node built-ins only: a cluster node runs this without the server's dependencies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultExecDependsMode, type ExecDependsMode, ExecDependsError, satisfyExecDepends } from './exec-depends.js';
import { runCommand } from './run-command.js';

/** The runner's own lines start with this marker: the log shows them as SYSTEM lines. */
export const SYSTEM = '\u001ePANX ';
const CALL_PATIENCE_MS = 2 * 60_000;

export class RunnerError extends Error {
  constructor(
    readonly type: 'AppError' | 'AppInternalError' | 'ExecutionError',
    message: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Minimal API client: POST /<subject>/<method>, retried on network errors and 5xx until `patienceMs` is spent. */
export class Api {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** The API of a job's environment (the DNAnexus worker variables). */
  static fromEnvironment(env: Record<string, string | undefined>): Api {
    let token = '';
    try {
      token = (JSON.parse(env.DX_SECURITY_CONTEXT ?? '{}') as { auth_token?: string }).auth_token ?? '';
    } catch {
      token = '';
    }
    const protocol = env.DX_APISERVER_PROTOCOL ?? 'http';
    const host = env.DX_APISERVER_HOST?.includes(':') ? `[${env.DX_APISERVER_HOST}]` : env.DX_APISERVER_HOST;
    return new Api(`${protocol}://${host}:${env.DX_APISERVER_PORT}`, token);
  }

  get hasToken(): boolean {
    return this.token !== '';
  }

  async call<T>(subject: string, method: string, body: unknown, patienceMs = CALL_PATIENCE_MS): Promise<T> {
    const deadline = Date.now() + patienceMs;
    for (let attempt = 0; ; attempt++) {
      let retryable: string;
      try {
        const response = await fetch(`${this.baseUrl}/${subject}/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}`, 'DNAnexus-API': '1.0.0' },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.ok) return (text ? JSON.parse(text) : {}) as T;
        if (response.status < 500) {
          let message = text;
          try {
            const envelope = JSON.parse(text) as { error?: { type?: string; message?: string } };
            message = `${envelope.error?.type}: ${envelope.error?.message}`;
          } catch {
            // not the error envelope
          }
          throw new RunnerError('ExecutionError', `${subject}/${method} failed: ${message}`);
        }
        retryable = `HTTP ${response.status}`;
      } catch (error) {
        if (error instanceof RunnerError) throw error;
        retryable = (error as Error).message;
      }
      if (Date.now() > deadline) throw new RunnerError('ExecutionError', `${subject}/${method} failed: ${retryable}`);
      await sleep(Math.min(10_000, 250 * 2 ** Math.min(attempt, 6)));
    }
  }
}

function execDependsMode(value: string | undefined): ExecDependsMode {
  return value === 'install' || value === 'check' || value === 'ignore' ? value : defaultExecDependsMode();
}

export interface JobDescription {
  id: string;
  function: string;
  input: Record<string, unknown>;
  applet?: string;
  app?: string;
  workspace: string;
  project: string;
}

export interface ExecutableDescription {
  runSpec: { interpreter: string; code: string; bundledDepends?: { name: string; id: unknown }[]; execDepends?: unknown };
  inputSpec?: { name: string; patterns?: unknown }[] | null;
}

/** How the preparation reaches the platform: through the API (runner process) or the server's own stores (in-server). */
export interface RunnerSource {
  /** Names of input files, by id, as seen in the job's workspace. */
  fileNames(ids: readonly string[]): Promise<Map<string, string>>;
  /** Writes a file's content to `target`. */
  download(fileId: string, target: string): Promise<void>;
  /** A SYSTEM line of the job's log. */
  say(message: string): void | Promise<void>;
}

/** The source of the runner process: the API with the job's token. */
export function apiSource(api: Api, workspace: string, say: (message: string) => void): RunnerSource {
  return {
    async fileNames(ids) {
      // One call for all of them: the inputs were cloned into the workspace before the job ran.
      const names = new Map<string, string>();
      const unique = [...new Set(ids)];
      for (let start = 0; start < unique.length; start += 1000) {
        const batch = unique.slice(start, start + 1000);
        const { results } = await api.call<{ results: ({ describe?: { name?: string } } | undefined)[] }>('system', 'describeDataObjects', {
          objects: batch.map((id) => ({ id, project: workspace, describe: { fields: { name: true } } })),
        });
        for (const [i, id] of batch.entries()) names.set(id, results[i]?.describe?.name ?? id);
      }
      return names;
    },
    async download(fileId, target) {
      const { url, headers } = await api.call<{ url: string; headers: Record<string, string> }>(fileId, 'download', { project: workspace });
      const response = await fetch(url, { headers });
      if (!response.ok || !response.body) throw new RunnerError('ExecutionError', `downloading ${fileId} failed: HTTP ${response.status}`);
      await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), fs.createWriteStream(target));
    },
    say,
  };
}

export function linkId(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const link = (value as { $dnanexus_link?: unknown }).$dnanexus_link;
    if (typeof link === 'string') return link;
    if (link && typeof link === 'object' && typeof (link as { id?: unknown }).id === 'string') return (link as { id: string }).id;
  }
  return undefined;
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Runs a command to its end; answers its exit code and stderr (never throws for a non-zero exit). */
/** Unpacks the executable's bundled resources and answers the root they went to. */
async function unpackBundles(
  source: RunnerSource,
  executable: ExecutableDescription,
  jobDir: string,
  home: string,
  bundledDependsRoot: string | undefined,
): Promise<string | undefined> {
  const bundles = executable.runSpec.bundledDepends ?? [];
  if (!bundles.length) return undefined;
  const root = bundledDependsRoot === 'root' ? '/' : path.join(jobDir, 'root');
  const cache = path.join(jobDir, 'bundles');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(cache, { recursive: true });
  for (const [index, bundle] of bundles.entries()) {
    const id = linkId(bundle.id);
    if (!id) throw new RunnerError('ExecutionError', `bundledDepends[${index}] does not link to a file`);
    await source.say(`Downloading bundled file ${bundle.name}`);
    const archive = path.join(cache, `${index}-${path.basename(bundle.name) || 'bundle'}`);
    await source.download(id, archive);
    await source.say(`Unpacking ${bundle.name} to ${root}`);
    const tar = await runCommand('tar', ['-xf', archive, '-C', root]);
    if (tar.status !== 0) throw new RunnerError('ExecutionError', `unpacking ${bundle.name} failed: ${tar.stderr.trim()}`);
  }
  // On DNAnexus workers HOME is /home/dnanexus: what the bundle puts there belongs in this job's HOME.
  const bundledHome = path.join(root, 'home', 'dnanexus');
  if (root !== '/' && fs.existsSync(bundledHome)) fs.cpSync(bundledHome, home, { recursive: true });
  return root;
}

/** What the runner uses of @panx/worker-tools (its bash input variables, exactly dx-print-bash-vars's). */
interface WorkerToolsLibrary {
  planInputFiles(input: Record<string, unknown>): { files: { id: string }[] };
  bashVarsFor(
    input: Record<string, unknown>,
    inputSpec: unknown[] | undefined,
    options: { home: string; fileNames: Map<string, string>; environment?: Record<string, string | undefined>; onCollision?: (name: string) => void },
  ): { name: string; value: string }[];
  formatBashVars(vars: { name: string; value: string }[], options?: { export?: boolean }): string;
  startHelperHost(options?: { key?: string; keyFile?: string }): Promise<{ port: number; keyFile: string | undefined; close(): Promise<void> }>;
}

const loadedTools = new Map<string, Promise<WorkerToolsLibrary>>();

/** The worker tools' library, from the build next to the bin folder that goes on the job's PATH (loaded once per process). */
function workerTools(bin: string | undefined): Promise<WorkerToolsLibrary> {
  const entry = bin ? path.resolve(bin, '..', 'dist', 'index.js') : undefined;
  if (!entry || !fs.existsSync(entry))
    return Promise.reject(
      new RunnerError('ExecutionError', `the worker tools are not built (${entry ?? 'PANX_WORKER_TOOLS_BIN is not set'}): run "npm run build"`),
    );
  let loaded = loadedTools.get(entry);
  if (!loaded) {
    loaded = import(pathToFileURL(entry).href) as Promise<WorkerToolsLibrary>;
    loadedTools.set(entry, loaded);
    loaded.catch(() => loadedTools.delete(entry));
  }
  return loaded;
}

/**
 * A helper host for one job, inside the runner process (which waits for the job anyway): the job's
 * dx helpers then cost a connection each instead of a Node start. Undefined when it cannot start (the
 * helpers start Node themselves then).
 */
export async function startJobHelperHost(
  env: Record<string, string | undefined>,
  jobDir: string,
): Promise<{ port: number; keyFile: string; close(): Promise<void> } | undefined> {
  try {
    const tools = await workerTools(env.PANX_WORKER_TOOLS_BIN);
    const keyFile = path.join(jobDir, 'panx', 'helper.key');
    const host = await tools.startHelperHost({ keyFile });
    return { port: host.port, keyFile, close: () => host.close() };
  } catch {
    return undefined;
  }
}

function pythonShimDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'worker', 'python');
}

/** The entry point of a prepared job: what to run, with which environment, in which directory. */
export interface EntryPoint {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** The command changes to `cwd` itself (started anywhere, it runs there). */
  entersCwd: boolean;
}

export interface PrepareOptions {
  job: JobDescription;
  executable: ExecutableDescription;
  /** The job's directory (`PANX_JOB_DIR`) and HOME inside it. */
  jobDir: string;
  home: string;
  /** The environment of the runner (the worker variables); PANX_* variables are not passed on to the job. */
  env: Record<string, string | undefined>;
  source: RunnerSource;
  /** A helper host serving this job's dx helpers (PANX_HELPER_PORT and PANX_HELPER_KEY_FILE; see @panx/worker-tools src/host.ts). */
  helperHost?: { port: number; keyFile: string } | undefined;
}

/**
 * Prepares HOME (job_input.json, dnanexus-job.json, dnanexus-executable.json, in/, out/), unpacks the bundled resources, installs
 * the execDepends (exec-depends.ts) and
 * writes the entry point's files: bash as `bash -e -c 'cd $HOME; . vars; . code; <function>'` with
 * the input variables, python3 with dxpy's `run()` (a small stand-in when dxpy is not installed).
 */
export async function prepareEntryPoint(options: PrepareOptions): Promise<EntryPoint> {
  const { job, executable, jobDir, home, source } = options;
  // A few folders and small files, written synchronously: in the server (the in-server runner) each
  // thread-pool round trip of the asynchronous calls cost a millisecond or more while jobs ran, about
  // 10 ms per job start, against well under one for these calls made directly.
  const panx = path.join(jobDir, 'panx');
  fs.mkdirSync(path.join(home, 'in'), { recursive: true });
  fs.mkdirSync(path.join(home, 'out'), { recursive: true });
  fs.mkdirSync(panx, { recursive: true });
  fs.writeFileSync(path.join(home, 'job_input.json'), JSON.stringify(job.input ?? {}, null, 2));
  fs.writeFileSync(path.join(home, 'dnanexus-job.json'), JSON.stringify(job, null, 2));
  // As on DNAnexus workers; the dx helpers read the input and output specs from it instead of
  // describing the job and its executable on every call.
  fs.writeFileSync(path.join(home, 'dnanexus-executable.json'), JSON.stringify({ id: job.app ?? job.applet, ...executable }, null, 2));
  const root = await unpackBundles(source, executable, jobDir, home, options.env.PANX_BUNDLED_DEPENDS_ROOT);

  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined && !name.startsWith('PANX_')) env[name] = value;
  const bins = [options.env.PANX_WORKER_TOOLS_BIN, ...(root && root !== '/' ? ['usr/local/bin', 'usr/bin', 'bin'].map((dir) => path.join(root, dir)) : [])];
  env.PATH = [...bins.filter((dir): dir is string => !!dir && fs.existsSync(dir)), options.env.PATH ?? '/usr/bin:/bin'].join(':');
  env.HOME = home;
  if (options.helperHost) {
    env.PANX_HELPER_PORT = String(options.helperHost.port);
    env.PANX_HELPER_KEY_FILE = options.helperHost.keyFile;
  }
  try {
    await satisfyExecDepends(executable.runSpec.execDepends, {
      entryPoint: job.function,
      mode: execDependsMode(options.env.PANX_EXEC_DEPENDS),
      jobDir,
      env,
      say: (message) => source.say(message),
    });
  } catch (error) {
    if (error instanceof ExecDependsError) throw new RunnerError('ExecutionError', error.message);
    throw error;
  }
  const interpreter = executable.runSpec.interpreter;
  if (interpreter === 'bash') {
    const tools = await workerTools(options.env.PANX_WORKER_TOOLS_BIN);
    const names = await source.fileNames([...new Set(tools.planInputFiles(job.input).files.map((file) => file.id))]);
    const inputSpec = job.function === 'main' ? (executable.inputSpec ?? undefined) : undefined;
    const collisions: string[] = [];
    const lines = tools.formatBashVars(
      tools.bashVarsFor(job.input, inputSpec, { home, fileNames: names, environment: env, onCollision: (name) => collisions.push(name) }),
      { export: false },
    );
    for (const name of collisions) await source.say(`Not defining the input variable ${name}: the name is taken`);
    const vars = path.join(panx, 'vars.sh');
    const code = path.join(panx, 'code.sh');
    fs.writeFileSync(vars, lines);
    fs.writeFileSync(code, executable.runSpec.code);
    const script = `cd "$HOME"; . "${vars}"; . "${code}"; ${job.function}`;
    return { command: 'bash', args: ['-e', '-c', script], env, cwd: home, entersCwd: true };
  }
  if (interpreter === 'python3' || interpreter === 'python2.7') {
    const code = path.join(panx, 'code.py');
    await fs.promises.writeFile(code, executable.runSpec.code);
    const hasDxpy = (await runCommand('python3', ['-c', 'import dxpy'], env)).status === 0;
    if (!hasDxpy) {
      // A copy in the job's directory, so that Python's caches never land in the installation.
      const shim = path.join(panx, 'python');
      fs.cpSync(pythonShimDir(), shim, { recursive: true });
      env.PYTHONPATH = [shim, env.PYTHONPATH].filter(Boolean).join(':');
    }
    env.PYTHONUNBUFFERED = '1';
    return { command: 'python3', args: [code], env, cwd: home, entersCwd: false };
  }
  throw new RunnerError('ExecutionError', `runSpec.interpreter "${interpreter}" is not supported (bash or python3)`);
}

export interface RunOutcome {
  output?: Record<string, unknown>;
  error?: { type: string; message: string };
}

/** job_error.json, job_output.json and the exit status → what the job produced. */
export function outcomeOf(home: string, status: { exitCode: number | null; signal: string | null }): RunOutcome {
  const errorFile = path.join(home, 'job_error.json');
  if (fs.existsSync(errorFile)) {
    try {
      const parsed = readJson(errorFile) as { error?: { type?: unknown; message?: unknown } };
      const type = parsed.error?.type === 'AppError' ? 'AppError' : 'AppInternalError';
      return { error: { type, message: typeof parsed.error?.message === 'string' ? parsed.error.message : 'The job reported an error' } };
    } catch {
      return { error: { type: 'AppInternalError', message: 'job_error.json is not valid JSON' } };
    }
  }
  if (status.exitCode !== 0) {
    const how = status.signal ? `killed by ${status.signal}` : `exit code ${status.exitCode}`;
    return { error: { type: 'AppInternalError', message: `Error while running the command (${how}; please see the job log for more information)` } };
  }
  const outputFile = path.join(home, 'job_output.json');
  if (!fs.existsSync(outputFile)) return { output: {} };
  try {
    const output = readJson(outputFile);
    if (!output || typeof output !== 'object' || Array.isArray(output)) throw new Error('not an object');
    return { output: output as Record<string, unknown> };
  } catch (error) {
    return { error: { type: 'AppInternalError', message: `job_output.json is not a JSON object: ${(error as Error).message}` } };
  }
}
