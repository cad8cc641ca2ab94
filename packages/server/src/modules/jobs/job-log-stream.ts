import websocket from '@fastify/websocket';
import type { LogMessage, RouteParsedInput } from '@panx/contract';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { ApiError, invalidInput } from '../../errors.js';
import type { AuthService } from '../auth/auth.service.js';
import type { Caller } from '../auth/caller.js';
import { descendantsOf } from './job-engine.js';
import { type JobLogsService, toLogMessage } from './job-logs.service.js';
import { isTerminal } from './job-state.js';
import type { JobRow } from './jobs.repository.js';
import type { JobsService } from './jobs.service.js';

interface StreamOptions {
  access_token?: unknown;
  token_type?: unknown;
  numRecentMessages?: unknown;
  recurseJobs?: unknown;
  tail?: unknown;
  try?: unknown;
  levels?: unknown;
  /** Panx: resume after the line whose `line` value this is (a reconnecting client loses and repeats nothing). */
  starting?: unknown;
}

/** What `dx watch` sends when it has nothing to say about the count (reference §7.4). */
const DEFAULT_RECENT = 262_144;
const BATCH = 1000;
const POLL_MS = 400;

/**
 * Reading job logs: the REST `getLog` in pages, and the websocket `GET /job-xxxx/getLog/websocket`
 * that `dx watch` and `px watch` follow (reference §7.4): the client's first frame carries its
 * token and options, then every line is one JSON frame, and `END_LOG` follows the last line of a
 * finished job before a close with code 1000. Panx adds `starting` to the first frame: the `line`
 * value of the last line a client received, so that a reconnecting client continues right after it.
 */
