/**
 * The job runner: what an executor starts for one try of a job (locally, or on a cluster node).
 * Everything it needs comes from its environment (the DNAnexus worker variables of reference §7.2
 * plus PANX_JOB_TRY, PANX_JOB_DIR, PANX_WORKER_TOOLS_BIN, PANX_BUNDLED_DEPENDS_ROOT), and it talks
 * to the platform only through the API, with the job's token:
 *
 * 1. describes the job and gets its executable's code (`applet-xxxx/get` / `app-xxxx/get`);
 * 2. unpacks the bundledDepends tarballs (into the job's own root, or `/` when configured);
 * 3. prepares HOME: job_input.json, dnanexus-job.json, in/, out/;
 * 4. runs the entry point: bash as `bash -e -c 'cd $HOME; . vars; . code; <function>'` with the
 *    input variables, python3 with dxpy's `run()` (a small stand-in when dxpy is not installed);
 * 5. reads job_output.json or job_error.json and reports the outcome (`job-xxxx/reportOutcome`),
 *    retrying while the server is unreachable, so that a restart of the server loses nothing.
 *
 * Its own lines start with the SYSTEM marker so that the log shows them as SYSTEM lines; the
 * job's code writes straight to the runner's stdout and stderr.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SYSTEM = '\u001ePANX ';
const REPORT_PATIENCE_MS = 15 * 60_000;
const CALL_PATIENCE_MS = 2 * 60_000;

function say(message: string): void {
  process.stdout.write(`${SYSTEM}${message}\n`);
}

class RunnerError extends Error {
  constructor(
    readonly type: 'AppError' | 'AppInternalError' | 'ExecutionError',
    message: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Minimal API client: POST /<subject>/<method>, retried on network errors and 5xx until `patienceMs` is spent. */
class Api {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

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

interface JobDescription {
  id: string;
  function: string;
  input: Record<string, unknown>;
  applet?: string;
  app?: string;
  workspace: string;
  project: string;
}

interface ExecutableDescription {
  runSpec: { interpreter: string; code: string; bundledDepends?: { name: string; id: unknown }[] };
  inputSpec?: { name: string; patterns?: unknown }[] | null;
}

function linkId(value: unknown): string | undefined {
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

async function download(api: Api, fileId: string, project: string, target: string): Promise<void> {
  const { url, headers } = await api.call<{ url: string; headers: Record<string, string> }>(fileId, 'download', { project });
  const response = await fetch(url, { headers });
  if (!response.ok || !response.body) throw new RunnerError('ExecutionError', `downloading ${fileId} failed: HTTP ${response.status}`);
  fs.writeFileSync(target, Buffer.from(await response.arrayBuffer()));
}

/** Unpacks the executable's bundled resources and answers the root they went to. */
async function unpackBundles(api: Api, executable: ExecutableDescription, job: JobDescription, jobDir: string, home: string): Promise<string | undefined> {
  const bundles = executable.runSpec.bundledDepends ?? [];
  if (!bundles.length) return undefined;
  const root = process.env.PANX_BUNDLED_DEPENDS_ROOT === 'root' ? '/' : path.join(jobDir, 'root');
  const cache = path.join(jobDir, 'bundles');
  fs.mkdirSync(root, { recursive: true });
  fs.mkdirSync(cache, { recursive: true });
  for (const [index, bundle] of bundles.entries()) {
    const id = linkId(bundle.id);
    if (!id) throw new RunnerError('ExecutionError', `bundledDepends[${index}] does not link to a file`);
    say(`Downloading bundled file ${bundle.name}`);
    const archive = path.join(cache, `${index}-${path.basename(bundle.name) || 'bundle'}`);
    await download(api, id, job.workspace, archive);
    say(`Unpacking ${bundle.name} to ${root}`);
    const tar = spawnSync('tar', ['-xf', archive, '-C', root], { encoding: 'utf8' });
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
}

/** The worker tools' library, from the build next to the bin folder that goes on the job's PATH. */
async function workerTools(): Promise<WorkerToolsLibrary> {
  const bin = process.env.PANX_WORKER_TOOLS_BIN;
  const entry = bin ? path.resolve(bin, '..', 'dist', 'index.js') : undefined;
  if (!entry || !fs.existsSync(entry))
    throw new RunnerError('ExecutionError', `the worker tools are not built (${entry ?? 'PANX_WORKER_TOOLS_BIN is not set'}): run "npm run build"`);
  return (await import(pathToFileURL(entry).href)) as WorkerToolsLibrary;
}

function pythonShimDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'worker', 'python');
}

/** Runs the entry point; answers its exit status. */
async function runCode(api: Api, job: JobDescription, executable: ExecutableDescription, jobDir: string, home: string, root: string | undefined) {
  const panx = path.join(jobDir, 'panx');
  fs.mkdirSync(panx, { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('PANX_')) delete env[name];
  const bins = [process.env.PANX_WORKER_TOOLS_BIN, ...(root && root !== '/' ? ['usr/local/bin', 'usr/bin', 'bin'].map((dir) => path.join(root, dir)) : [])];
  env.PATH = [...bins.filter((dir): dir is string => !!dir && fs.existsSync(dir)), process.env.PATH ?? '/usr/bin:/bin'].join(':');
  env.HOME = home;
  const interpreter = executable.runSpec.interpreter;
  if (interpreter === 'bash') {
    const tools = await workerTools();
    const names = new Map<string, string>();
    for (const { id } of tools.planInputFiles(job.input).files) {
      if (names.has(id)) continue;
      const described = await api.call<{ name?: string }>(id, 'describe', { project: job.workspace, fields: { name: true } });
      names.set(id, described.name ?? id);
    }
    const inputSpec = job.function === 'main' ? (executable.inputSpec ?? undefined) : undefined;
    const lines = tools.formatBashVars(
      tools.bashVarsFor(job.input, inputSpec, {
        home,
        fileNames: names,
        environment: env,
        onCollision: (name) => say(`Not defining the input variable ${name}: the name is taken`),
      }),
      { export: false },
    );
    const vars = path.join(panx, 'vars.sh');
    const code = path.join(panx, 'code.sh');
    fs.writeFileSync(vars, lines);
    fs.writeFileSync(code, executable.runSpec.code);
    const script = `cd "$HOME"; . "${vars}"; . "${code}"; ${job.function}`;
    return spawnAndWait('bash', ['-e', '-c', script], env, home);
  }
  if (interpreter === 'python3' || interpreter === 'python2.7') {
    const code = path.join(panx, 'code.py');
    fs.writeFileSync(code, executable.runSpec.code);
    const hasDxpy = spawnSync('python3', ['-c', 'import dxpy'], { env: env as NodeJS.ProcessEnv }).status === 0;
    if (!hasDxpy) {
      // A copy in the job's directory, so that Python's caches never land in the installation.
      const shim = path.join(panx, 'python');
      fs.cpSync(pythonShimDir(), shim, { recursive: true });
      env.PYTHONPATH = [shim, env.PYTHONPATH].filter(Boolean).join(':');
    }
    env.PYTHONUNBUFFERED = '1';
    return spawnAndWait('python3', [code], env, home);
  }
  throw new RunnerError('ExecutionError', `runSpec.interpreter "${interpreter}" is not supported (bash or python3)`);
}

function spawnAndWait(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ exitCode: number | null; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: env as NodeJS.ProcessEnv, cwd, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', (error) => reject(new RunnerError('ExecutionError', `${command} could not be started: ${error.message}`)));
    child.once('exit', (exitCode, signal) => resolve({ exitCode, signal }));
  });
}

