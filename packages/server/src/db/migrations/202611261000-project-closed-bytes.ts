import { type Kysely, sql } from 'kysely';

/**
 * The bytes of closed files in each container, kept up to date by the objects repository as copies
 * come and go and files close. A project's `dataUsage` was a sum over all its copies on every
 * describe: 0.4–3 s for a project of a million objects, on the request's path.
 */
export async function up(db: Kysely<unknown>, _dialect: 'sqlite' | 'postgres'): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('closedBytes', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await sql`
    update projects set "closedBytes" = coalesce((
      select sum(o.size) from "objectCopies" c join objects o on o.id = c."objectId"
      where c."projectId" = projects.id and o.state = 'closed'
    ), 0)`.execute(db);
}