export class JobLogsQuery {
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly jobs: JobsService,
    private readonly logs: JobLogsService,
    private readonly auth: AuthService,
    private readonly stores: { jobs: { listByRoot(root: string): Promise<JobRow[]> } },
  ) {}

  /** The job (at the try asked for) and, with recurse, every job below it at their current tries. */
  private async jobSet(job: JobRow, recurse: boolean, tryNumber: number | undefined): Promise<{ set: { id: string; try: number }[]; rows: JobRow[] }> {
    const rows = recurse ? [job, ...descendantsOf(job.id, await this.stores.jobs.listByRoot(job.rootExecution))] : [job];
    return { rows, set: rows.map((row) => ({ id: row.id, try: row.id === job.id && tryNumber !== undefined ? tryNumber : row.try })) };
  }

  async page(caller: Caller, id: string, input: RouteParsedInput<'job-xxxx/getLog'>): Promise<{ messages: LogMessage[]; next: unknown }> {
    const job = await this.jobs.visibleJob(caller, id);
    if (input.try !== undefined && input.try > job.try) throw invalidInput(`${id} has no try ${input.try}`);
    const { set } = await this.jobSet(job, input.recurseJobs ?? false, input.try);
    let afterId: number | undefined;
    if (typeof input.starting === 'number') afterId = input.starting;
    else if (input.starting !== undefined && input.starting !== null) throw invalidInput('"starting" must be the "next" value of a previous getLog answer');
    else if (input.numRecentMessages !== undefined) afterId = await this.logs.startOfRecent(set, input.numRecentMessages);
    const limit = input.limit ?? BATCH;
    const rows = await this.logs.read(set, { afterId, limit, levels: input.levels });
    return { messages: rows.map(toLogMessage), next: rows.length === limit ? Number(rows[rows.length - 1]?.id) : null };
  }

  registerWebsocket(http: FastifyInstance): void {
    void http.register(async (app) => {
      await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
      app.get<{ Params: { subject: string } }>('/:subject/getLog/websocket', { websocket: true }, (socket, request) => {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        void this.serve(socket, request.params.subject);
      });
    });
  }

  /** Closes every stream with 1001, which makes `dx watch` reconnect later. */
  closeAll(): void {
    for (const socket of this.sockets) socket.close(1001, 'Server restart, please reconnect later');
    this.sockets.clear();
  }

  private async serve(socket: WebSocket, subject: string): Promise<void> {
    const fail = (error: unknown) => {
      const { type, message } = error instanceof ApiError ? error : { type: 'InternalError', message: 'The log could not be streamed' };
      let reason = JSON.stringify({ type, message });
      // A close reason is at most 123 bytes.
      while (Buffer.byteLength(reason) > 123) reason = JSON.stringify({ type, message: `${message.slice(0, Math.max(0, message.length - 20))}…` });
      if (socket.readyState === socket.OPEN) socket.close(4000 + (error instanceof ApiError ? Math.min(error.status, 999) : 500), reason);
    };
    let options: StreamOptions;
    try {
      options = await firstFrame(socket);
    } catch (error) {
      fail(error);
      return;
    }
    let stopWaiting = () => {};
    const unsubscribe = this.logs.onAppended(() => stopWaiting());
    try {
      const now = Date.now();
      if (typeof options.access_token !== 'string') throw new ApiError('InvalidAuthentication', 'The first frame must carry "access_token"');
      const caller = await this.auth.authenticate(`Bearer ${options.access_token}`, now);
      const job = await this.jobs.visibleJob(caller, subject);
      const tryNumber = typeof options.try === 'number' && Number.isInteger(options.try) ? options.try : undefined;
      const recurse = options.recurseJobs === true;
      const levels = Array.isArray(options.levels) ? options.levels.filter((level): level is string => typeof level === 'string') : undefined;
      const recent = typeof options.numRecentMessages === 'number' ? options.numRecentMessages : DEFAULT_RECENT;
      let { set, rows } = await this.jobSet(job, recurse, tryNumber);
      if (options.starting !== undefined && (typeof options.starting !== 'number' || !Number.isSafeInteger(options.starting) || options.starting < 0)) {
        throw invalidInput('"starting" must be the "line" value of the last line received');
      }
      let afterId = typeof options.starting === 'number' ? options.starting : await this.logs.startOfRecent(set, recent);
      let finalRound = false;
      for (;;) {
        if (socket.readyState !== socket.OPEN) return;
        const lines = await this.logs.read(set, { afterId, limit: BATCH, levels });
        for (const line of lines) socket.send(JSON.stringify(toLogMessage(line)));
        if (lines.length) afterId = Number(lines[lines.length - 1]?.id);
        if (lines.length === BATCH) continue;
        if (finalRound || options.tail === false) break;
        const current = await this.jobs.visibleJob(caller, job.id);
        ({ set, rows } = await this.jobSet(current, recurse, tryNumber));
        const finished = tryNumber !== undefined && tryNumber < current.try ? rows.slice(1) : rows;
        if (finished.every((row) => isTerminal(row.state))) {
          finalRound = true;
          continue;
        }
        await new Promise<void>((resolve) => {
          // One close listener per wait, removed after it: a stream that follows a job for hours adds none.
          const done = () => {
            clearTimeout(timer);
            socket.off('close', done);
            resolve();
          };
          const timer = setTimeout(done, POLL_MS);
          stopWaiting = done;
          socket.once('close', done);
        });
      }
      socket.send(JSON.stringify({ timestamp: Date.now(), source: 'SYSTEM', level: 'INFO', job: job.id, line: 0, msg: 'END_LOG' }));
      socket.close(1000);
    } catch (error) {
      fail(error);
    } finally {
      unsubscribe();
    }
  }
}

function firstFrame(socket: WebSocket): Promise<StreamOptions> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(invalidInput('No options frame within 30 s')), 30_000);
    socket.once('message', (data) => {
      clearTimeout(timer);
      try {
        const parsed: unknown = JSON.parse(String(data));
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        resolve(parsed as StreamOptions);
      } catch {
        reject(invalidInput('The first frame must be a JSON object with "access_token" and the stream options'));
      }
    });
    socket.once('close', () => {
      clearTimeout(timer);
      reject(invalidInput('closed'));
    });
  });
}
