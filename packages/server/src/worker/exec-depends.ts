import path from 'node:path';
import { type CommandRunner, runCommand } from './run-command.js';

/**
 * `runSpec.execDepends`: the packages an executable needs on its worker, installed before the entry
 * point runs, as DNAnexus workers do. `apt` (the default manager) packages are looked up with
 * dpkg-query and the missing ones installed with apt-get; `pip` packages are looked up with
 * importlib.metadata and the missing ones installed with pip into the job's own directory. `gem`,
 * `cpan` and `cran` are not supported: the log says so and the job goes on without them.
 *
 * What a worker may do is the `engine.execDepends` setting: `install` (the default when the server
 * runs as root), `check` (fail the job when a package is missing; the default otherwise) or `ignore`.
 */

export type ExecDependsMode = 'install' | 'check' | 'ignore';

export interface ExecDepend {
  name: string;
  version?: string;
  package_manager?: string;
  /** Entry points the package is for (all when absent). */
  stages?: string[];
}

export class ExecDependsError extends Error {}

export function defaultExecDependsMode(): ExecDependsMode {
  return process.getuid?.() === 0 ? 'install' : 'check';
}

/**
 * The entries of `execDepends` that apply to `entryPoint`, checked (names that could pass for options
 * or carry shell or path syntax are refused: they go on command lines).
 */
export function applicableDepends(execDepends: unknown, entryPoint: string): ExecDepend[] {
  if (execDepends === undefined || execDepends === null) return [];
  if (!Array.isArray(execDepends)) throw new ExecDependsError('runSpec.execDepends must be a list');
  const wanted: ExecDepend[] = [];
  for (const [index, entry] of execDepends.entries()) {
    const item = entry as Partial<ExecDepend> | null;
    if (!item || typeof item !== 'object' || typeof item.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9.+_:-]*$/.test(item.name)) {
      throw new ExecDependsError(`runSpec.execDepends[${index}] needs a package name (letters, digits and . + _ : -)`);
    }
    if (item.version !== undefined && (typeof item.version !== 'string' || !/^[A-Za-z0-9.+~:_*<>=!,-]+$/.test(item.version))) {
      throw new ExecDependsError(`runSpec.execDepends[${index}] (${item.name}): the version "${String(item.version)}" is not a package version`);
    }
    if (Array.isArray(item.stages) && !item.stages.includes(entryPoint)) continue;
    wanted.push({ name: item.name, version: item.version, package_manager: item.package_manager ?? 'apt', stages: item.stages });
  }
  return wanted;
}

/** Installed apt packages seen recently, by name → version: dpkg-query costs 20 ms and more per call. */
const aptSeen = new Map<string, { version: string; at: number }>();
const APT_SEEN_MS = 5 * 60_000;

/** Answers undefined when this worker has no dpkg (not a Debian or Ubuntu system). */
async function installedAptVersions(names: string[], run: CommandRunner): Promise<Map<string, string> | undefined> {
  const versions = new Map<string, string>();
  const now = Date.now();
  const unknown = names.filter((name) => {
    const seen = aptSeen.get(name);
    if (seen && now - seen.at < APT_SEEN_MS) versions.set(name, seen.version);
    return !versions.has(name);
  });
  if (!unknown.length) return versions;
  // Exit status 1 when some name is unknown: the lines of the others are still printed.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax, not a template
  const result = await run('dpkg-query', ['-W', '-f=${Package} ${Status} ${Version}\\n', ...unknown]);
  if (result.status === null && /ENOENT/.test(result.stderr)) return undefined;
  for (const line of result.stdout.split('\n')) {
    const [name, , , status, version] = line.split(' ');
    if (name && status === 'installed' && version) {
      versions.set(name, version);
      aptSeen.set(name, { version, at: now });
    }
  }
  return versions;
}

