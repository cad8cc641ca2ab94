import { HASH_ID_CLASSES, ID_ALPHABET } from '@panx/contract';
import fc from 'fast-check';
import type { z } from 'zod';

/**
 * Arbitrary request bodies shaped by a route's zod input schema (so that many get past validation
 * and reach the services), with type confusion and nasty values mixed in at every level.
 */

/** The parts of zod 4's schema internals the generator reads. */
interface SchemaNode {
  _zod: {
    def: {
      type: string;
      shape?: Record<string, SchemaNode>;
      catchall?: SchemaNode;
      element?: SchemaNode;
      keyType?: SchemaNode;
      valueType?: SchemaNode;
      options?: SchemaNode[];
      items?: SchemaNode[];
      innerType?: SchemaNode;
      in?: SchemaNode;
      getter?: () => SchemaNode;
      entries?: Record<string, string | number>;
      values?: unknown[];
    };
  };
}

export function asNode(schema: z.ZodType): SchemaNode {
  return schema as unknown as SchemaNode;
}

const hashBody = (seed: number) => Array.from({ length: 24 }, (_, i) => ID_ALPHABET[(seed * 7 + i * 13) % ID_ALPHABET.length]).join('');

/** Ids of every class that exist nowhere, in the right format. */
export const UNKNOWN_IDS: string[] = [...HASH_ID_CLASSES.map((cls, i) => `${cls}-${hashBody(i + 1)}`), 'user-nobody', 'org-nobody', 'app-nobody'];

/** Ids in the wrong format. */
export const BAD_IDS: string[] = [
  'project-',
  'project-123',
  `project-${'B'.repeat(25)}`,
  `PROJECT-${'B'.repeat(24)}`,
  `project-${'B'.repeat(23)}!`,
  'project-xxxx',
  `file-${'0'.repeat(24)}/`,
  'file-',
  'record-????????????????????????',
  `container-${'é'.repeat(24)}`,
  'user-',
  'user-UPPER',
  `user-${'x'.repeat(300)}`,
  'org-',
  'org-..',
  'token-abc',
  'nonsense',
  '-',
];

const NASTY_STRINGS: string[] = [
  '',
  ' ',
  'a',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '💥🧬',
  'ＡＢＣ',
  '\u202e\u0644',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; drop table users; --',
  '%',
  '_',
  '*',
  '?',
  '.*',
  '(a+)+$',
  '[',
  '\\',
  'null',
  'true',
  '0',
  '-1',
  '1e999',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
  '${jndi:ldap://x}',
  '../../etc/passwd',
  'x'.repeat(257),
  'x'.repeat(5000),
  '/',
  '//',
  '/data',
  '/data/sub',
  '/data/',
  '/a/b/c',
  '/..',
  '/./x',
  '/a//b',
  'relative/folder',
  `/${'x'.repeat(1001)}`,
  '/été/日本',
  'VIEW',
  'UPLOAD',
  'CONTRIBUTE',
  'ADMINISTER',
  'NONE',
  'ADMIN',
  'MEMBER',
  'view',
  'fuzz@example.org',
  'not-an-email@',
  'aws:us-east-1',
  'mars:olympus-1',
  'high',
  'low',
  'd41d8cd98f00b204e9800998ecf8427e',
  '123456',
];

const NASTY_NUMBERS: number[] = [
  0,
  -1,
  1,
  2,
  0.5,
  -0.5,
  100,
  999,
  1000,
  1001,
  10_000,
  10_001,
  2 ** 31,
  2 ** 53,
  -(2 ** 53),
  1e308,
  -1e308,
  Date.now(),
  Date.now() + 1e12,
];

export interface Pools {
  /** Ids of things that exist (the caller's projects, objects, users, orgs). */
  realIds: string[];
}

export function stringPool(pools: Pools): string[] {
  return [...pools.realIds, ...UNKNOWN_IDS, ...BAD_IDS, ...NASTY_STRINGS];
}

/** Any JSON value, nasty strings and numbers included. */
export function chaos(pools: Pools, maxDepth = 2): fc.Arbitrary<unknown> {
  const strings = stringPool(pools);
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth }) },
    { weight: 2, arbitrary: fc.constantFrom(...strings) },
    { weight: 1, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { $dnanexus_link: 'file-x' }) },
  );
}

function stringArbitrary(node: SchemaNode, pools: Pools, wild: boolean): fc.Arbitrary<unknown> {
  const pool = stringPool(pools);
  // The pool's strings that this very schema accepts (its patterns, lengths and refinements).
  const schema = node as unknown as z.ZodType;
  const fitting = pool.filter((value) => schema.safeParse(value).success);
  const random = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
  if (!wild)
    return fitting.length ? fc.constantFrom(...fitting) : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: random });
  return fc.oneof(
    ...(fitting.length ? [{ weight: 3, arbitrary: fc.constantFrom(...fitting) }] : []),
    { weight: 2, arbitrary: fc.constantFrom(...pool) },
    { weight: 1, arbitrary: random },
  );
}

