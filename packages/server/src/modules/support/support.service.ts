import {
  FAILURE_REPORT_LOG_LINE_MAX,
  FAILURE_REPORT_LOG_LINES,
  FAILURE_REPORTS_PER_HOUR,
  type FailureReport,
  type ReportBrowser,
  type RouteOutput,
  type RouteParsedInput,
} from '@panx/contract';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ApiError, invalidInput, permissionDenied } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { Caller } from '../auth/caller.js';
import type { JobRow } from '../jobs/jobs.repository.js';
import { type FailureReportRow, SupportRepository, type SupportTables } from './support.repository.js';

const HOUR_MS = 3_600_000;
const FIND_DEFAULT = 100;

/** The part of the jobs service the inbox needs: an execution the caller may see. */
export interface VisibleExecutions {
  visibleExecution(caller: Caller, id: string): Promise<JobRow>;
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function toReport(row: FailureReportRow): FailureReport {
  return {
    id: row.id,
    created: Number(row.created),
    reporter: row.reporter,
    execution: row.execution,
    executionName: row.executionName,
    project: row.project,
    state: row.state,
    failureReason: row.failureReason,
    failureMessage: row.failureMessage,
    tryNumber: row.tryNumber === null ? null : Number(row.tryNumber),
    message: row.message,
    logTail: parseJson<string[]>(row.logTail, []),
    browser: parseJson<ReportBrowser>(row.browser, {}),
  };
}

/**
 * The support inbox (SPEC §4's failure-report modal): a user reports a problem with an execution they
 * can see, with their words, the tail of its log and their browser; the server adds what it knows of
 * the execution (name, project, state, failure reason and message) so the report does not depend on
 * what the page showed. Administrators read the inbox. A user may send `FAILURE_REPORTS_PER_HOUR` an hour.
 */
export class SupportService {
  private readonly repository: SupportRepository;

  constructor(
    db: Kysely<Database>,
    private readonly executions: VisibleExecutions,
  ) {
    this.repository = new SupportRepository(db.withTables<SupportTables>());
  }

  async reportFailure(caller: Caller, input: RouteParsedInput<'system/reportFailure'>, now: number): Promise<RouteOutput<'system/reportFailure'>> {
    if (caller.tokenKind === 'job') throw permissionDenied('Jobs cannot send failure reports');
    const execution = await this.executions.visibleExecution(caller, input.execution);
    if (input.try !== undefined && input.try > execution.try) throw invalidInput(`${execution.id} has no try ${input.try}`);
    const recent = await this.repository.countByReporterSince(caller.userId, now - HOUR_MS);
    if (recent >= FAILURE_REPORTS_PER_HOUR) {
      throw new ApiError('RateLimitConditional', `At most ${FAILURE_REPORTS_PER_HOUR} failure reports an hour; please try again later`);
    }
    const logTail = (input.logTail ?? [])
      .slice(-FAILURE_REPORT_LOG_LINES)
      .map((line) => (line.length > FAILURE_REPORT_LOG_LINE_MAX ? `${line.slice(0, FAILURE_REPORT_LOG_LINE_MAX)}…` : line));
    const row: FailureReportRow = {
      id: newId('report'),
      created: now,
      reporter: caller.userId,
      execution: execution.id,
      executionName: execution.name,
      project: execution.project,
      state: execution.state,
      failureReason: execution.failureReason,
      failureMessage: execution.failureMessage,
      tryNumber: input.try ?? (execution.class === 'job' ? execution.try : null),
      message: input.message,
      logTail: JSON.stringify(logTail),
      browser: JSON.stringify(input.browser ?? {}),
    };
    await this.repository.insert(row);
    return { id: row.id };
  }

  async find(caller: Caller, input: RouteParsedInput<'system/findFailureReports'>): Promise<RouteOutput<'system/findFailureReports'>> {
    if (!caller.isAdmin) throw permissionDenied('Only administrators can read failure reports');
    let after: { created: number; id: string } | undefined;
    if (input.starting !== undefined) {
      const match = /^(\d+):(report-[0-9A-Za-z]{24})$/.exec(input.starting);
      if (!match) throw invalidInput('"starting" must be the "next" value of a previous answer');
      after = { created: Number(match[1]), id: match[2] as string };
    }
    const limit = input.limit ?? FIND_DEFAULT;
    const rows = await this.repository.find({
      execution: input.execution,
      reporter: input.reporter,
      createdAfter: input.created?.after,
      createdBefore: input.created?.before,
      after,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { results: page.map(toReport), next: rows.length > limit && last ? `${Number(last.created)}:${last.id}` : null };
  }
}
