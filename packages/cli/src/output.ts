import type { Command } from 'commander';

/** Output goes to stdout (what scripts read); notes and progress go to stderr. */
export function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Left-aligned columns separated by two spaces; a header row when `headers` is given. */
export function formatTable(headers: readonly string[] | undefined, rows: readonly (readonly string[])[]): string {
  const all = headers ? [headers, ...rows] : rows;
  if (!all.length) return '';
  const widths: number[] = [];
  for (const row of all) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return all
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function printTable(headers: readonly string[] | undefined, rows: readonly (readonly string[])[]): void {
  const text = formatTable(headers, rows);
  if (text) print(text);
}

/** `key  value` lines for a describe. */
export function printFields(fields: readonly (readonly [string, string | undefined])[]): void {
  const shown = fields.filter((entry): entry is readonly [string, string] => entry[1] !== undefined);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  for (const [key, value] of shown) print(`${key.padEnd(width)}  ${value}`);
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${UNITS[unit]}`;
}

/** `2025-01-31 14:05:09`, in local time. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === undefined || ms === null) return '';
  const date = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/** Adds `--json` to a command whose output can be JSON instead of a table. */
export function withJson(command: Command): Command {
  return command.option('--json', 'print JSON instead of a table');
}
