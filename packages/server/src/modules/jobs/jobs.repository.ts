import type { EngineServersTable, JobLogsTable, JobsTable } from '../../db/schema.js';
import { PreparedQuery } from '../../db/prepared-query.js';
import type { Executor } from '../../db/stores.js';

export type JobRow = JobsTable;
export type LogRow = Omit<JobLogsTable, 'id'> & { id: number };
export type NewLogRow = Omit<JobLogsTable, 'id'>;

export interface JobQuery {
  classes?: readonly string[];
  /** Only these rows. */
  ids?: readonly string[];
  projects?: readonly string[];
  /** Jobs launched by this user, or in these projects (the caller's visibility). */
  visibleTo?: { userId: string; projects: readonly string[] };
  launchedBy?: string;
  executable?: string;
  states?: readonly string[];
  originJobs?: readonly string[];
  rootExecutions?: readonly string[];
  parentJobs?: readonly (string | null)[];
  /** Only origin jobs (no parent). */
  rootsOnly?: boolean;
  created?: { after?: number; before?: number };
  modified?: { after?: number; before?: number };
  nameExact?: string;
  /** Keyset cursor: rows strictly after (created, id) in descending order. */
  before?: { created: number; id: string };
  limit: number;
}

// The engine's and describe's hottest reads (a job, a few stages, a whole tree), compiled once.
const jobById = new PreparedQuery((db, id: string) => db.selectFrom('jobs').selectAll().where('id', '=', id));
const jobsByIds = new PreparedQuery((db, ids: readonly string[]) => db.selectFrom('jobs').selectAll().where('id', 'in', ids));
const jobsOfTree = new PreparedQuery((db, rootExecution: string) =>
  db.selectFrom('jobs').selectAll().where('rootExecution', '=', rootExecution).orderBy('created'),
);
const jobByToken = new PreparedQuery((db, tokenId: string) => db.selectFrom('jobs').selectAll().where('tokenId', '=', tokenId));

/** Jobs, their log lines, and the engine servers that run them. */
export class JobsRepository {
  constructor(private readonly db: Executor) {}

  async insert(row: JobRow): Promise<void> {
    await this.db.insertInto('jobs').values(row).execute();
  }

  findById(id: string): Promise<JobRow | undefined> {
    return jobById.first(this.db, id);
  }

  findByIds(ids: readonly string[]): Promise<JobRow[]> {
    if (!ids.length) return Promise.resolve([]);
    // Large lists are built anew: a prepared template is kept per list length.
    if (ids.length > 50) return this.db.selectFrom('jobs').selectAll().where('id', 'in', ids).execute();
    return jobsByIds.execute(this.db, ids);
  }

  findByTokenId(tokenId: string): Promise<JobRow | undefined> {
    return jobByToken.first(this.db, tokenId);
  }

  async update(id: string, patch: Partial<JobRow>): Promise<void> {
    await this.db.updateTable('jobs').set(patch).where('id', '=', id).execute();
  }

  /**
   * Applies `patch` only while the job is in one of `from` (and in `tryNumber`, when given); answers
   * whether it was. This conditional update is what keeps several servers from taking the same
   * transition twice (the scheduler's claim of a runnable job among them).
   */
  async updateIf(id: string, from: readonly string[], patch: Partial<JobRow>, tryNumber?: number): Promise<boolean> {
    let query = this.db.updateTable('jobs').set(patch).where('id', '=', id).where('state', 'in', from);
    if (tryNumber !== undefined) query = query.where('try', '=', tryNumber);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  listInStates(states: readonly string[], limit: number): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('state', 'in', states).orderBy('stateChanged').limit(limit).execute();
  }

  /** Runnable jobs, highest priority first, then longest waiting. */
  listRunnable(limit: number): Promise<JobRow[]> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('state', '=', 'runnable')
      .orderBy('priorityRank', 'desc')
      .orderBy('stateChanged')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  listByRoot(rootExecution: string): Promise<JobRow[]> {
    return jobsOfTree.execute(this.db, rootExecution);
  }

