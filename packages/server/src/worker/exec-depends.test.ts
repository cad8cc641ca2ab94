import { describe, expect, it } from 'vitest';
import { applicableDepends, ExecDependsError, satisfyExecDepends } from './exec-depends.js';
import { type CommandRunner, runCommand } from './run-command.js';

/** Runs the real commands, and records them; `apt-get` answers `aptStatus` without running (it would change the machine). */
function recording(aptStatus = 100) {
  const calls: string[][] = [];
  const run: CommandRunner = async (command, args, env) => {
    calls.push([command, ...args]);
    if (command === 'apt-get') return { status: aptStatus, stdout: '', stderr: 'E: Unable to locate package panx-no-such-package' };
    return runCommand(command, args, env);
  };
  return { calls, run };
}

const setup = (overrides: Partial<Parameters<typeof satisfyExecDepends>[1]> = {}) => {
  const said: string[] = [];
  return {
    said,
    options: {
      entryPoint: 'main',
      mode: 'check' as const,
      jobDir: '/tmp',
      env: { PATH: process.env.PATH ?? '' },
      say: (message: string) => said.push(message),
      ...overrides,
    },
  };
};

describe('execDepends', () => {
  it('keeps the entries for this entry point, apt by default, and refuses names that are not package names', () => {
    expect(
      applicableDepends(
        [
          { name: 'samtools' },
          { name: 'pysam', package_manager: 'pip', version: '0.22.0' },
          { name: 'only-in-b', stages: ['b'] },
          { name: 'a-too', stages: ['main', 'b'] },
        ],
        'main',
      ).map((item) => `${item.package_manager}:${item.name}`),
    ).toEqual(['apt:samtools', 'pip:pysam', 'apt:a-too']);
    expect(applicableDepends(undefined, 'main')).toEqual([]);
    expect(() => applicableDepends({ name: 'x' }, 'main')).toThrow('must be a list');
    expect(() => applicableDepends([{ name: '-oAPT::Foo' }], 'main')).toThrow('execDepends[0] needs a package name');
    expect(() => applicableDepends([{ name: 'a b' }], 'main')).toThrow(ExecDependsError);
    expect(() => applicableDepends([{ name: 'ok', version: '1; rm -rf /' }], 'main')).toThrow('is not a package version');
  });

  it('finds installed apt packages with dpkg-query and runs nothing else', async () => {
    const { calls, run } = recording();
    const { said, options } = setup({ mode: 'install', run });
    await satisfyExecDepends([{ name: 'bash' }, { name: 'coreutils' }], options);
    expect(calls.map((call) => call[0])).not.toContain('apt-get');
    expect(said).toEqual([]);
  });

  it('takes an apt version as apt does: exact, or a glob', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    const installed = (await runCommand('dpkg-query', ['-W', '-f=${Version}', 'bash'])).stdout.trim();
    const { options } = setup({ mode: 'check' });
    await satisfyExecDepends([{ name: 'bash', version: installed }], options);
    await satisfyExecDepends([{ name: 'bash', version: `${installed.slice(0, 2)}*` }], options);
    await expect(satisfyExecDepends([{ name: 'bash', version: '0.*' }], options)).rejects.toThrow('not installed on this worker: bash=0.*');
  });

  it('in check mode, fails naming what is missing (or installed at another version), without apt-get', async () => {
    const { calls, run } = recording();
    const { options } = setup({ mode: 'check', run });
    await expect(satisfyExecDepends([{ name: 'bash' }, { name: 'panx-no-such-package' }, { name: 'coreutils', version: '0.0-panx' }], options)).rejects.toThrow(
      'not installed on this worker: panx-no-such-package, coreutils=0.0-panx',
    );
    expect(calls.map((call) => call[0])).not.toContain('apt-get');
  });

  it('in install mode, asks apt-get for the missing packages, refreshes the lists once when that fails, and reports apt-get error', async () => {
    const { calls, run } = recording();
    const { said, options } = setup({ mode: 'install', run });
    await expect(satisfyExecDepends([{ name: 'bash' }, { name: 'panx-no-such-package' }], options)).rejects.toThrow(
      'apt-get could not install panx-no-such-package: E: Unable to locate package panx-no-such-package',
    );
    const apt = calls.filter((call) => call[0] === 'apt-get').map((call) => call.filter((arg) => !arg.startsWith('-') && !arg.includes('=')).slice(1));
    expect(apt).toEqual([['install', 'panx-no-such-package'], ['update'], ['install', 'panx-no-such-package']]);
    expect(said[0]).toBe('Installing execDepends with apt-get: panx-no-such-package');
  });

  it('on a worker without dpkg (not Debian or Ubuntu), says so and leaves apt packages to the PATH', async () => {
    // dpkg-query is spawned under a name that does not exist, as on such a worker.
    const run: CommandRunner = (command, args, env) => runCommand(command === 'dpkg-query' ? 'panx-no-dpkg-query' : command, args, env);
    const { said, options } = setup({ mode: 'check', run });
    await satisfyExecDepends([{ name: 'samtools' }], options);
    expect(said).toEqual(['No dpkg on this worker: not checking the apt packages of execDepends (samtools)']);
  });

  it('in ignore mode says what it leaves out; other package managers than apt and pip are noted and skipped', async () => {
    const ignored = setup({ mode: 'ignore' });
    await satisfyExecDepends([{ name: 'panx-no-such-package' }], ignored.options);
    expect(ignored.said).toEqual(['Not installing execDepends (engine.execDepends is "ignore"): panx-no-such-package']);
    const gem = setup({ mode: 'check' });
    await satisfyExecDepends([{ name: 'rake', package_manager: 'gem' }], gem.options);
    expect(gem.said[0]).toContain('package_manager "gem" are not supported here; going on without rake');
  });

  it('finds pip packages with importlib.metadata, and in check mode fails on a missing one', async () => {
    const { options } = setup({ mode: 'check' });
    await satisfyExecDepends([{ name: 'pip', package_manager: 'pip' }], options);
    const pipVersion = (await runCommand('python3', ['-c', 'import importlib.metadata as m; print(m.version("pip"))'])).stdout.trim();
    await satisfyExecDepends([{ name: 'pip', package_manager: 'pip', version: pipVersion }], options);
    await expect(satisfyExecDepends([{ name: 'pip', package_manager: 'pip', version: '0.0.1' }], options)).rejects.toThrow('pip==0.0.1');
    await expect(satisfyExecDepends([{ name: 'panx-no-such-package', package_manager: 'pip' }], options)).rejects.toThrow(
      'pip packages not installed on this worker: panx-no-such-package',
    );
  });
});