/** apt's `name=version` takes a version or a glob (`1.16*`). */
function versionMatches(installed: string, wanted: string): boolean {
  if (!wanted.includes('*')) return installed === wanted;
  const pattern = wanted.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${pattern}$`).test(installed);
}

const lastLines = (text: string, count = 5) => text.trim().split('\n').slice(-count).join(' | ');

async function satisfyApt(depends: ExecDepend[], mode: ExecDependsMode, say: (message: string) => unknown, run: CommandRunner): Promise<void> {
  const installed = await installedAptVersions(
    depends.map((item) => item.name.split(':')[0] as string),
    run,
  );
  if (!installed) {
    // Apt packages name Debian and Ubuntu packages: elsewhere the tools must be on PATH by other means.
    await say(`No dpkg on this worker: not checking the apt packages of execDepends (${depends.map((item) => item.name).join(' ')})`);
    return;
  }
  const missing = depends.filter((item) => {
    const version = installed.get(item.name.split(':')[0] as string);
    return version === undefined || (item.version !== undefined && !versionMatches(version, item.version));
  });
  if (!missing.length) return;
  const wanted = missing.map((item) => (item.version ? `${item.name}=${item.version}` : item.name));
  if (mode === 'check') {
    throw new ExecDependsError(
      `execDepends: not installed on this worker: ${wanted.join(', ')} (engine.execDepends is "check": install them, or let the workers install them)`,
    );
  }
  await say(`Installing execDepends with apt-get: ${wanted.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=600', ...wanted], env);
  let result = await install();
  if (result.status !== 0) {
    // Stale package lists are the usual cause: refresh them once.
    await say('apt-get install failed; updating the package lists and trying again');
    await run('apt-get', ['update', '-o', 'DPkg::Lock::Timeout=600'], env);
    result = await install();
  }
  for (const item of missing) aptSeen.delete(item.name);
  if (result.status !== 0)
    throw new ExecDependsError(`execDepends: apt-get could not install ${wanted.join(' ')}: ${lastLines(result.stderr || result.stdout)}`);
}

/** The pip packages, into `<jobDir>/python-packages`; answers the variables that make Python find them. */
async function satisfyPip(
  depends: ExecDepend[],
  mode: ExecDependsMode,
  jobDir: string,
  env: Record<string, string>,
  say: (message: string) => unknown,
  run: CommandRunner,
): Promise<void> {
  const check = `import importlib.metadata as m, sys
for name in sys.argv[1:]:
    try: print(name, m.version(name))
    except m.PackageNotFoundError: print(name, '-')`;
  const found = await run('python3', ['-c', check, ...depends.map((item) => item.name)], env);
  if (found.status !== 0) throw new ExecDependsError(`execDepends: python3 could not look up the pip packages: ${lastLines(found.stderr)}`);
  const versions = new Map(
    found.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string]),
  );
  // A pinned version other than the one present is installed into the job's directory.
  const missing = depends.filter((item) => {
    const version = versions.get(item.name);
    return !version || version === '-' || (item.version !== undefined && item.version !== version && item.version !== `==${version}`);
  });
  if (!missing.length) return;
  const wanted = missing.map((item) => (item.version ? `${item.name}${/^[<>=!~]/.test(item.version) ? '' : '=='}${item.version}` : item.name));
  if (mode === 'check') throw new ExecDependsError(`execDepends: pip packages not installed on this worker: ${wanted.join(', ')}`);
  const target = path.join(jobDir, 'python-packages');
  await say(`Installing execDepends with pip: ${wanted.join(' ')}`);
  const result = await run('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, ...wanted], env);
  if (result.status !== 0) throw new ExecDependsError(`execDepends: pip could not install ${wanted.join(' ')}: ${lastLines(result.stderr || result.stdout)}`);
  env.PYTHONPATH = [target, env.PYTHONPATH].filter(Boolean).join(':');
  env.PATH = [path.join(target, 'bin'), env.PATH].filter(Boolean).join(':');
}

/** Installs (or checks) what the entry point needs; adjusts `env` (the job's) for packages in the job's directory. */
export async function satisfyExecDepends(
  execDepends: unknown,
  options: {
    entryPoint: string;
    mode: ExecDependsMode;
    jobDir: string;
    env: Record<string, string>;
    say: (message: string) => unknown;
    run?: CommandRunner;
  },
): Promise<void> {
  const depends = applicableDepends(execDepends, options.entryPoint);
  if (!depends.length) return;
  if (options.mode === 'ignore') {
    await options.say(`Not installing execDepends (engine.execDepends is "ignore"): ${depends.map((item) => item.name).join(' ')}`);
    return;
  }
  const run = options.run ?? runCommand;
  const byManager = new Map<string, ExecDepend[]>();
  for (const item of depends) byManager.set(item.package_manager ?? 'apt', [...(byManager.get(item.package_manager ?? 'apt') ?? []), item]);
  for (const [manager, items] of byManager) {
    if (manager === 'apt') await satisfyApt(items, options.mode, options.say, run);
    else if (manager === 'pip') await satisfyPip(items, options.mode, options.jobDir, options.env, options.say, run);
    else
      await options.say(`execDepends with package_manager "${manager}" are not supported here; going on without ${items.map((item) => item.name).join(', ')}`);
  }
}