  listByRoots(roots: readonly string[]): Promise<JobRow[]> {
    if (!roots.length) return Promise.resolve([]);
    return this.db.selectFrom('jobs').selectAll().where('rootExecution', 'in', roots).execute();
  }

  listChildren(parentJob: string): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('parentJob', '=', parentJob).execute();
  }

  listClaimedBy(serverId: string, states: readonly string[]): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('claimedBy', '=', serverId).where('state', 'in', states).execute();
  }

  listClaimedByOthers(serverIds: readonly string[], states: readonly string[]): Promise<JobRow[]> {
    if (!serverIds.length) return Promise.resolve([]);
    return this.db.selectFrom('jobs').selectAll().where('claimedBy', 'in', serverIds).where('state', 'in', states).execute();
  }

  listPastDeadline(now: number, states: readonly string[]): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('state', 'in', states).where('deadline', '<', now).execute();
  }

  /** Root jobs not finished whose tree has a cost limit. */
  listLimitedRoots(terminal: readonly string[]): Promise<JobRow[]> {
    return this.db.selectFrom('jobs').selectAll().where('costLimit', 'is not', null).where('state', 'not in', terminal).execute();
  }

  /** Finished roots, changed before `before`, whose workspace container still exists (kept by delayWorkspaceDestruction). */
  listKeptWorkspaces(before: number, terminal: readonly string[], limit: number): Promise<JobRow[]> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('parentJob', 'is', null)
      .where('state', 'in', terminal)
      .where('stateChanged', '<', before)
      .where('workspace', 'in', (eb) => eb.selectFrom('projects').select('id').where('class', '=', 'container'))
      .limit(limit)
      .execute();
  }

  /** A finished job computing the same thing (same reuse key), newest first. */
  findReusable(reuseKey: string, excludeId: string): Promise<JobRow | undefined> {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('reuseKey', '=', reuseKey)
      .where('state', '=', 'done')
      .where('id', '!=', excludeId)
      .orderBy('created', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Jobs of a project created since `since` that cost something or are running (for monthly limits). */
  listSpending(project: string, since: number): Promise<Pick<JobRow, 'accruedPrice' | 'state' | 'startedRunning' | 'pricePerHour'>[]> {
    return this.db
      .selectFrom('jobs')
      .select(['accruedPrice', 'state', 'startedRunning', 'pricePerHour'])
      .where('project', '=', project)
      .where('created', '>=', since)
      .where((eb) => eb.or([eb('accruedPrice', '>', 0), eb('state', '=', 'running')]))
      .execute();
  }

  /** Distinct projects of jobs in these states. */
  projectsWithJobsIn(states: readonly string[]): Promise<string[]> {
    return this.db
      .selectFrom('jobs')
      .select('project')
      .distinct()
      .where('state', 'in', states)
      .execute()
      .then((rows) => rows.map((row) => row.project));
  }

  /** Keyset-paged search, newest first. */
  find(query: JobQuery): Promise<JobRow[]> {
    let q = this.db.selectFrom('jobs').selectAll().orderBy('created', 'desc').orderBy('id', 'desc').limit(query.limit);
    if (query.classes) q = q.where('class', 'in', query.classes);
    if (query.ids) q = q.where('id', 'in', query.ids.length ? query.ids : ['']);
    if (query.visibleTo) {
      const { userId, projects } = query.visibleTo;
      q = q.where((eb) => eb.or([eb('launchedBy', '=', userId), eb('project', 'in', projects.length ? projects : [''])]));
    }
    if (query.projects) q = q.where('project', 'in', query.projects.length ? query.projects : ['']);
    if (query.launchedBy) q = q.where('launchedBy', '=', query.launchedBy);
    if (query.executable) q = q.where('executable', '=', query.executable);
    if (query.states) q = q.where('state', 'in', query.states.length ? query.states : ['']);
    if (query.originJobs) q = q.where('originJob', 'in', query.originJobs.length ? query.originJobs : ['']);
    if (query.rootExecutions) q = q.where('rootExecution', 'in', query.rootExecutions.length ? query.rootExecutions : ['']);
    if (query.parentJobs) {
      const ids = query.parentJobs.filter((id): id is string => id !== null);
      const withNull = query.parentJobs.includes(null);
      if (!ids.length && !withNull) q = q.where('id', '=', '');
      else q = q.where((eb) => eb.or([...(ids.length ? [eb('parentJob', 'in', ids)] : []), ...(withNull ? [eb('parentJob', 'is', null)] : [])]));
    }
    if (query.rootsOnly) q = q.where('parentJob', 'is', null);
    if (query.nameExact !== undefined) q = q.where('name', '=', query.nameExact);
    if (query.created?.after !== undefined) q = q.where('created', '>=', query.created.after);
    if (query.created?.before !== undefined) q = q.where('created', '<=', query.created.before);
    if (query.modified?.after !== undefined) q = q.where('modified', '>=', query.modified.after);
    if (query.modified?.before !== undefined) q = q.where('modified', '<=', query.modified.before);
    if (query.before) {
      const { created, id } = query.before;
      q = q.where((eb) => eb.or([eb('created', '<', created), eb.and([eb('created', '=', created), eb('id', '<', id)])]));
    }
    return q.execute();
  }

  // ---- logs ----

  async insertLogs(rows: readonly NewLogRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += 200) {
      await this.db
        .insertInto('jobLogs')
        .values(rows.slice(i, i + 200))
        .execute();
    }
  }

  /** Log lines of some jobs (one try, or each job's current try with `tries`), oldest first, after `afterId`. */
  listLogs(filter: { jobs: readonly { id: string; try: number }[]; afterId?: number; limit: number; levels?: readonly string[] }): Promise<LogRow[]> {
    if (!filter.jobs.length) return Promise.resolve([]);
    let q = this.db
      .selectFrom('jobLogs')
      .selectAll()
      .where((eb) => eb.or(filter.jobs.map((job) => eb.and([eb('jobId', '=', job.id), eb('try', '=', job.try)]))))
      .orderBy('id')
      .limit(filter.limit);
    if (filter.afterId !== undefined) q = q.where('id', '>', filter.afterId);
    if (filter.levels) q = q.where('level', 'in', filter.levels.length ? filter.levels : ['']);
    return q.execute() as Promise<LogRow[]>;
  }

  /** The id of the line `count` lines before the end (0: the last line), or undefined when there are not that many. */
  async logIdBeforeLast(jobs: readonly { id: string; try: number }[], count: number): Promise<number | undefined> {
    if (!jobs.length) return undefined;
    const row = await this.db
      .selectFrom('jobLogs')
      .select('id')
      .where((eb) => eb.or(jobs.map((job) => eb.and([eb('jobId', '=', job.id), eb('try', '=', job.try)]))))
      .orderBy('id', 'desc')
      .limit(1)
      .offset(Math.max(0, count))
      .executeTakeFirst();
    return row ? Number(row.id) : undefined;
  }

  async deleteLogs(jobIds: readonly string[]): Promise<void> {
    if (!jobIds.length) return;
    await this.db.deleteFrom('jobLogs').where('jobId', 'in', jobIds).execute();
  }

  // ---- engine servers ----

  async heartbeat(row: EngineServersTable): Promise<void> {
    await this.db
      .insertInto('engineServers')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ heartbeat: row.heartbeat }))
      .execute();
  }

  staleServers(before: number): Promise<string[]> {
    return this.db
      .selectFrom('engineServers')
      .select('id')
      .where('heartbeat', '<', before)
      .execute()
      .then((rows) => rows.map((row) => row.id));
  }
}
