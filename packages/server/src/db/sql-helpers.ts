import { type RawBuilder, sql } from 'kysely';

/** Escapes LIKE wildcards with backslash (declared by `escape` below, as SQLite has no default). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** `column LIKE 'prefix%'` with the prefix taken literally; uses the index on both dialects. */
export function likePrefix(column: string, prefix: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${`${escapeLike(prefix)}%`} escape '\\'`;
}
