import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../server/test/harness.js';
import { type PxOptions, pxOk, runPx, tempDir } from './run-px.js';

/** A dxapp.json folder like the ones `dx-app-wizard` makes: dxapp.json, src/ and resources/. */
function makeAppFolder(root: string): string {
  const dir = path.join(root, 'wc');
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'resources', 'usr', 'bin'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'dxapp.json'),
    JSON.stringify({
      name: 'wc',
      title: 'Word count',
      summary: 'Counts words',
      dxapi: '1.0.0',
      version: '0.0.1',
      inputSpec: [
        { name: 'text', class: 'file', patterns: ['*.txt'] },
        { name: 'label', class: 'string', default: 'words' },
      ],
      outputSpec: [{ name: 'count', class: 'int' }],
      runSpec: { interpreter: 'bash', file: 'src/wc.sh', distribution: 'Ubuntu', release: '24.04' },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'src', 'wc.sh'),
    `main() {
  echo "counting $text_name with $(count-tool --version)"
  api_url="$DX_APISERVER_PROTOCOL://$DX_APISERVER_HOST:$DX_APISERVER_PORT"
  auth="Authorization: Bearer $(jq -r .auth_token <<<"$DX_SECURITY_CONTEXT")"
  url=$(curl -sS -f -X POST "$api_url/$(jq -r '."$dnanexus_link"' <<<"$text")/download" -H "$auth" -H 'Content-Type: application/json' -d "{\\"project\\":\\"$DX_WORKSPACE_ID\\"}" | jq -r .url)
  n=$(curl -sS -f "$url" | wc -w)
  echo "$label: $n"
  echo "{\\"count\\": $n}" > job_output.json
}
`,
  );
  fs.writeFileSync(path.join(dir, 'resources', 'usr', 'bin', 'count-tool'), '#!/bin/sh\necho count-tool 1.0\n', { mode: 0o755 });
  return dir;
}

/** A dxapp.json folder `<root>/<name>` with no inputs or outputs and `script` as its bash entry points. */
function bashAppletFolder(root: string, name: string, script: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'dxapp.json'), JSON.stringify({ name, runSpec: { interpreter: 'bash', file: 'run.sh' }, inputSpec: [], outputSpec: [] }));
  fs.writeFileSync(path.join(dir, 'run.sh'), script);
  return dir;
}

