import { type Expression, type RawBuilder, sql } from 'kysely';

/** Escapes LIKE wildcards with backslash (declared by `escape` below, as SQLite has no default). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** `column LIKE 'prefix%'` with the prefix taken literally; uses the index on both dialects. */
export function likePrefix(column: string, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${`${escapeLike(prefix)}%`} escape '\\'`;
}

/**
 * `column LIKE pattern` for a DNAnexus glob (`*` and `?`), so that the database tests the whole glob
 * and not only its literal prefix (which still bounds an index range). It may accept more than the
 * glob, never less: `?` becomes `%`, as the RegExp tests names by UTF-16 unit and `_` is one
 * character; the caller tests every row with the glob itself.
 */
export function likeGlob(column: Expression<unknown>, glob: string): RawBuilder<boolean> {
  const pattern = glob
    .split(/([*?])/)
    .map((part) => (part === '*' || part === '?' ? '%' : escapeLike(part)))
    .join('');
  return sql<boolean>`${column} like ${pattern} escape '\\'`;
}
