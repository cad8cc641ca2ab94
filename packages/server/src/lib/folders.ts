import { invalidInput } from '../errors.js';

/** `/a/b/` → `/a/b`; the root stays `/`. Input has been checked by the contract's folder schema. */
export function normalizeFolder(path: string): string {
  if (path === '/') return '/';
  return path.replace(/\/+$/, '') || '/';
}

export function parentOf(path: string): string {
  if (path === '/') return '/';
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

export function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** `/a/b/c` → [`/a`, `/a/b`, `/a/b/c`]. */
export function pathWithAncestors(path: string): string[] {
  if (path === '/') return [];
  const segments = path.slice(1).split('/');
  return segments.map((_, i) => `/${segments.slice(0, i + 1).join('/')}`);
}

export function joinFolder(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

export function isSameOrUnder(path: string, ancestor: string): boolean {
  return ancestor === '/' || path === ancestor || path.startsWith(`${ancestor}/`);
}

export function assertFolderName(name: string): void {
  if (name.includes('/')) throw invalidInput(`Folder names cannot contain "/": "${name}"`);
  if (name.length === 0 || name.length > 1000) throw invalidInput('Folder names must be 1 to 1000 characters long');
}
