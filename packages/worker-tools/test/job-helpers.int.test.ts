import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type HelperHost, startHelperHost } from '../src/host.js';
import { jobEnv, readJson, runTool, tempDir, toolOk } from './run-tool.js';

/**
 * The helpers against a real server, in a job environment simulated without the engine: a project
 * stands in for the workspace (DX_WORKSPACE_ID), the admin token for the job token, and a temporary
 * HOME holds job_input.json, in/ and out/. One platform for the whole file keeps the suite short.
 */

const JOB = 'job-000000000000000000000JOB';
const md5 = (text: string | Buffer) => createHash('md5').update(text).digest('hex');

// Every call runs twice over: each bin as a Node process of its own, and through a helper host
// (src/host.ts) as jobs run them, where the host writes to the bin's own stdout and stderr.
describe.each(['process', 'helper host'] as const)('worker tools in a simulated job (%s)', (mode) => {
  let t: TestPlatform;
  let host: HelperHost | undefined;
  let workspace: string;
  let other: string;
  let home: string;
  let env: Record<string, string>;
  let ids: Record<string, string>;
  const dx = (...args: string[]) => toolOk('dx', args, env);

  beforeAll(async () => {
    t = await startTestPlatform();
    workspace = (await t.admin.call('project/new', { name: 'workspace stand-in' })).id;
    other = (await t.admin.call('project/new', { name: 'launch project' })).id;
    home = tempDir('worker-tools-job-');
    env = jobEnv({ url: t.url, token: t.adminToken, home, job: JOB, workspace, project: other });
    if (mode === 'helper host') {
      host = await startHelperHost({ keyFile: path.join(home, '.host', 'helper.key') });
      env.PANX_HELPER_PORT = String(host.port);
      env.PANX_HELPER_KEY_FILE = host.keyFile ?? '';
    }
    fs.mkdirSync(path.join(home, 'local'));
    for (const [name, text] of Object.entries({ 'a.txt': 'alpha\n', 'b.txt': 'bravo\n', 'c.txt': 'charlie\n', 'big.bin': 'x'.repeat(6 * 1024 * 1024 + 17) })) {
      fs.writeFileSync(path.join(home, 'local', name), text);
    }
    ids = {};
  }, 60_000);
  afterAll(async () => {
    await host?.close();
    await t?.close();
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  it('dx mkdir -p and dx upload --brief put files in the workspace (paths, renames, stdin, -p)', async () => {
    await dx('mkdir', '-p', '/data/sub');
    const without = await runTool('dx', ['mkdir', '/missing/child'], env);
    expect(without.code).toBe(1);
    ids.a = (await dx('upload', 'local/a.txt', '--brief')).trim();
    ids.b = (await dx('upload', 'local/b.txt', '--path', '/data/', '--brief')).trim();
    ids.c = (await dx('upload', 'local/c.txt', '--destination', '/data/sub/renamed.txt', '--brief')).trim();
    ids.big = (await dx('upload', 'local/big.bin', '--path', '/new/folder/', '-p', '--brief', '--wait')).trim();
    ids.stdin = (await toolOk('dx', ['upload', '-', '--path', '/data/from-stdin.txt', '--brief'], env, { input: 'piped\n' })).trim();
    for (const id of Object.values(ids)) expect(id).toMatch(/^file-[0-9A-Za-z]{24}$/);
    const described = await t.admin.call('file-xxxx/describe', ids.c as string, { project: workspace });
    expect([described.folder, described.name]).toEqual(['/data/sub', 'renamed.txt']);
    const big = await t.admin.call('file-xxxx/describe', ids.big as string, { project: workspace, fields: { parts: true, state: true, size: true } });
    expect(big.state).toBe('closed');
    expect(Object.keys(big.parts ?? {})).toHaveLength(1); // 16 MiB parts, as dx
    // Without --brief it prints the describe of the new file.
    const verbose = await dx('upload', 'local/a.txt', '--path', '/data/a-again.txt');
    expect(verbose).toMatch(/^ID\s+file-/m);
    expect(verbose).toMatch(/^Name\s+a-again\.txt$/m);
  });

  it('dx ls lists folders then objects, -l with details, a glob, and paths outside a job in DX_PROJECT_CONTEXT_ID', async () => {
    expect(await dx('ls', '/data')).toBe('sub/\na-again.txt\nb.txt\nfrom-stdin.txt\n');
    expect(await dx('ls')).toBe('data/\nnew/\na.txt\n');
    const long = await dx('ls', '-l', '/data/b.txt');
    expect(long).toMatch(/^closed\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d 6 bytes\s+ b\.txt \(file-/);
    expect((await dx('ls', '--brief', '/data/b.txt')).trim()).toBe(ids.b);
    expect((await dx('ls', '/data/*-*.txt')).split('\n').filter(Boolean)).toEqual(['a-again.txt', 'from-stdin.txt']);
    const outside = { ...env, DX_JOB_ID: '' };
    expect(await toolOk('dx', ['ls', '/'], outside)).toBe('');
    expect(await toolOk('dx', ['ls', `${workspace}:/data/sub`], outside)).toBe('renamed.txt\n');
  });

  it('dx cat, dx download (paths, IDs, -o, -f, -r) and dx describe --json', async () => {
    expect(await dx('cat', '/data/b.txt', ids.a as string)).toBe('bravo\nalpha\n');
    await dx('download', '/data/b.txt', '-o', 'got-b.txt');
    expect(fs.readFileSync(path.join(home, 'got-b.txt'), 'utf8')).toBe('bravo\n');
    await dx('download', ids.a as string);
    expect(fs.readFileSync(path.join(home, 'a.txt'), 'utf8')).toBe('alpha\n');
    const again = await runTool('dx', ['download', ids.a as string], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    await dx('download', '-f', ids.a as string);
    await dx('download', '-r', '/data', '-o', 'tree');
    expect(fs.readFileSync(path.join(home, 'tree', 'data', 'sub', 'renamed.txt'), 'utf8')).toBe('charlie\n');
    expect(await dx('download', '/data/from-stdin.txt', '-o', '-')).toBe('piped\n');

    const described = JSON.parse(await dx('describe', ids.b as string, '--json')) as Record<string, unknown>;
    expect(described).toMatchObject({ id: ids.b, class: 'file', project: workspace, folder: '/data', name: 'b.txt', state: 'closed', size: 6 });
    expect(described).toHaveProperty('properties');
    const byPath = JSON.parse(await dx('describe', '/data/sub/renamed.txt', '--json')) as Record<string, unknown>;
    expect(byPath.id).toBe(ids.c);
    const project = JSON.parse(await dx('describe', workspace, '--json')) as Record<string, unknown>;
    expect(project).toMatchObject({ id: workspace, name: 'workspace stand-in' });
    expect(await dx('describe', ids.b as string)).toMatch(/^Folder\s+\/data$/m);
  });

  it('dx find data by name glob, class and folder, as lines, --brief and --json', async () => {
    const brief = (await dx('find', 'data', '--name', '*.txt', '--brief')).trim().split('\n');
    expect(brief).toHaveLength(5); // a, b, renamed, from-stdin and a-again
    expect(brief).toEqual(expect.arrayContaining([ids.a, ids.b, ids.c, ids.stdin].map((id) => `${workspace}:${id}`)));
    const inData = JSON.parse(await dx('find', 'data', '--class', 'file', '--path', '/data/sub', '--json')) as { id: string; describe: { name: string } }[];
    expect(inData.map((hit) => [hit.id, hit.describe.name])).toEqual([[ids.c, 'renamed.txt']]);
    const lines = await dx('find', 'data', '--name', 'b.txt');
    expect(lines).toMatch(/^closed\s+\S+ \S+ 6 bytes\s+ \/data\/b\.txt \(file-/);
  });

  it('dx-download-all-inputs puts single files in in/<input>/ and arrays in numbered folders, describing in the workspace', async () => {
    const input = {
      reads: { $dnanexus_link: { project: other, id: ids.a } },
      pair: [{ $dnanexus_link: ids.b }, { $dnanexus_link: ids.b }, { $dnanexus_link: ids.c }],
      skipped: { $dnanexus_link: ids.stdin },
      nums: [1, 2],
      label: 'x',
    };
    fs.writeFileSync(path.join(home, 'job_input.json'), JSON.stringify(input));
    const out = await toolOk('dx-download-all-inputs', ['--except', 'skipped', '--parallel'], env);
    expect(out).toContain(`downloading file: ${ids.a} to filesystem: ${path.join(home, 'in', 'reads', 'a.txt')}`);
    const read = (...parts: string[]) => fs.readFileSync(path.join(home, 'in', ...parts), 'utf8');
    expect(read('reads', 'a.txt')).toBe('alpha\n');
    expect(read('pair', '0', 'b.txt')).toBe('bravo\n');
    expect(read('pair', '1', 'b.txt')).toBe('bravo\n');
    expect(read('pair', '2', 'renamed.txt')).toBe('charlie\n');
    expect(fs.existsSync(path.join(home, 'in', 'skipped'))).toBe(false);
    expect(fs.readdirSync(path.join(home, 'in')).sort()).toEqual(['nums', 'pair', 'reads']); // dxpy makes a folder for every array
    // Running it again overwrites what is there.
    await toolOk('dx-download-all-inputs', [], env);
    expect(read('reads', 'a.txt')).toBe('alpha\n');
  });

  it('dx-print-bash-vars prints the variables of job_input.json, with the inputSpec patterns', async () => {
    const specFile = path.join(home, 'dxapp.json');
    fs.writeFileSync(specFile, JSON.stringify({ inputSpec: [{ name: 'pair', class: 'array:file', patterns: ['*named.txt'] }] }));
    const out = await toolOk('dx-print-bash-vars', ['--input-spec', specFile], env);
    expect(out.split('\n')).toEqual([
      'export nums=( 1 2 )',
      'export label=x',
      `export reads=( '{"$dnanexus_link": "${ids.a}"}' )`,
      'export reads_name=( a.txt )',
      'export reads_prefix=( a )',
      `export reads_path=( ${home}/in/reads/a.txt )`,
      `export pair=( '{"$dnanexus_link": "${ids.b}"}' '{"$dnanexus_link": "${ids.b}"}' '{"$dnanexus_link": "${ids.c}"}' )`,
      'export pair_name=( b.txt b.txt renamed.txt )',
      'export pair_prefix=( b b re )',
      `export pair_path=( ${home}/in/pair/0/b.txt ${home}/in/pair/1/b.txt ${home}/in/pair/2/renamed.txt )`,
      `export skipped=( '{"$dnanexus_link": "${ids.stdin}"}' )`,
      'export skipped_name=( from-stdin.txt )',
      'export skipped_prefix=( from-stdin )',
      `export skipped_path=( ${home}/in/skipped/from-stdin.txt )`,
      '',
    ]);
    // Outside a job the spec comes from DX_TEST_DXAPP_JSON, as with dxpy.
    const outside = await toolOk('dx-print-bash-vars', [], { ...env, DX_JOB_ID: '', DX_TEST_DXAPP_JSON: specFile, DX_PROJECT_CONTEXT_ID: workspace });
    expect(outside).toContain('export pair_prefix=( b b re )');
  });

  it('dx-upload-all-outputs uploads out/<field>/ into the workspace and merges the links into job_output.json', async () => {
    const outDir = path.join(home, 'out');
    const write = (relative: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(outDir, relative)), { recursive: true });
      fs.writeFileSync(path.join(outDir, relative), text);
    };
    write('report/summary.txt', 'summary\n');
    write('chunks/1.txt', 'one\n');
    write('chunks/2.txt', 'two\n');
    write('chunks/deeper/3.txt', 'three\n');
    write('chunks/.hidden', 'never\n');
    write('extra/x.txt', 'x\n');
    write('excluded/y.txt', 'y\n');
    const previous = { $dnanexus_link: ids.a };
    fs.writeFileSync(path.join(home, 'job_output.json'), JSON.stringify({ count: 3, chunks: previous }));
    const specFile = path.join(home, 'spec.json');
    fs.writeFileSync(
      specFile,
      JSON.stringify([
        { name: 'report', class: 'file' },
        { name: 'chunks', class: 'array:file' },
        { name: 'count', class: 'int' },
        { name: 'absent', class: 'file', optional: true },
      ]),
    );
    const result = await runTool('dx-upload-all-outputs', ['--output-spec', specFile, '--except', 'excluded', '--parallel'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Warning: output key absent not generated');
    expect(result.stdout).toContain(`uploaded file ${path.join(outDir, 'chunks', 'deeper', '3.txt')} -> /deeper/3.txt`);

    const output = readJson(path.join(home, 'job_output.json')) as Record<string, unknown>;
    expect(Object.keys(output)).toEqual(['count', 'chunks', 'extra', 'report']);
    expect(output.count).toBe(3);
    const chunks = output.chunks as { $dnanexus_link: string }[];
    expect(chunks).toHaveLength(4);
    expect(chunks[0]).toEqual(previous);
    const linkOf = (value: unknown) => (value as { $dnanexus_link: string }).$dnanexus_link;
    const describe = (id: string) =>
      t.admin.call('file-xxxx/describe', id, { project: workspace, fields: { name: true, folder: true, state: true, md5: true } });
    const uploaded = await Promise.all(chunks.slice(1).map((link) => describe(link.$dnanexus_link)));
    expect(uploaded.map((d) => `${d.folder}|${d.name}|${d.state}`)).toEqual(['/|1.txt|closed', '/|2.txt|closed', '/deeper|3.txt|closed']);
    expect((await describe(linkOf(output.report))).name).toBe('summary.txt');
    expect((await describe(linkOf(output.extra))).name).toBe('x.txt');
    expect(md5(await dx('cat', linkOf(output.report)))).toBe(md5('summary\n'));
    expect(fs.readFileSync(path.join(home, 'job_output.json'), 'utf8')).toMatch(/^\{\n {4}"count": 3,\n/);
  });

  it('talks to the API as in DNAnexus traffic: inputs described and new files created in the workspace', async () => {
    // A recording proxy in front of the server (signed part and download URLs go to the server directly).
    const calls: { route: string; body: Record<string, unknown> }[] = [];
    const proxy = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', async () => {
        calls.push({ route: req.url ?? '', body: JSON.parse(text || '{}') as Record<string, unknown> });
        const answer = await fetch(`${t.url}${req.url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
          body: text || '{}',
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(await answer.text());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxied = { ...env, DX_APISERVER_PORT: String((proxy.address() as AddressInfo).port) };
      // One input in the workspace (where the platform clones a job's inputs), one only in its own project.
      const elsewhere = (await dx('upload', 'local/c.txt', '--path', `${other}:/elsewhere.txt`, '--brief')).trim();
      fs.writeFileSync(
        path.join(home, 'job_input.json'),
        JSON.stringify({ one: { $dnanexus_link: { project: other, id: ids.b } }, two: { $dnanexus_link: { project: other, id: elsewhere } } }),
      );
      await toolOk('dx-download-all-inputs', [], proxied);
      // The inputs are described in the workspace, all in one call...
      const batch = calls.filter((call) => call.route === '/system/describeDataObjects');
      expect(batch).toHaveLength(1);
      expect(batch[0]?.body).toEqual({
        objects: [ids.b, elsewhere].map((id) => ({ id, project: workspace, describe: { defaultFields: true, fields: { parts: true } } })),
      });
      expect(calls.find((call) => call.route === `/${ids.b}/download`)?.body).toMatchObject({ project: workspace });
      // ...and one that is not there, one by one as dxpy does: the workspace, then the link's project.
      expect(calls.filter((call) => call.route === `/${elsewhere}/describe`).map((call) => call.body.project)).toEqual([workspace, other]);
      expect(calls.find((call) => call.route === `/${elsewhere}/download`)?.body).toMatchObject({ project: other });
      expect(fs.readFileSync(path.join(home, 'in', 'two', 'elsewhere.txt'), 'utf8')).toBe('charlie\n');

      calls.length = 0;
      fs.rmSync(path.join(home, 'out'), { recursive: true, force: true });
      fs.mkdirSync(path.join(home, 'out', 'result'), { recursive: true });
      fs.writeFileSync(path.join(home, 'out', 'result', 'r.txt'), 'r\n');
      await toolOk('dx-upload-all-outputs', ['--output-spec', path.join(home, 'spec.json')], proxied);
      const created = calls.find((call) => call.route === '/file/new')?.body;
      expect(created).toMatchObject({ project: workspace, folder: '/', name: 'r.txt', parents: false });
      expect(created?.nonce).toEqual(expect.any(String));
      const routes = calls.map((call) => call.route.replace(/file-\w+/, 'F').replace(/project-\w+/, 'P'));
      expect(routes).toEqual(expect.arrayContaining(['/file/new', '/F/upload', '/F/close']));
      // A file of at most 5 MiB goes in one part whatever the project's upload parameters: not asked for.
      expect(routes).not.toContain('/P/describe');
      // Panx's close says the file is closed already: no describe to wait for it (DNAnexus would be asked).
      expect(routes.slice(routes.indexOf('/F/close'))).toEqual(['/F/close']);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('dx-upload-all-outputs reports a file output with two files in job_error.json', async () => {
    fs.rmSync(path.join(home, 'out'), { recursive: true, force: true });
    fs.mkdirSync(path.join(home, 'out', 'report'), { recursive: true });
    fs.writeFileSync(path.join(home, 'out', 'report', 'a'), 'a');
    fs.writeFileSync(path.join(home, 'out', 'report', 'b'), 'b');
    const specFile = path.join(home, 'spec.json');
    const result = await runTool('dx-upload-all-outputs', ['--output-spec', specFile], env);
    expect(result.code).toBe(1);
    expect(readJson(path.join(home, 'job_error.json'))).toEqual({
      error: { type: 'AppInternalError', message: 'key report is of class file but there are 2 files' },
    });
  });

  it("takes the outputSpec from HOME's dnanexus-job.json and dnanexus-executable.json when they are this job's, else asks the API", async () => {
    fs.rmSync(path.join(home, 'out'), { recursive: true, force: true });
    fs.rmSync(path.join(home, 'job_error.json'), { force: true });
    fs.mkdirSync(path.join(home, 'out', 'count'), { recursive: true });
    fs.writeFileSync(path.join(home, 'out', 'count', 'n'), '3');
    const writeHome = (job: object, executable: object) => {
      fs.writeFileSync(path.join(home, 'dnanexus-job.json'), JSON.stringify(job));
      fs.writeFileSync(path.join(home, 'dnanexus-executable.json'), JSON.stringify(executable));
    };
    const applet = 'applet-000000000000000000APPLET';
    const outputSpec = [{ name: 'count', class: 'int' }];
    try {
      // This job's files: the spec says count is an int, so a folder out/count is an error, found without the API.
      writeHome({ id: JOB, function: 'main', applet }, { id: applet, outputSpec });
      const fromHome = await runTool('dx-upload-all-outputs', [], env);
      expect(fromHome.code).toBe(1);
      expect(readJson(path.join(home, 'job_error.json'))).toEqual({
        error: { type: 'AppInternalError', message: 'key count is of class int but it appears in the output directory' },
      });
      // A subjob's entry point has no spec: nothing to check, so out/count/n is uploaded as it is.
      fs.rmSync(path.join(home, 'job_error.json'), { force: true });
      writeHome({ id: JOB, function: 'second', applet }, { id: applet, outputSpec });
      const subjob = await runTool('dx-upload-all-outputs', [], env);
      expect(subjob.code, subjob.stderr).toBe(0);
      expect(subjob.stdout).toContain('uploaded file');
      // Another job's files, or another executable's: the API is asked (and knows no job named JOB here).
      for (const [job, executable] of [
        [
          { id: 'job-111111111111111111111111', function: 'main', applet },
          { id: applet, outputSpec },
        ],
        [
          { id: JOB, function: 'main', applet },
          { id: 'applet-222222222222222222222222', outputSpec },
        ],
      ]) {
        writeHome(job as object, executable as object);
        const asked = await runTool('dx-upload-all-outputs', [], env);
        expect(asked.code).toBe(1);
        expect(asked.stderr).toContain(`cannot describe the job ${JOB}`);
      }
    } finally {
      fs.rmSync(path.join(home, 'dnanexus-job.json'), { force: true });
      fs.rmSync(path.join(home, 'dnanexus-executable.json'), { force: true });
    }
  });

  it.runIf(mode === 'helper host')('served the calls in the host, with no fallback to a process of their own', () => {
    expect(host?.stats.served).toBeGreaterThan(20);
    expect(host?.stats.fallbacks).toBe(0);
  });
});
