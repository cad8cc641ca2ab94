// Preloaded into the API server (`node --import ./bench/experiments/db-preload.mjs packages/server/dist/main.js`)
// by `bench/api-throughput.mjs --experiments` to explain and try out fixes without editing the server:
//
//   PANX_BENCH_SQL_TIMING=<file>  time every statement the server runs, by SQL text, and write the
//                                 totals to <file> (JSON) when the process exits.
//   PANX_BENCH_STMT_CACHE=1       memoize better-sqlite3 `prepare` by SQL text (Kysely's SQLite
//                                 driver prepares every statement anew on every query).
//   PANX_BENCH_PG_PREPARED=1      send PostgreSQL queries as named prepared statements (parsed and
//                                 planned once per connection instead of on every query).
//
// Never used by the server in production; bench-only.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'packages/server/package.json'));
const SqliteDatabase = require('better-sqlite3');
const pg = require('pg');

const timingFile = process.env.PANX_BENCH_SQL_TIMING;
const timings = new Map();

function record(sql, ns) {
  const key = sql.replace(/\s+/g, ' ').trim();
  const entry = timings.get(key) ?? { sql: key, calls: 0, totalMs: 0 };
  entry.calls += 1;
  entry.totalMs += ns / 1e6;
  timings.set(key, entry);
}

if (timingFile) {
  const probe = new SqliteDatabase(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  for (const method of ['all', 'get', 'run']) {
    const original = statementProto[method];
    statementProto[method] = function timed(...params) {
      const start = process.hrtime.bigint();
      try {
        return original.apply(this, params);
      } finally {
        record(this.source, Number(process.hrtime.bigint() - start));
      }
    };
  }
  const originalPrepare = SqliteDatabase.prototype.prepare;
  SqliteDatabase.prototype.prepare = function timedPrepare(sql, ...rest) {
    const start = process.hrtime.bigint();
    try {
      return originalPrepare.call(this, sql, ...rest);
    } finally {
      record(`(prepare) ${sql}`, Number(process.hrtime.bigint() - start));
    }
  };
  const originalQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function timedQuery(config, values, callback) {
    const text = typeof config === 'string' ? config : config?.text;
    const result = originalQuery.call(this, config, values, callback);
    if (text && result && typeof result.then === 'function') {
      const start = process.hrtime.bigint();
      result.then(
        () => record(text, Number(process.hrtime.bigint() - start)),
        () => {},
      );
    }
    return result;
  };
  process.on('exit', () => {
    const rows = [...timings.values()].sort((a, b) => b.totalMs - a.totalMs);
    fs.writeFileSync(timingFile, JSON.stringify(rows, null, 2));
  });
}

if (process.env.PANX_BENCH_STMT_CACHE === '1') {
  const prepare = SqliteDatabase.prototype.prepare;
  const caches = new WeakMap();
  SqliteDatabase.prototype.prepare = function cachedPrepare(sql, ...rest) {
    let cache = caches.get(this);
    if (!cache) {
      cache = new Map();
      caches.set(this, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      statement = prepare.call(this, sql, ...rest);
      if (cache.size > 500) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  };
}

if (process.env.PANX_BENCH_PG_PREPARED === '1') {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function preparedQuery(config, values, callback) {
    if (typeof config === 'string' && Array.isArray(values) && /^\s*(select|insert|update|delete|with)\b/i.test(config)) {
      const name = `q_${createHash('sha1').update(config).digest('hex').slice(0, 16)}`;
      return query.call(this, { name, text: config, values }, callback);
    }
    return query.call(this, config, values, callback);
  };
}
