import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface FailureReportRow {
  id: string;
  created: number;
  reporter: string;
  execution: string;
  executionName: string;
  project: string;
  state: string;
  failureReason: string | null;
  failureMessage: string | null;
  tryNumber: number | null;
  message: string;
  /** JSON array of strings */
  logTail: string;
  /** JSON object */
  browser: string;
}

/** Tables of this module (migration 202611241000-create-failure-reports). */
export type SupportTables = {
  failureReports: FailureReportRow;
};

export type SupportExecutor = Kysely<Database & SupportTables> | Transaction<Database & SupportTables>;

export class SupportRepository {
  constructor(private readonly db: SupportExecutor) {}

  async insert(row: FailureReportRow): Promise<void> {
    await this.db.insertInto('failureReports').values(row).execute();
  }

  async countByReporterSince(reporter: string, since: number): Promise<number> {
    const row = await this.db
      .selectFrom('failureReports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('reporter', '=', reporter)
      .where('created', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Newest first; `after` continues a page from the last (created, id) seen. */
  find(filter: {
    execution?: string;
    reporter?: string;
    createdAfter?: number;
    createdBefore?: number;
    after?: { created: number; id: string };
    limit: number;
  }): Promise<FailureReportRow[]> {
    let query = this.db.selectFrom('failureReports').selectAll();
    if (filter.execution) query = query.where('execution', '=', filter.execution);
    if (filter.reporter) query = query.where('reporter', '=', filter.reporter);
    if (filter.createdAfter !== undefined) query = query.where('created', '>=', filter.createdAfter);
    if (filter.createdBefore !== undefined) query = query.where('created', '<=', filter.createdBefore);
    const after = filter.after;
    if (after) query = query.where((eb) => eb.or([eb('created', '<', after.created), eb.and([eb('created', '=', after.created), eb('id', '<', after.id)])]));
    return query.orderBy('created', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  }
}
