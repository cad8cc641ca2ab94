import type { LogBuffer } from './log-buffer';

/**
 * What the viewer shows of a `LogBuffer`: the lines of the chosen levels (`rows`, indices into the
 * buffer) and the rows matching the search text (`matches`, positions in `rows`). Both grow
 * incrementally as lines arrive, so a live million-line log is scanned once, not once per frame.
 */
export class LogView {
  private rowIndices = new Int32Array(1024);
  private rowCount = 0;
  private scannedLines = 0;
  private matchRows: number[] = [];
  private scannedRows = 0;
  private needle = '';
  private allowed: Set<number> | undefined;

  constructor(
    private readonly buffer: LogBuffer,
    private levels: ReadonlySet<string> | undefined = undefined,
    query = '',
  ) {
    this.needle = query.toLowerCase();
    this.sync();
  }

  /** Rows shown. */
  get count(): number {
    return this.rowCount;
  }

  /** The buffer index shown at this row. */
  lineAt(row: number): number {
    return this.rowIndices[row] ?? -1;
  }

  /** Positions (rows) of the lines containing the search text, in order. */
  get matches(): readonly number[] {
    return this.matchRows;
  }

  get query(): string {
    return this.needle;
  }

  /** Shows only these levels (undefined: every level); rescans. */
  setLevels(levels: ReadonlySet<string> | undefined): void {
    this.levels = levels;
    this.rowCount = 0;
    this.scannedLines = 0;
    this.resetSearch();
    this.sync();
  }

  /** Searches for this text, case-insensitively (empty: no search); rescans the rows. Answers whether the search changed. */
  setQuery(query: string): boolean {
    const needle = query.toLowerCase();
    if (needle === this.needle) return false;
    this.needle = needle;
    this.resetSearch();
    this.sync();
    return true;
  }

  private resetSearch(): void {
    this.matchRows = [];
    this.scannedRows = 0;
  }

  /** Takes in the lines added to the buffer since the last call. Answers whether anything changed. */
  sync(): boolean {
    const before = this.rowCount;
    const beforeMatches = this.matchRows.length;
    if (this.levels) {
      this.allowed = new Set();
      for (const level of this.levels) {
        const code = this.buffer.codeOfLevel(level);
        if (code !== undefined) this.allowed.add(code);
      }
    } else {
      this.allowed = undefined;
    }
    const total = this.buffer.length;
    if (this.rowIndices.length < total) {
      const next = new Int32Array(Math.max(total, this.rowIndices.length * 2));
      next.set(this.rowIndices.subarray(0, this.rowCount));
      this.rowIndices = next;
    }
    for (let i = this.scannedLines; i < total; i++) {
      if (this.allowed && !this.allowed.has(this.buffer.levelCode(i))) continue;
      this.rowIndices[this.rowCount++] = i;
    }
    this.scannedLines = total;
    if (this.needle) {
      for (let row = this.scannedRows; row < this.rowCount; row++) {
        if (
          this.buffer
            .msg(this.rowIndices[row] ?? 0)
            .toLowerCase()
            .includes(this.needle)
        )
          this.matchRows.push(row);
      }
    }
    this.scannedRows = this.rowCount;
    return this.rowCount !== before || this.matchRows.length !== beforeMatches;
  }

  /**
   * The match to go to from `current` (an index into `matches`, -1 for none yet) in `direction`,
   * wrapping around; -1 when nothing matches.
   */
  step(current: number, direction: 1 | -1): number {
    const n = this.matchRows.length;
    if (!n) return -1;
    if (current < 0 || current >= n) return direction === 1 ? 0 : n - 1;
    return (current + direction + n) % n;
  }

  /** The first match at or after this row (the search starts where the user is looking), or -1. */
  firstMatchFrom(row: number): number {
    const rows = this.matchRows;
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((rows[mid] ?? 0) < row) lo = mid + 1;
      else hi = mid;
    }
    return rows.length ? (lo < rows.length ? lo : 0) : -1;
  }
}

/** Splits a line around the (case-insensitive) occurrences of `query`, for highlighting as text. */
export function splitMatches(text: string, query: string): { text: string; match: boolean }[] {
  if (!query) return [{ text, match: false }];
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  const parts: { text: string; match: boolean }[] = [];
  let from = 0;
  for (;;) {
    const at = lower.indexOf(needle, from);
    if (at < 0) break;
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + needle.length), match: true });
    from = at + needle.length;
  }
  if (from < text.length || !parts.length) parts.push({ text: text.slice(from), match: false });
  return parts;
}
