import { type CompiledQuery, createQueryId } from 'kysely';
import { PREPARED_MARK } from './pg-named-statements.js';
import type { Executor } from './stores.js';

/**
 * A query whose SQL is compiled once and then run with new values. Kysely builds the operation tree
 * and compiles it to SQL on every call: about as much CPU as running a small SQLite query, and a
 * sixth of a `describe` on the hot paths. A prepared query is built once per SQL dialect with
 * placeholder values, remembers which parameter slot holds which argument, and afterwards only
 * fills the slots (better-sqlite3 then reuses its prepared statement, see sqlite-statements.ts;
 * PostgreSQL gets a named prepared statement, see pg-named-statements.ts).
 *
 * For queries of a fixed shape whose arguments are strings (ids), each landing in a parameter slot as
 * itself; an array of strings (an `in` list) gets one template per length. Values the builder turns
 * into SQL text, or numbers, are not arguments: build those queries anew.
 */
export class PreparedQuery<A extends readonly (string | readonly string[])[], R> {
  private readonly templates = new Map<string, { sql: string; slots: Slot[]; query: CompiledQuery<R>['query'] }>();

  constructor(private readonly build: (db: Executor, ...args: A) => { compile(): CompiledQuery<R> }) {}

  async execute(db: Executor, ...args: A): Promise<R[]> {
    const adapter = db.getExecutor().adapter.constructor.name;
    const shape = `${adapter}:${args.map((arg) => (Array.isArray(arg) ? arg.length : '')).join(',')}`;
    let template = this.templates.get(shape);
    if (!template) {
      const placeholders = args.map((arg, index) => (Array.isArray(arg) ? arg.map((_, item) => placeholder(index, item)) : placeholder(index))) as unknown as A;
      const compiled = this.build(db, ...placeholders).compile();
      template = { sql: `${PREPARED_MARK}${compiled.sql}`, slots: compiled.parameters.map(slotOf), query: compiled.query };
      this.templates.set(shape, template);
    }
    const parameters = template.slots.map((slot) =>
      slot.kind === 'constant' ? slot.value : slot.item === undefined ? args[slot.arg] : (args[slot.arg] as readonly string[])[slot.item],
    );
    const result = await db.executeQuery<R>({ sql: template.sql, parameters, query: template.query, queryId: createQueryId() });
    return result.rows;
  }

  async first(db: Executor, ...args: A): Promise<R | undefined> {
    return (await this.execute(db, ...args))[0];
  }
}

type Slot = { kind: 'constant'; value: unknown } | { kind: 'argument'; arg: number; item?: number };

const MARK = '\u0000panx-prepared:';

function placeholder(arg: number, item?: number): string {
  return `${MARK}${arg}${item === undefined ? '' : `.${item}`}`;
}

function slotOf(value: unknown): Slot {
  if (typeof value === 'string' && value.startsWith(MARK)) {
    const [arg, item] = value.slice(MARK.length).split('.');
    return { kind: 'argument', arg: Number(arg), ...(item === undefined ? {} : { item: Number(item) }) };
  }
  return { kind: 'constant', value };
}
