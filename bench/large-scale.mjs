// Target 2: queries over a large project.
//   - system/findDataObjects with a name glob over 1,000,000 objects: < 50 ms
//   - a 1,000-entry listFolder page in a folder of 100,000 files: < 20 ms
// Seeds the database the server uses directly (bulk SQL in transactions, rows as the services write
// them: an `objects` row, an `objectCopies` row per object, and `folders` rows), then times the calls
// over HTTP (median and p95 of N sequential calls on one keep-alive connection; pass = p95 under the
// target) and prints the query plans of the SQL those calls issue (captured from the real request
// path, run in-process through Fastify's inject) to show index use.
//
//   node bench/large-scale.mjs [--backends=sqlite,postgres] [--objects=1000000] [--folder-files=100000]
//        [--runs=30] [--sqlite-analyze] [--keep] [--data=DIR] [--no-build]
//
// --data=DIR: seed into DIR (and a PostgreSQL database named in DIR/postgres/bench-state.json) and
// keep it; a later run with the same --data and sizes reuses it instead of seeding again (new
// migrations are applied when the server starts). Without it, everything is removed at the end.
// --sqlite-analyze: run ANALYZE on the SQLite database after seeding (the server itself never does,
// so the default measures what an installation has).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import {
  backendsFrom,
  build,
  createPgDatabase,
  fmt,
  parseArgs,
  printMachine,
  printTable,
  ROOT,
  rawCall,
  saveResults,
  startPanx,
  summarize,
  waitForQuiet,
} from './lib.mjs';

const args = parseArgs();
const OBJECTS = Number(args.objects ?? 1_000_000);
const FOLDER_FILES = Math.min(OBJECTS, Number(args['folder-files'] ?? 100_000));
const RUNS = Number(args.runs ?? 30);
const WARMUP = 3;
const ID_ALPHABET = '0123456789BFGJKPQVXYZbfgjkpqvxyz';
const OTHER_FOLDER_SIZE = 10_000;
const ADMIN = 'user-admin';

build(args);
const machine = printMachine();
console.log(
  `${OBJECTS.toLocaleString('en-US')} objects; folder /big holds ${FOLDER_FILES.toLocaleString('en-US')}; ${RUNS} timed runs per call after ${WARMUP} warm-up\n`,
);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'panx-bench-large-'));

// ---------- synthetic data ----------

function newIds(count) {
  const bytes = randomBytes(count * 24);
  const ids = new Array(count);
  for (let i = 0; i < count; i++) {
    let body = '';
    for (let j = 0; j < 24; j++) body += ID_ALPHABET[bytes[i * 24 + j] & 31];
    ids[i] = `file-${body}`;
  }
  return ids;
}

/** Object i: `sample_<i>.bam`; the first FOLDER_FILES in /big, the rest in /data/batch_NNN of 10,000 each. */
function folderOf(i) {
  if (i < FOLDER_FILES) return '/big';
  return `/data/batch_${String(Math.floor((i - FOLDER_FILES) / OTHER_FOLDER_SIZE)).padStart(3, '0')}`;
}

function allFolders() {
  const folders = new Set(['/big']);
  if (OBJECTS > FOLDER_FILES) folders.add('/data');
  for (let i = FOLDER_FILES; i < OBJECTS; i += OTHER_FOLDER_SIZE) folders.add(folderOf(i));
  return [...folders];
}

function* batches(size, now) {
  for (let start = 0; start < OBJECTS; start += size) {
    const count = Math.min(size, OBJECTS - start);
    const ids = newIds(count);
    const rows = ids.map((id, k) => {
      const i = start + k;
      return { id, name: `sample_${i}.bam`, folder: folderOf(i), size: 1_000_000 + ((i * 7919) % 9_000_000), created: now - (OBJECTS - i) };
    });
    yield rows;
  }
}