/**
 * A value shaped by `node`. Tame values keep to the schema's types (strings still come from the
 * nasty pool); wild ones swap in anything at all at any level now and then.
 */
export function fromSchema(node: SchemaNode, pools: Pools, options: { wild: boolean } = { wild: true }, depth = 0): fc.Arbitrary<unknown> {
  const guided = guidedArbitrary(node, pools, options.wild, depth);
  return options.wild ? fc.oneof({ weight: 12, arbitrary: guided }, { weight: 1, arbitrary: chaos(pools, 1) }) : guided;
}

function guidedArbitrary(node: SchemaNode, pools: Pools, wild: boolean, depth: number): fc.Arbitrary<unknown> {
  const def = node._zod.def;
  if (wild && depth > 6) return chaos(pools, 1);
  // Deep down (recursive filters), tame values take the first, simplest branch of a union.
  const shallow = depth > 4;
  const next = (child: SchemaNode) => fromSchema(child, pools, { wild }, depth + 1);
  switch (def.type) {
    case 'object': {
      const shape = def.shape ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, child] of Object.entries(shape)) {
        model[key] = next(child);
        if (child._zod.def.type !== 'optional') required.push(key);
      }
      const record = fc.record(model, { requiredKeys: required });
      const extra = fc.dictionary(fc.constantFrom('nonce', 'unknownField', '__proto__', 'constructor', 'project', 'id'), chaos(pools, 1), { maxKeys: 2 });
      if (!wild) return record;
      return fc.oneof({ weight: 4, arbitrary: record }, { weight: 1, arbitrary: fc.tuple(record, extra).map(([known, more]) => ({ ...more, ...known })) });
    }
    case 'string':
      return stringArbitrary(node, pools, wild);
    case 'number':
    case 'int': {
      if (wild) return fc.oneof(fc.constantFrom(...NASTY_NUMBERS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
      const schema = node as unknown as z.ZodType;
      const fitting = [...NASTY_NUMBERS, 0, 1, 5, 10, 50].filter((value) => schema.safeParse(value).success);
      return fitting.length ? fc.constantFrom(...fitting) : fc.integer();
    }
    case 'boolean':
      return fc.boolean();
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? { x: 'x' }));
    case 'literal':
      return fc.constantFrom(...(def.values ?? [null]));
    case 'array':
      if (!def.element) return fc.constant([]);
      return wild ? fc.array(next(def.element), { maxLength: 4 }) : fc.array(next(def.element), { minLength: 1, maxLength: shallow ? 1 : 3 });
    case 'tuple':
      return fc.tuple(...(def.items ?? []).map(next));
    case 'record': {
      const key = def.keyType ? next(def.keyType).map((value) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''))) : fc.string();
      return fc.dictionary(key, def.valueType ? next(def.valueType) : chaos(pools), { maxKeys: 4 });
    }
    case 'union': {
      const options = def.options ?? [];
      return !wild && shallow && options[0] ? next(options[0]) : fc.oneof(...options.map(next));
    }
    case 'optional':
      return def.innerType ? fc.option(next(def.innerType), { nil: undefined }) : fc.constant(undefined);
    case 'nullable':
      return def.innerType ? fc.option(next(def.innerType), { nil: null }) : fc.constant(null);
    case 'default':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return def.innerType ? next(def.innerType) : chaos(pools);
    case 'pipe':
      return def.in ? next(def.in) : chaos(pools);
    case 'lazy':
      if (!def.getter) return chaos(pools, 1);
      return wild && depth >= 4 ? chaos(pools, 1) : next(def.getter());
    default:
      return chaos(pools);
  }
}

/** The raw text of a request body: mostly JSON of a schema-shaped value, sometimes anything or not JSON at all. */
export function bodyText(node: SchemaNode, pools: Pools): fc.Arbitrary<string> {
  const shaped = fromSchema(node, pools, { wild: true });
  const tame = fromSchema(node, pools, { wild: false });
  return fc.oneof(
    { weight: 8, arbitrary: tame.map((value) => JSON.stringify(value) ?? '{}') },
    { weight: 6, arbitrary: shaped.map((value) => JSON.stringify(value) ?? '{}') },
    { weight: 2, arbitrary: chaos(pools, 3).map((value) => JSON.stringify(value) ?? 'null') },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 50 }),
        shaped.map((value) => (JSON.stringify(value) ?? '{}').slice(0, -1)),
        fc.constantFrom(
          '{',
          '}',
          '{"a":}',
          '{"a":1}garbage',
          '\ufeff{}',
          '\u0000',
          'nul',
          "{'a': 1}",
          '{"a":1,}',
          '[',
          '"',
          '  ',
          '{"__proto__":{"admin":true}}',
        ),
      ),
    },
  );
}

export const CONTENT_TYPES: (string | undefined)[] = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  undefined,
];

export function contentType(): fc.Arbitrary<string | undefined> {
  return fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) });
}
