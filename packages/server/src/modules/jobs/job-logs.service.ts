import { EventEmitter } from 'node:events';
import type { LogMessage } from '@panx/contract';
import type { ClusterBus } from '../../cluster/cluster-bus.js';
import type { Stores } from '../../db/stores.js';
import { toJson } from '../../lib/json.js';
import type { LogLine, StreamOffsets } from '../../scheduler/executors/executor.js';
import { logOffsetsOf } from './job-model.js';
import type { LogRow } from './jobs.repository.js';

/** The job runner marks its own lines (set-up, downloads) with this prefix: they become SYSTEM lines. */
export const SYSTEM_LINE_PREFIX = '\u001ePANX ';

/** Longest message kept per line. */
const MAX_MESSAGE = 32 * 1024;

/**
 * Every log line of every job, per try, with its timestamp, source (APP: the job's own output;
 * SYSTEM: the platform's) and level (STDOUT, STDERR, INFO, ...). Lines from an executor are stored
 * together with how far its streams have been read, so a re-attached executor continues exactly
 * after them.
 */
export class JobLogsService {
  private readonly events = new EventEmitter();

  constructor(
    private readonly stores: Stores,
    private readonly bus?: ClusterBus,
  ) {
    this.events.setMaxListeners(0);
    // Lines stored by another process of this server wake this one's live logs at once.
    bus?.subscribe((event) => {
      if (event.type === 'log-appended') this.events.emit('appended', event.jobId);
    });
  }

  private appended(jobId: string): void {
    this.events.emit('appended', jobId);
    this.bus?.publish({ type: 'log-appended', jobId });
  }

  async ingest(jobId: string, tryNumber: number, lines: readonly LogLine[], offsets: StreamOffsets): Promise<void> {
    const rows = lines.map((line) => {
      const system = line.text.startsWith(SYSTEM_LINE_PREFIX);
      return {
        jobId,
        try: tryNumber,
        timestamp: line.timestamp,
        source: system ? 'SYSTEM' : 'APP',
        level: system ? 'INFO' : line.stream.toUpperCase(),
        msg: (system ? line.text.slice(SYSTEM_LINE_PREFIX.length) : line.text).slice(0, MAX_MESSAGE),
      };
    });
    await this.stores.transaction(async (tx) => {
      const job = await tx.jobs.findById(jobId);
      if (!job) return;
      await tx.jobs.insertLogs(rows);
      const all = logOffsetsOf(job);
      all[String(tryNumber)] = offsets;
      await tx.jobs.update(jobId, { logOffsets: toJson(all) });
    });
    this.appended(jobId);
  }

  /** A line from the platform itself. */
  async system(jobId: string, tryNumber: number, msg: string, level = 'INFO', now = Date.now()): Promise<void> {
    await this.stores.jobs.insertLogs([{ jobId, try: tryNumber, timestamp: now, source: 'SYSTEM', level, msg: msg.slice(0, MAX_MESSAGE) }]);
    this.appended(jobId);
  }

  read(jobs: readonly { id: string; try: number }[], options: { afterId?: number; limit: number; levels?: readonly string[] }): Promise<LogRow[]> {
    return this.stores.jobs.listLogs({ jobs, ...options });
  }

  /** The id after which the last `count` lines of these jobs start (undefined: from the beginning). */
  startOfRecent(jobs: readonly { id: string; try: number }[], count: number): Promise<number | undefined> {
    return this.stores.jobs.logIdBeforeLast(jobs, count);
  }

  /** Called whenever lines of any job were added on this server (other servers' lines are found by polling). */
  onAppended(listener: (jobId: string) => void): () => void {
    this.events.on('appended', listener);
    return () => this.events.off('appended', listener);
  }
}

export function toLogMessage(row: LogRow): LogMessage {
  return { timestamp: row.timestamp, source: row.source, level: row.level, job: row.jobId, line: Number(row.id), msg: row.msg, try: row.try };
}
