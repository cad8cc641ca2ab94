import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputValue } from '../src/commands/add-output.js';
import { jobEnv, readJson, runTool, tempDir, toolOk } from './run-tool.js';

const FILE = 'file-0123456789ABCDEFGHIJKLMN';
const JOB = 'job-0123456789ABCDEFGHIJKLMN';
const ANALYSIS = 'analysis-0123456789ABCDEFGHIJKLMN';

describe('dx-jobutil-add-output value detection', () => {
  it.each([
    ['auto', FILE, { $dnanexus_link: FILE }],
    ['auto', `${JOB}:reads`, { job: JOB, field: 'reads' }],
    ['auto', `${JOB}:a\\:b`, { job: JOB, field: 'a:b' }],
    ['auto', `${ANALYSIS}:stage-1.out`, { $dnanexus_link: { analysis: ANALYSIS, field: 'stage-1.out' } }],
    ['auto', '42', 42],
    ['auto', '2.5', 2.5],
    ['auto', 'true', true],
    ['auto', '{"a": [1]}', { a: [1] }],
    ['auto', '"quoted"', 'quoted'],
    ['auto', 'plain text', 'plain text'],
    ['auto', `${JOB}:`, `${JOB}:`],
    ['int', ' 1_000 ', 1000],
    ['float', '1e3', 1000],
    ['string', '42', '42'],
    ['boolean', 'T', true],
    ['boolean', '0', false],
    ['hash', '[1, 2]', [1, 2]],
    ['file', FILE, { $dnanexus_link: FILE }],
    ['record', '{"$dnanexus_link": "record-0123456789ABCDEFGHIJKLMN"}', { $dnanexus_link: 'record-0123456789ABCDEFGHIJKLMN' }],
    ['jobref', `${JOB}:out`, { job: JOB, field: 'out' }],
    ['analysisref', `${ANALYSIS}:out`, { $dnanexus_link: { analysis: ANALYSIS, field: 'out' } }],
  ])('--class %s %s', (cls, text, value) => {
    expect(outputValue(text, cls)).toEqual(value);
  });

  it.each([
    ['int', '1.5'],
    ['float', 'abc'],
    ['boolean', 'maybe'],
    ['hash', '{'],
    ['file', 'not-an-id'],
    ['jobref', 'job-123:out'],
    ['analysisref', `${JOB}:out`],
  ])('--class %s refuses %s with exit code 3', (cls, text) => {
    expect(() => outputValue(text, cls)).toThrow(expect.objectContaining({ exitCode: 3 }));
  });
});