async function seedSqlite(file, project) {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const insertObject = db.prepare(
    `insert into "objects" ("id","class","state","media","size","blobKey","uploadId","content","createdBy","created","stateChanged") values (?, 'file', 'closed', 'application/octet-stream', ?, ?, null, '{}', ?, ?, ?)`,
  );
  const insertCopy = db.prepare(
    `insert into "objectCopies" ("projectId","objectId","class","name","folder","hidden","tags","types","properties","details","created","modified") values (?, ?, 'file', ?, ?, 0, '[]', '[]', '{}', '{}', ?, ?)`,
  );
  const insertFolder = db.prepare(`insert into "folders" ("projectId","path") values (?, ?) on conflict do nothing`);
  const createdBy = JSON.stringify({ user: ADMIN });
  const insertBatch = db.transaction((rows) => {
    for (const row of rows) {
      insertObject.run(row.id, row.size, `files/${row.id}`, createdBy, row.created, row.created);
      insertCopy.run(project, row.id, row.name, row.folder, row.created, row.created);
    }
  });
  db.transaction(() => {
    for (const folder of allFolders()) insertFolder.run(project, folder);
  })();
  for (const rows of batches(50_000, Date.now())) insertBatch(rows);
  // The bulk load bypasses the objects repository, which keeps each project's closed bytes: set them here.
  db.prepare(
    `update "projects" set "closedBytes" = (select coalesce(sum(o."size"), 0) from "objectCopies" c join "objects" o on o."id" = c."objectId" where c."projectId" = ? and o."state" = 'closed') where "id" = ?`,
  ).run(project, project);
  if (args['sqlite-analyze']) db.exec('analyze');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function seedPostgres(url, project) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const createdBy = JSON.stringify({ user: ADMIN });
    await client.query('begin');
    await client.query(`insert into "folders" ("projectId","path") select $1, unnest($2::text[]) on conflict do nothing`, [project, allFolders()]);
    for (const rows of batches(20_000, Date.now())) {
      const ids = rows.map((row) => row.id);
      const created = rows.map((row) => row.created);
      await client.query(
        `insert into "objects" ("id","class","state","media","size","blobKey","uploadId","content","createdBy","created","stateChanged")
         select t.id, 'file', 'closed', 'application/octet-stream', t.size, 'files/' || t.id, null, '{}', $4, t.created, t.created
         from unnest($1::text[], $2::bigint[], $3::bigint[]) as t(id, size, created)`,
        [ids, rows.map((row) => row.size), created, createdBy],
      );
      await client.query(
        `insert into "objectCopies" ("projectId","objectId","class","name","folder","hidden","tags","types","properties","details","created","modified")
         select $1, t.id, 'file', t.name, t.folder, 0, '[]', '[]', '{}', '{}', t.created, t.created
         from unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) as t(id, name, folder, created)`,
        [project, ids, rows.map((row) => row.name), rows.map((row) => row.folder), created],
      );
    }
    // A synchronous commit: VACUUM marks pages all-visible only once the hint bits can be set, i.e.
    // after the commit record is flushed (with synchronous_commit off, the VACUUM right after it
    // leaves the visibility map empty, index-only scans fetch every row from the heap, and the
    // planner prefers other plans).
    // The bulk load bypasses the objects repository, which keeps each project's closed bytes: set them here.
    await client.query(
      `update "projects" set "closedBytes" = (select coalesce(sum(o."size"), 0) from "objectCopies" c join "objects" o on o."id" = c."objectId" where c."projectId" = $1 and o."state" = 'closed') where "id" = $1`,
      [project],
    );
    await client.query('commit');
    // What autovacuum would do shortly after a bulk load; done now so that the figures are stable.
    for (const table of ['objects', 'objectCopies', 'folders']) await client.query(`vacuum analyze "${table}"`);
  } finally {
    await client.end();
  }
}

// ---------- the calls ----------

