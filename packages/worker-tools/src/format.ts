/** Text as the dx CLI prints it (dxpy/utils/describe.py), without the colours. */

const SIZE_LEVELS = ['bytes', 'KB', 'MB', 'GB', 'TB'];

/** dxpy's get_size_str: the level by decimal digits, the value in powers of 1024. */
export function sizeString(size: number | undefined): string {
  if (size === undefined || size === null) return `0 ${SIZE_LEVELS[0]}`;
  const magnitude = size === 0 ? 0 : Math.floor(Math.log10(size));
  const level = Math.min(Math.floor(magnitude / 3), 4);
  const value = size / 2 ** (level * 10);
  return `${level === 0 ? String(Math.trunc(value)) : value.toFixed(2)} ${SIZE_LEVELS[level]}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `%Y-%m-%d %H:%M:%S` in local time. */
export function timestamp(ms: number | undefined): string {
  if (typeof ms !== 'number') return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export interface LsDescribe {
  id: string;
  project: string;
  class: string;
  name: string;
  folder: string;
  state?: string;
  size?: number;
  modified?: number;
  length?: number;
}

/** One `dx ls -l` / `dx find data` line: state, modified, size, [folder/]name (project:id). */
export function lsLine(desc: LsDescribe, options: { folder?: boolean; project?: boolean } = {}): string {
  const state = desc.state ?? '';
  const name = `${options.folder ? `${desc.folder}${desc.folder === '/' ? '' : '/'}` : ''}${desc.name}`;
  const size = desc.class === 'file' && desc.size !== undefined ? sizeString(desc.size) : typeof desc.length === 'number' ? `${desc.length} rows` : '';
  return `${state}${' '.repeat(Math.max(0, 8 - state.length))}${timestamp(desc.modified)} ${size}${' '.repeat(Math.max(0, 9 - size.length))} ${name} (${options.project ? `${desc.project}:` : ''}${desc.id})`;
}

/** The fields `dx ls -l` and `dx find data` ask for. */
export const LS_FIELDS = { id: true, class: true, folder: true, length: true, modified: true, name: true, project: true, size: true, state: true };

function describeValue(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (Array.isArray(value)) return value.length ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))).join(', ') : '-';
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.length ? entries.map(([key, item]) => `${key}=${typeof item === 'string' ? item : JSON.stringify(item)}`).join(', ') : '-';
  }
  return String(value);
}

const LABELS: [string, string][] = [
  ['id', 'ID'],
  ['class', 'Class'],
  ['project', 'Project'],
  ['folder', 'Folder'],
  ['name', 'Name'],
  ['state', 'State'],
  ['hidden', 'Visibility'],
  ['types', 'Types'],
  ['properties', 'Properties'],
  ['tags', 'Tags'],
  ['details', 'Details'],
  ['created', 'Created'],
  ['createdBy', 'Created by'],
  ['modified', 'Last modified'],
  ['media', 'Media type'],
  ['archivalState', 'archivalState'],
  ['size', 'Size'],
];

/** The human `dx describe` block: a label column of 20 and one line per field. */
export function describeText(desc: Record<string, unknown>): string {
  const lines: string[] = [];
  const seen = new Set<string>();
  const line = (label: string, value: string) => lines.push(`${label.padEnd(20)}${value}`);
  for (const [key, label] of LABELS) {
    if (!(key in desc)) continue;
    seen.add(key);
    const value = desc[key];
    if (key === 'hidden') line(label, value ? 'hidden' : 'visible');
    else if (key === 'created' || key === 'modified') line(label, timestamp(value as number));
    else if (key === 'createdBy' && value && typeof value === 'object') line(label, String((value as { user?: unknown }).user ?? '-'));
    else if (key === 'size' && desc.class === 'file') line(label, sizeString(value as number));
    else if (key === 'details') line(label, JSON.stringify(value));
    else line(label, describeValue(value));
  }
  for (const [key, value] of Object.entries(desc))
    if (!seen.has(key) && value !== undefined) line(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
  return `${lines.join('\n')}\n`;
}