describe('px build, run, watch, find jobs and terminate against a real server', () => {
  let t: TestPlatform;
  let home: string;
  let project: string;
  const opts = (extra: Partial<PxOptions> = {}): PxOptions => ({ configDir: home, ...extra });
  const px = (...args: string[]) => runPx(args, opts());
  const ok = (...args: string[]) => pxOk(args, opts());

  beforeAll(async () => {
    t = await startTestPlatform(undefined, { engine: { local: { cores: 8, memoryMB: 64_000 }, tickMs: 200 } });
    home = tempDir('px-jobs-home-');
    await ok('login', '--server', t.url, '--token', t.adminToken);
    project = (await ok('new', 'project', 'jobs', '--select')).trim();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('builds an applet from a folder, runs it on a file by name, watches its log and finds it', async () => {
    const dir = makeAppFolder(home);
    const built = JSON.parse(await ok('build', dir)) as { id: string };
    expect(built.id).toMatch(/^applet-/);
    const applet = (await t.admin.post(built.id, 'get', {})) as {
      runSpec: { code: string; bundledDepends: { name: string; id: { $dnanexus_link: string } }[] };
    };
    expect(applet.runSpec.code).toContain('count-tool');
    const [bundle] = applet.runSpec.bundledDepends;
    expect(bundle?.name).toBe('resources.tar.gz');
    expect(await t.admin.post(bundle?.id.$dnanexus_link ?? '', 'describe', { project, properties: true })).toMatchObject({
      hidden: true,
      properties: { resource_bundle_checksum: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    // The same resources are not uploaded twice; an applet of the same name needs -f.
    expect((await px('build', dir)).stderr).toMatch(/already in \/wc.*-f/);
    const rebuilt = JSON.parse(await ok('build', dir, '-f')) as { id: string };
    const again = (await t.admin.post(rebuilt.id, 'get', {})) as typeof applet;
    expect(again.runSpec.bundledDepends[0]?.id).toEqual(bundle?.id);
    await expect(t.admin.post(built.id, 'describe', { project })).rejects.toMatchObject({ type: 'ResourceNotFound' });

    fs.writeFileSync(path.join(home, 'poem.txt'), 'the quick brown fox jumps\n');
    await ok('upload', path.join(home, 'poem.txt'), '--wait');
    const run = await runPx(['run', 'wc', '-itext=poem.txt', '-y', '--watch', '--folder', '/results'], opts());
    expect(run.code, run.stderr).toBe(0);
    const [jobId, ...lines] = run.stdout.trim().split('\n');
    expect(jobId).toMatch(/^job-/);
    expect(lines.some((line) => line.includes('counting poem.txt with count-tool 1.0'))).toBe(true);
    expect(lines.some((line) => /\(STDOUT\) words: 5$/.test(line))).toBe(true);
    expect(run.stderr).toContain(`${jobId} is done`);

    const found = await ok('find', 'jobs');
    expect(found).toMatch(new RegExp(`Word count\\s+done\\s+${jobId}`));
    const described = JSON.parse(await ok('describe', jobId ?? '', '--json')) as { output: unknown; folder: string };
    expect(described).toMatchObject({ output: { count: 5 }, folder: '/results' });

    const bad = await px('run', 'wc', '-itext=poem.txt', '-icount=3', '-y');
    expect(bad.code).toBe(3);
    expect(bad.stderr).toContain('no input "count"');
  }, 120_000);

  it('builds and publishes an app from the same folder, runs it by name with a file id and an instance type; its resources come from the app', async () => {
    const dir = makeAppFolder(home);
    const buildOut = await ok('build', dir, '--app', '--version', '1.2.0', '--publish');
    const built = JSON.parse(buildOut) as { id: string };
    expect(built.id).toMatch(/^app-/);
    const app = (await t.admin.post('app-wc', 'describe', {})) as { id: string; version: string; published: number; resources: string };
    expect(app).toMatchObject({ id: built.id, version: '1.2.0', published: expect.any(Number), resources: expect.stringMatching(/^container-/) });

    fs.writeFileSync(path.join(home, 'short.txt'), 'two words\n');
    const file = JSON.parse(await ok('upload', path.join(home, 'short.txt'), '--wait', '--json')) as { id: string }[];
    const run = await runPx(['run', 'app-wc/1.2.0', `-itext=${file[0]?.id}`, '-ilabel=app', '--instance-type', 'mem2_ssd1_x1', '-y', '--watch'], opts());
    expect(run.code, run.stderr).toBe(0);
    const jobId = run.stdout.trim().split('\n')[0] ?? '';
    expect(run.stdout).toContain('counting short.txt with count-tool 1.0');
    const job = (await t.admin.post(jobId, 'describe', {})) as Record<string, unknown>;
    expect(job).toMatchObject({ state: 'done', app: built.id, instanceType: 'mem2_ssd1_x1', output: { count: 2 } });
    // The resources bundle lives in the app's resources container, not in the project.
    const bundle = ((await t.admin.post(built.id, 'get', {})) as { runSpec: { bundledDepends: { id: { $dnanexus_link: string | { id: string } } }[] } }).runSpec
      .bundledDepends[0]?.id.$dnanexus_link;
    const bundleId = typeof bundle === 'string' ? bundle : (bundle?.id ?? '');
    expect(await t.admin.post(bundleId, 'describe', { project: app.resources })).toMatchObject({ project: app.resources });
  }, 120_000);

  it('px watch follows a job and its subjobs, each line under its job; --no-recurse only the job', async () => {
    await ok(
      'build',
      bashAppletFolder(
        home,
        'fan',
        'main() { echo "parent starts"; for i in 1 2; do dx-jobutil-new-job leaf -in=$i >/dev/null; done; }\nleaf() { echo "leaf $n says hi"; }\n',
      ),
    );
    const jobId = (await ok('run', 'fan', '-y')).trim();
    const watched = await runPx(['watch', jobId], opts());
    expect(watched.code, watched.stderr).toBe(0);
    const lines = watched.stdout.split('\n');
    expect(lines.some((line) => line.includes(jobId) && line.endsWith('parent starts'))).toBe(true);
    const subjobs = (await t.admin.post('system', 'findJobs', { parentJob: jobId })) as { results: { id: string }[] };
    expect(subjobs.results).toHaveLength(2);
    for (const { id } of subjobs.results) expect(lines.some((line) => line.includes(id) && /leaf [12] says hi$/.test(line))).toBe(true);
    const alone = await runPx(['watch', jobId, '--no-recurse'], opts());
    expect(alone.stdout).toContain('parent starts');
    expect(alone.stdout).not.toContain('says hi');
  }, 60_000);

  it('terminates a running job, and px watch exits 3 for it', async () => {
    await ok('build', bashAppletFolder(home, 'sleepy', 'main() { echo sleeping; sleep 300; }\n'));
    const jobId = (await ok('run', 'sleepy', '-y')).trim();
    const watching = runPx(['watch', jobId], opts());
    for (let i = 0; i < 100 && ((await t.admin.post(jobId, 'describe', {})) as { state: string }).state !== 'running'; i++)
      await new Promise((r) => setTimeout(r, 100));
    await ok('terminate', jobId);
    const watched = await watching;
    expect(watched.code).toBe(3);
    expect(watched.stderr).toContain('terminated');
  }, 60_000);
});