/** job_error.json, job_output.json and the exit status → what the job produced. */
function outcomeOf(home: string, status: { exitCode: number | null; signal: string | null }) {
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

async function main(): Promise<number> {
  const env = process.env;
  const jobId = env.DX_JOB_ID ?? '';
  const tryNumber = Number(env.PANX_JOB_TRY ?? 0);
  const home = env.HOME ?? process.cwd();
  const jobDir = env.PANX_JOB_DIR ?? path.dirname(home);
  let token = '';
  try {
    token = (JSON.parse(env.DX_SECURITY_CONTEXT ?? '{}') as { auth_token?: string }).auth_token ?? '';
  } catch {
    token = '';
  }
  const protocol = env.DX_APISERVER_PROTOCOL ?? 'http';
  const api = new Api(
    `${protocol}://${env.DX_APISERVER_HOST?.includes(':') ? `[${env.DX_APISERVER_HOST}]` : env.DX_APISERVER_HOST}:${env.DX_APISERVER_PORT}`,
    token,
  );

  let status: { exitCode: number | null; signal: string | null } = { exitCode: null, signal: null };
  let result: { output?: Record<string, unknown>; error?: { type: string; message: string } };
  try {
    if (!jobId || !token) throw new RunnerError('ExecutionError', 'DX_JOB_ID and DX_SECURITY_CONTEXT must be set');
    const job = await api.call<JobDescription>(jobId, 'describe', {});
    const executableId = job.applet ?? job.app;
    if (!executableId) throw new RunnerError('ExecutionError', `${jobId} names no applet or app`);
    const executable = await api.call<ExecutableDescription>(executableId, 'get', executableId.startsWith('applet-') ? { project: job.workspace } : {});
    fs.mkdirSync(path.join(home, 'in'), { recursive: true });
    fs.mkdirSync(path.join(home, 'out'), { recursive: true });
    fs.writeFileSync(path.join(home, 'job_input.json'), JSON.stringify(job.input ?? {}, null, 2));
    fs.writeFileSync(path.join(home, 'dnanexus-job.json'), JSON.stringify(job, null, 2));
    const root = await unpackBundles(api, executable, job, jobDir, home);
    say(`Running ${job.function} (${executable.runSpec.interpreter})`);
    status = await runCode(api, job, executable, jobDir, home, root);
    result = outcomeOf(home, status);
    say(result.error ? `${job.function} failed: ${result.error.message}` : `${job.function} finished`);
  } catch (error) {
    const runnerError = error instanceof RunnerError ? error : new RunnerError('ExecutionError', (error as Error).message);
    say(`The job could not run: ${runnerError.message}`);
    result = { error: { type: runnerError.type, message: runnerError.message } };
  }
  try {
    await api.call(jobId, 'reportOutcome', { try: tryNumber, exitCode: status.exitCode, signal: status.signal, ...result }, REPORT_PATIENCE_MS);
    return 0;
  } catch (error) {
    say(`Reporting the outcome failed: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