function calls(project, nextPageCursor) {
  return [
    {
      key: 'find-glob',
      name: 'findDataObjects name glob "sample_12*" (11,111 matches, first page of 1,000)',
      route: 'system/findDataObjects',
      body: { name: { glob: 'sample_12*' }, scope: { project } },
      targetMs: 50,
    },
    {
      key: 'find-glob-narrow',
      name: 'findDataObjects name glob "sample_12345*" (11 matches)',
      route: 'system/findDataObjects',
      body: { name: { glob: 'sample_12345*' }, scope: { project } },
      targetMs: 50,
    },
    {
      key: 'find-glob-wide',
      name: 'findDataObjects name glob "sample_1*" (111,111 matches, first page of 1,000)',
      route: 'system/findDataObjects',
      body: { name: { glob: 'sample_1*' }, scope: { project } },
    },
    {
      key: 'find-glob-all',
      name: 'findDataObjects name glob "sample_*" (every object, first page of 1,000)',
      route: 'system/findDataObjects',
      body: { name: { glob: 'sample_*' }, scope: { project } },
    },
    { key: 'find-exact', name: 'findDataObjects exact name', route: 'system/findDataObjects', body: { name: 'sample_777777.bam', scope: { project } } },
    {
      key: 'find-suffix',
      name: 'findDataObjects glob "*_999999.bam" (no literal prefix)',
      route: 'system/findDataObjects',
      body: { name: { glob: '*_999999.bam' }, scope: { project } },
    },
    {
      key: 'find-suffix-common',
      name: 'findDataObjects glob "*.bam" (no literal prefix, every object)',
      route: 'system/findDataObjects',
      body: { name: { glob: '*.bam' }, scope: { project } },
    },
    {
      key: 'find-suffix-tenth',
      name: 'findDataObjects glob "*7.bam" (no literal prefix, a tenth of the objects)',
      route: 'system/findDataObjects',
      body: { name: { glob: '*7.bam' }, scope: { project } },
    },
    { key: 'list-first', name: 'listFolder /big, 1,000-entry first page', route: `${project}/listFolder`, body: { folder: '/big', limit: 1000 }, targetMs: 20 },
    {
      key: 'list-middle',
      name: 'listFolder /big, 1,000-entry page from the middle',
      route: `${project}/listFolder`,
      body: { folder: '/big', limit: 1000, starting: nextPageCursor },
      targetMs: 20,
    },
    {
      key: 'list-describe',
      name: 'listFolder /big, 1,000 entries with describe',
      route: `${project}/listFolder`,
      body: { folder: '/big', limit: 1000, describe: true },
    },
    { key: 'project-describe', name: 'project describe (1M objects; dataUsage kept as a counter)', route: `${project}/describe`, body: {} },
  ];
}

function checkAnswer(call, body) {
  if (call.key === 'find-glob' && !(body.results?.length === 1000 && body.next)) throw new Error(`find-glob answered ${body.results?.length} results`);
  if ((call.key === 'find-glob-wide' || call.key === 'find-glob-all') && !(body.results?.length === 1000 && body.next))
    console.log(`  note: ${call.key} answered ${body.results?.length} results`);
  if (call.key === 'find-glob-narrow' && body.results?.length !== Math.min(11, Math.max(0, OBJECTS - 12345)))
    console.log(`  note: ${call.key} answered ${body.results?.length} results`);
  if (call.key.startsWith('list-') && body.objects?.length !== Math.min(1000, FOLDER_FILES))
    throw new Error(`${call.key} answered ${body.objects?.length} objects`);
}

// ---------- query plans through the real request path ----------

