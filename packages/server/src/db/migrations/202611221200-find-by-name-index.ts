import type { Kysely } from 'kysely';

/**
 * findDataObjects by name on large projects (docs/benchmarks.md): an index on (projectId, name,
 * hidden, objectId) replaces the one on (projectId, name). An exact name now reads its matches
 * already in (projectId, objectId) order, with no full scan of the project (SQLite chose the primary
 * key and scanned every copy: seconds at 1,000,000 objects), and a name glob's page of keys comes
 * from this index alone (covering) before the rows are fetched. The old index is a prefix of the new
 * one, so nothing loses an index. On PostgreSQL the build locks writes to objectCopies for its
 * duration (seconds per million copies).
 */
export async function up(db: Kysely<unknown>, _dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema.createIndex('objectCopies_name_hidden_object').on('objectCopies').columns(['projectId', 'name', 'hidden', 'objectId']).execute();
  await db.schema.dropIndex('objectCopies_name').execute();
}