describe('job output and error files', () => {
  let home: string;
  beforeAll(() => {
    home = tempDir('worker-tools-jobutil-');
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('writes job_output.json as dxpy does, replacing fields and appending to arrays', async () => {
    const env = jobEnv({ home });
    await toolOk('dx-jobutil-add-output', ['count', '3', '--class', 'int'], env);
    await toolOk('dx-jobutil-add-output', ['bam', FILE], env);
    await toolOk('dx-jobutil-add-output', ['count', '4'], env);
    await toolOk('dx-jobutil-add-output', ['ref', `${JOB}:ref`], env);
    await toolOk('dx-jobutil-add-output', ['names', 'a', '--class', 'array:string'], env);
    await toolOk('dx-jobutil-add-output', ['names', 'b', '--array'], env);
    const text = fs.readFileSync(path.join(home, 'job_output.json'), 'utf8');
    expect(text).toBe(
      `{\n    "count": 4,\n    "bam": {\n        "$dnanexus_link": "${FILE}"\n    },\n    "ref": {\n        "job": "${JOB}",\n        "field": "ref"\n    },\n    "names": [\n        "a",\n        "b"\n    ]\n}\n`,
    );
    const notArray = await runTool('dx-jobutil-add-output', ['count', '5', '--array'], env);
    expect(notArray.code).toBe(3);
    expect(notArray.stderr).toContain('was not an array');
    const badClass = await runTool('dx-jobutil-add-output', ['x', '1', '--class', 'bogus'], env);
    expect(badClass.code).toBe(2);
  });

  it('loses no field when 12 helpers add outputs at the same time (file lock)', async () => {
    const env = jobEnv({ home });
    fs.rmSync(path.join(home, 'job_output.json'), { force: true });
    const values = Array.from({ length: 12 }, (_, i) => i);
    await Promise.all(values.map((i) => toolOk('dx-jobutil-add-output', ['all', String(i), '--array'], env)));
    await Promise.all(values.map((i) => toolOk('dx-jobutil-add-output', [`field${i}`, String(i)], env)));
    const output = readJson(path.join(home, 'job_output.json')) as Record<string, unknown>;
    expect((output.all as number[]).sort((a, b) => a - b)).toEqual(values);
    for (const i of values) expect(output[`field${i}`]).toBe(i);
    expect(fs.readdirSync(home).filter((name) => name.includes('.lock') || name.endsWith('.tmp'))).toEqual([]);
  });

  it('takes over the lock of a helper that died holding it', async () => {
    const env = jobEnv({ home });
    fs.writeFileSync(path.join(home, 'job_output.json.lock'), '999999999 deadbeef');
    await toolOk('dx-jobutil-add-output', ['after', 'crash'], env);
    expect((readJson(path.join(home, 'job_output.json')) as Record<string, unknown>).after).toBe('crash');
    expect(fs.existsSync(path.join(home, 'job_output.json.lock'))).toBe(false);
  });

  it('dx-jobutil-report-error writes job_error.json and exits 1', async () => {
    const env = jobEnv({ home });
    const failed = await runTool('dx-jobutil-report-error', ['The input "reads" is empty'], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Exiting with nonzero exit code to report error');
    expect(fs.readFileSync(path.join(home, 'job_error.json'), 'utf8')).toBe(
      '{\n    "error": {\n        "type": "AppError",\n        "message": "The input \\"reads\\" is empty"\n    }\n}\n',
    );
    expect((await runTool('dx-jobutil-report-error', ['boom', 'AppInternalError'], env)).code).toBe(1);
    expect(readJson(path.join(home, 'job_error.json'))).toEqual({ error: { type: 'AppInternalError', message: 'boom' } });
    expect((await runTool('dx-jobutil-report-error', ['boom', 'OtherError'], env)).code).toBe(2);
  });
});

describe('dx-jobutil-new-job', () => {
  const requests: { url: string; auth: string | undefined; body: Record<string, unknown> }[] = [];
  let server: http.Server;
  let url: string;
  let home: string;
  const WORKSPACE = 'container-0123456789ABCDEFGHIJKLMN';

  beforeAll(async () => {
    home = tempDir('worker-tools-newjob-');
    // A stand-in API server that records what it is sent.
    server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => {
        const body = JSON.parse(text || '{}') as Record<string, unknown>;
        requests.push({ url: req.url ?? '', auth: req.headers.authorization, body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/job/new') res.end(JSON.stringify({ id: 'job-000000000000000000000NEW' }));
        else if (req.url === '/system/resolveDataObjects') {
          const named = (body.objects as { name: string }[])[0]?.name === 'reads.fq';
          res.end(JSON.stringify({ results: [named ? [{ project: WORKSPACE, id: 'file-00000000000000000000READ' }] : []] }));
        } else {
          res.statusCode = 404;
          res.end(JSON.stringify({ error: { type: 'ResourceNotFound', message: `no route ${req.url}` } }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('sends /job/new with the function, input, dependsOn, systemRequirements, name and a nonce, and prints the job ID', async () => {
    requests.length = 0;
    const env = jobEnv({ url, token: 'job-token', home, job: JOB, workspace: WORKSPACE, project: 'project-0123456789ABCDEFGHIJKLMN' });
    const out = await toolOk(
      'dx-jobutil-new-job',
      [
        'process',
        '-ireads=reads.fq',
        '-imode=fast',
        '-in=3',
        '-ilist=[1,2]',
        '-ichunk=1',
        '-ichunk=2',
        `-iprev=${JOB}:out.1`,
        '-iflag:boolean=true',
        '-ilabels:array:string=x',
        `-ifile=${FILE}`,
        '--instance-type',
        'mem1_ssd1_x4',
        '--name',
        'child',
        '--tag',
        't1',
        '--property',
        'k=v',
        '--depends-on',
        JOB,
        'file-00000000000000000000DEP1',
      ],
      env,
    );
    expect(out).toBe('job-000000000000000000000NEW\n');
    const jobNew = requests.find((request) => request.url === '/job/new');
    expect(jobNew?.auth).toBe('Bearer job-token');
    const { nonce, ...body } = jobNew?.body ?? {};
    expect(nonce).toMatch(/^[0-9a-f]{64}\d+\.\d{6}$/);
    expect(body).toEqual({
      function: 'process',
      name: 'child',
      dependsOn: [JOB, 'file-00000000000000000000DEP1'],
      systemRequirements: { process: { instanceType: 'mem1_ssd1_x4' } },
      properties: { k: 'v' },
      tags: ['t1'],
      input: {
        reads: { $dnanexus_link: { project: WORKSPACE, id: 'file-00000000000000000000READ' } },
        mode: 'fast',
        n: 3,
        list: [1, 2],
        chunk: [1, 2],
        prev: { $dnanexus_link: { job: JOB, field: 'out', index: 1 } },
        flag: true,
        labels: ['x'],
        file: { $dnanexus_link: FILE },
      },
    });
    // Names were looked up in the workspace, at DX_CLI_WD ("/").
    const lookups = requests.filter((request) => request.url === '/system/resolveDataObjects').map((request) => request.body);
    expect(lookups).toContainEqual({ project: WORKSPACE, objects: [{ name: 'reads.fq', folder: '/' }] });
  });

  it('merges -j and --extra-args, prints the request with --test, and refuses to run outside a job', async () => {
    requests.length = 0;
    const env = jobEnv({ url, token: 'job-token', home, workspace: WORKSPACE });
    const printed = await toolOk(
      'dx-jobutil-new-job',
      ['main2', '-j', '{"a": 1, "b": "x"}', '-ib=y', '--instance-type', '{"main2": "big", "other": "small"}', '--extra-args', '{"priority": "high"}', '--test'],
      env,
    );
    expect(JSON.parse(printed)).toEqual({
      function: 'main2',
      systemRequirements: { main2: { instanceType: 'big' }, other: { instanceType: 'small' } },
      priority: 'high',
      input: { a: 1, b: 'y' },
    });
    const outside = await runTool('dx-jobutil-new-job', ['main2'], env);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('DX_JOB_ID is not set');
    expect(requests.filter((request) => request.url === '/job/new')).toEqual([]);
  });
});