/** Records every SQL statement (and its parameters) the server's database drivers run in this process. */
function installSqlRecorder() {
  const recorded = [];
  const probe = new SqliteDatabase(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  const originals = { all: statementProto.all, get: statementProto.get, query: pg.Client.prototype.query };
  statementProto.all = function all(...params) {
    recorded.push({ sql: this.source, params: params.flat() });
    return originals.all.apply(this, params);
  };
  pg.Client.prototype.query = function query(config, values, callback) {
    if (typeof config === 'string') recorded.push({ sql: config, params: Array.isArray(values) ? values : [] });
    return originals.query.call(this, config, values, callback);
  };
  return {
    take() {
      return recorded.splice(0);
    },
    uninstall() {
      statementProto.all = originals.all;
      pg.Client.prototype.query = originals.query;
    },
  };
}

async function explainCalls(backend, { dataDir, databaseUrl, token, project, nextPageCursor }) {
  const { loadConfig } = await import(pathToFileURL(path.join(ROOT, 'packages/server/dist/config.js')).href);
  const { createPlatform } = await import(pathToFileURL(path.join(ROOT, 'packages/server/dist/app.js')).href);
  const { default: pino } = await import('pino');
  const recorder = installSqlRecorder();
  const platform = await createPlatform(
    loadConfig(
      {},
      { dataDir, databaseUrl: databaseUrl ?? '', admin: { username: 'admin', email: 'admin@localhost', token }, createDemoProject: false, logLevel: 'silent' },
    ),
    pino({ level: 'silent' }),
  );
  const explained = {};
  const sqlite = backend === 'sqlite' ? new SqliteDatabase(path.join(dataDir, 'panx.db'), { readonly: true }) : undefined;
  sqlite?.pragma('case_sensitive_like = ON');
  const pgClient = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : undefined;
  await pgClient?.connect();
  try {
    for (const call of calls(project, nextPageCursor)) {
      recorder.take();
      const response = await platform.http.inject({
        method: 'POST',
        url: `/${call.route}`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify(call.body),
      });
      if (response.statusCode !== 200) throw new Error(`${call.route} answered ${response.statusCode}: ${response.body.slice(0, 300)}`);
      const statements = recorder.take().filter((entry) => /^\s*select/i.test(entry.sql));
      // One plan per distinct statement (a paged search repeats one statement with new cursors).
      const seen = new Map();
      for (const entry of statements.filter((statement) => /"objectCopies"|"objects"/.test(statement.sql))) {
        const known = seen.get(entry.sql);
        if (known) known.times++;
        else seen.set(entry.sql, { ...entry, times: 1 });
      }
      const interesting = [...seen.values()];
      console.log(`\n### ${backend}: ${call.name}\n`);
      console.log(`${statements.length} SELECT statements per call (auth is cached); plans of those on objects/objectCopies:`);
      explained[call.key] = [];
      for (const entry of interesting) {
        let plan;
        if (sqlite) {
          const depths = new Map();
          plan = sqlite
            .prepare(`explain query plan ${entry.sql}`)
            .all(entry.params)
            .map((row) => {
              // EXPLAIN QUERY PLAN rows carry id/parent: indent children under their parent.
              const depth = row.parent === 0 ? 0 : (depths.get(row.parent) ?? 0) + 1;
              depths.set(row.id, depth);
              return `${'  '.repeat(depth)}${row.detail}`;
            });
        } else {
          const result = await pgClient.query(`explain (analyze, buffers) ${entry.sql}`, entry.params);
          plan = result.rows.map((row) => row['QUERY PLAN']);
        }
        console.log(
          `\n  SQL${entry.times > 1 ? ` (run ${entry.times} times in this call; plan of the first)` : ''}: ${entry.sql.replace(/\s+/g, ' ').slice(0, 700)}`,
        );
        console.log(`  params: ${JSON.stringify(entry.params).slice(0, 200)}`);
        for (const line of plan) console.log(`    ${line}`);
        explained[call.key].push({ sql: entry.sql, params: entry.params, times: entry.times, plan });
      }
    }
  } finally {
    recorder.uninstall();
    sqlite?.close();
    await pgClient?.end();
    await platform.close();
  }
  return explained;
}

// ---------- one backend ----------

/** A seeded installation kept in `--data=DIR` from an earlier run, when it has the same shape. */
function reusable(dataDir) {
  try {
    const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'bench-state.json'), 'utf8'));
    return state.objects === OBJECTS && state.folderFiles === FOLDER_FILES ? state : undefined;
  } catch {
    return undefined;
  }
}

