/**
 * The lines of one job log, held column by column so that a million lines stay cheap: the message, the
 * level (as a small code), the source and the timestamp. Lines arrive from the REST `getLog` pages and
 * from the websocket; each carries `line`, the server's increasing cursor, and the buffer keeps only
 * lines past the last cursor it holds. A reconnecting stream asks for the lines after `cursor`, so a
 * line is never lost nor shown twice.
 */

/** One frame of the log websocket, or one message of `getLog` (reference §7.4). */
export interface LogMessage {
  timestamp: number;
  source: string;
  level: string;
  job: string;
  line: number;
  msg: string;
  try?: number;
}

/** The levels the viewer knows, in the order of the level filter; others are added as they appear. */
export const KNOWN_LEVELS = ['STDOUT', 'STDERR', 'INFO', 'WARNING', 'ERROR', 'CRITICAL', 'DEBUG', 'NOTICE', 'ALERT', 'EMERG', 'METRICS'] as const;

/** The last frame of a finished log. */
export function isEndOfLog(message: Pick<LogMessage, 'source' | 'msg'>): boolean {
  return message.source === 'SYSTEM' && message.msg === 'END_LOG';
}

/** Checks a parsed frame's shape (the websocket carries JSON from the network: never trusted blindly). */
export function asLogMessage(value: unknown): LogMessage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.msg !== 'string' || typeof v.line !== 'number' || typeof v.level !== 'string') return undefined;
  return {
    timestamp: typeof v.timestamp === 'number' ? v.timestamp : 0,
    source: typeof v.source === 'string' ? v.source : 'APP',
    level: v.level,
    job: typeof v.job === 'string' ? v.job : '',
    line: v.line,
    msg: v.msg,
    ...(typeof v.try === 'number' ? { try: v.try } : {}),
  };
}

const SOURCES = ['APP', 'SYSTEM'];

function grow<T extends Float64Array | Uint8Array>(array: T, need: number, make: (size: number) => T): T {
  if (need <= array.length) return array;
  const next = make(Math.max(need, array.length * 2));
  next.set(array);
  return next;
}

export class LogBuffer {
  private msgs: string[] = [];
  private timestamps = new Float64Array(1024);
  private cursors = new Float64Array(1024);
  private levelCodes = new Uint8Array(1024);
  private sourceCodes = new Uint8Array(1024);
  private readonly levelNames: string[] = [...KNOWN_LEVELS];
  private readonly levelIndex = new Map<string, number>(KNOWN_LEVELS.map((level, index) => [level, index]));
  private last = -1;
  /** Lines per level code, kept as lines arrive. */
  private counts: number[] = [];
  /** Bumped by every change: React components compare it to re-render. */
  version = 0;

  /** How many lines the buffer holds. */
  get length(): number {
    return this.msgs.length;
  }

  /** The `line` of the newest line held (undefined when empty): where a resumed stream starts. */
  get cursor(): number | undefined {
    return this.last < 0 ? undefined : this.last;
  }

  /** Adds the messages past the cursor, in order; END_LOG frames and repeats are skipped. Answers how many were added. */
  append(messages: readonly LogMessage[]): number {
    let added = 0;
    for (const message of messages) {
      if (isEndOfLog(message) || !(message.line > this.last)) continue;
      const index = this.msgs.length;
      this.timestamps = grow(this.timestamps, index + 1, (size) => new Float64Array(size));
      this.cursors = grow(this.cursors, index + 1, (size) => new Float64Array(size));
      this.levelCodes = grow(this.levelCodes, index + 1, (size) => new Uint8Array(size));
      this.sourceCodes = grow(this.sourceCodes, index + 1, (size) => new Uint8Array(size));
      this.msgs.push(message.msg);
      this.timestamps[index] = message.timestamp;
      this.cursors[index] = message.line;
      const code = this.codeOf(message.level);
      this.levelCodes[index] = code;
      this.counts[code] = (this.counts[code] ?? 0) + 1;
      this.sourceCodes[index] = message.source === 'SYSTEM' ? 1 : 0;
      this.last = message.line;
      added++;
    }
    if (added) this.version++;
    return added;
  }

  private codeOf(level: string): number {
    const known = this.levelIndex.get(level);
    if (known !== undefined) return known;
    if (this.levelNames.length >= 255) return this.levelIndex.get('INFO') ?? 2;
    this.levelNames.push(level);
    this.levelIndex.set(level, this.levelNames.length - 1);
    return this.levelNames.length - 1;
  }

  msg(index: number): string {
    return this.msgs[index] ?? '';
  }

  level(index: number): string {
    return this.levelNames[this.levelCodes[index] ?? 0] ?? 'STDOUT';
  }

  source(index: number): string {
    return SOURCES[this.sourceCodes[index] ?? 0] ?? 'APP';
  }

  timestamp(index: number): number {
    return this.timestamps[index] ?? 0;
  }

  lineId(index: number): number {
    return this.cursors[index] ?? 0;
  }

  /** The code of the line's level (compare with `codeOfLevel` to filter without string work). */
  levelCode(index: number): number {
    return this.levelCodes[index] ?? 0;
  }

  codeOfLevel(level: string): number | undefined {
    return this.levelIndex.get(level);
  }

  /** The levels present in the buffer with their counts, in the viewer's order. */
  levelCounts(): { level: string; count: number }[] {
    return this.levelNames.map((level, code) => ({ level, count: this.counts[code] ?? 0 })).filter((entry) => entry.count > 0);
  }

  /** The whole log as text, one line per message: ISO time, level, message (the download). */
  toText(): string {
    const parts: string[] = new Array(this.msgs.length);
    for (let i = 0; i < this.msgs.length; i++) parts[i] = formatLine(this, i);
    return parts.length ? `${parts.join('\n')}\n` : '';
  }
}

export function formatLine(buffer: LogBuffer, index: number): string {
  const time = buffer.timestamp(index);
  const stamp = time > 0 ? new Date(time).toISOString() : '-';
  return `${stamp} ${buffer.level(index)} ${buffer.msg(index)}`;
}