async function measureBackend(backend) {
  const keepData = Boolean(args.data);
  const dataDir = keepData ? path.resolve(String(args.data), backend) : path.join(tmp, backend);
  const saved = keepData ? reusable(dataDir) : undefined;
  let database;
  let token;
  let project;
  let seedSeconds;
  let server;
  if (saved) {
    ({ token, project } = saved);
    database = saved.databaseUrl ? { url: saved.databaseUrl, drop: async () => {} } : undefined;
    console.log(`${backend}: reusing the seeded data in ${dataDir}${database ? ` and ${database.url}` : ''}`);
  } else {
    fs.rmSync(dataDir, { recursive: true, force: true });
    database = backend === 'postgres' ? await createPgDatabase('panx_bench_large') : undefined;
    server = await startPanx({ dataDir, databaseUrl: database?.url });
    token = server.token;
    ({ id: project } = await server.call('project/new', { name: 'large-scale bench' }));
    await server.stop();

    const seedStart = Date.now();
    if (backend === 'sqlite') await seedSqlite(path.join(dataDir, 'panx.db'), project);
    else await seedPostgres(database.url, project);
    seedSeconds = (Date.now() - seedStart) / 1000;
    console.log(`${backend}: seeded ${OBJECTS.toLocaleString('en-US')} objects in ${fmt(seedSeconds)} s (${fmt(OBJECTS / seedSeconds, 0)} objects/s)`);
    if (keepData) {
      fs.writeFileSync(
        path.join(dataDir, 'bench-state.json'),
        JSON.stringify({ objects: OBJECTS, folderFiles: FOLDER_FILES, token, project, databaseUrl: database?.url }, null, 2),
      );
    }
  }

  const results = [];
  let plans;
  try {
    server = await startPanx({ dataDir, databaseUrl: database?.url, token });
    // A cursor from the middle of /big, to show that deep pages cost the same (keyset paging).
    let cursor;
    for (let page = 0; page < Math.floor(FOLDER_FILES / 2000); page++) {
      const answer = await server.call(`${project}/listFolder`, { folder: '/big', limit: 1000, only: 'objects', ...(cursor ? { starting: cursor } : {}) });
      cursor = answer.next;
    }
    const nextPageCursor = cursor ?? undefined;
    await waitForQuiet();
    for (const call of calls(project, nextPageCursor)) {
      const first = await rawCall(server.url, token, call.route, call.body);
      if (first.status !== 200) throw new Error(`${call.name} answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
      checkAnswer(call, first.body);
      // Calls that take over a second (the informative full scans) get 3 runs, not RUNS.
      const runs = first.ms > 1000 ? 3 : RUNS;
      const warmup = first.ms > 1000 ? 0 : WARMUP;
      const samples = [];
      for (let i = 0; i < warmup + runs; i++) {
        const answer = await rawCall(server.url, token, call.route, call.body);
        if (answer.status !== 200) throw new Error(`${call.name} answered ${answer.status}`);
        if (i >= warmup) samples.push(answer.ms);
      }
      const stats = summarize(samples);
      const pass = call.targetMs === undefined ? '' : stats.p95 < call.targetMs ? 'pass' : 'FAIL';
      results.push({ backend, key: call.key, call: call.name, targetMs: call.targetMs, responseBytes: first.bytes, ...stats, pass });
      console.log(
        `${backend.padEnd(8)} ${call.name.padEnd(82)} median ${fmt(stats.median, 2).padStart(8)} ms  p95 ${fmt(stats.p95, 2).padStart(8)} ms  ${call.targetMs ? `target < ${call.targetMs} ms: ${pass}` : ''}`,
      );
    }
    await server.stop();
    plans = await explainCalls(backend, { dataDir, databaseUrl: database?.url, token, project, nextPageCursor });
  } finally {
    await server?.stop();
    if (keepData) {
      console.log(`kept in ${dataDir}${database ? ` and ${database.url}` : ''} (--data): the next run with --data reuses it`);
    } else if (!args.keep) {
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    } else {
      console.log(`kept: ${database ? database.url : path.join(dataDir, 'panx.db')} (admin token ${token}, project ${project})`);
    }
  }
  return { backend, seedSeconds, results, plans };
}

try {
  const runs = [];
  for (const backend of backendsFrom(args)) runs.push(await measureBackend(backend));

  console.log(
    `\n## Large project (${OBJECTS.toLocaleString('en-US')} objects, ${FOLDER_FILES.toLocaleString('en-US')} in one folder): ms over HTTP, median / p95 of ${RUNS}\n`,
  );
  const keys = [...new Set(runs.flatMap((run) => run.results.map((row) => row.key)))];
  const backends = runs.map((run) => run.backend);
  printTable(
    [
      'call',
      'target',
      ...backends.flatMap((b) => [`${b} median`, `${b} p95`, `${b}`]),
      ...(backends.length === 2 ? [`${backends[1]}/${backends[0]} (median)`] : []),
    ],
    keys.map((key) => {
      const cells = runs.map((run) => run.results.find((row) => row.key === key));
      const first = cells.find(Boolean);
      return [
        first.call,
        first.targetMs ? `< ${first.targetMs} ms` : '',
        ...cells.flatMap((row) => [fmt(row?.median, 2), fmt(row?.p95, 2), row?.pass ?? '']),
        ...(cells.length === 2 && cells[0] && cells[1] ? [`${fmt(cells[1].median / cells[0].median, 2)} ×`] : []),
      ];
    }),
  );
  console.log('\npass = p95 under the target');
  saveResults('large-scale', {
    objects: OBJECTS,
    folderFiles: FOLDER_FILES,
    runs: RUNS,
    sqliteAnalyze: Boolean(args['sqlite-analyze']),
    backends: runs,
    machine,
  });
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
