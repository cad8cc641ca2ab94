/**
 * The folder tree of the data browser (SPEC §3 "Folder tree entry", §4 "Folder tree", §9 folder levels),
 * as pure functions over immutable values.
 *
 * - `level` counts the slashes followed by a character: `/` is 0, `/a` is 1, `/a/b` is 2.
 * - Children of the root have level 1; the children of any other folder start with its path plus a
 *   slash and are exactly one level deeper.
 * - Children are sorted case-insensitively (ties broken by code point, so the order is total).
 * - The root starts expanded and every other folder collapsed.
 * - The state of the folder trees keeps one active folder per tree id, '' by default.
 */

export interface FolderTreeEntry {
  path: string;
  level: number;
  name: string;
  children: string[];
  isRootProject: boolean;
  isExpanded: boolean;
}

export type FolderTree = ReadonlyMap<string, FolderTreeEntry>;

export const ROOT = '/';

/** Slashes followed by a character: `/` → 0, `/a` → 1, `/a/b` → 2 (a trailing slash does not count). */
export function folderLevel(path: string): number {
  return (path.match(/\/(?=.)/g) ?? []).length;
}

/** `/a/b/` → `/a/b`; `''` → `/`. */
export function normalizeFolderPath(path: string): string {
  if (!path || path === ROOT) return ROOT;
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  const trimmed = withSlash.replace(/\/+$/, '');
  return trimmed === '' ? ROOT : trimmed.replace(/\/{2,}/g, '/');
}

/** The last segment (`/a/b` → `b`); the root's name is `/`. */
export function folderName(path: string): string {
  if (path === ROOT) return ROOT;
  return path.slice(path.lastIndexOf('/') + 1);
}

export function parentFolder(path: string): string | undefined {
  if (path === ROOT) return undefined;
  const index = path.lastIndexOf('/');
  return index <= 0 ? ROOT : path.slice(0, index);
}

/** True when `candidate` is a direct child of `parent` (SPEC §9). */
export function isChildFolder(parent: string, candidate: string): boolean {
  if (candidate === ROOT || candidate === parent) return false;
  const level = folderLevel(candidate);
  if (parent === ROOT) return level === 1 && candidate.startsWith('/');
  return candidate.startsWith(`${parent}/`) && level === folderLevel(parent) + 1;
}

/** Case-insensitive order, then code point order so that `a` and `A` never tie. */
export function compareFolderNames(a: string, b: string): number {
  const x = a.toLocaleLowerCase('en');
  const y = b.toLocaleLowerCase('en');
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every ancestor of a path, root first, the path itself last. */
export function ancestorsOf(path: string): string[] {
  const normal = normalizeFolderPath(path);
  if (normal === ROOT) return [ROOT];
  const segments = normal.slice(1).split('/');
  return [ROOT, ...segments.map((_, index) => `/${segments.slice(0, index + 1).join('/')}`)];
}

/**
 * Builds the tree from folder paths (as `project-xxxx/describe` with `folders: true` gives them). Missing
 * ancestors are added; the root always exists. `expanded` keeps the expansion of a previous tree.
 */
export function buildFolderTree(paths: Iterable<string>, expanded?: ReadonlySet<string>): Map<string, FolderTreeEntry> {
  const all = new Set<string>([ROOT]);
  for (const path of paths) for (const ancestor of ancestorsOf(path)) all.add(ancestor);
  const children = new Map<string, string[]>();
  for (const path of all) {
    const parent = parentFolder(path);
    if (parent === undefined) continue;
    const list = children.get(parent);
    if (list) list.push(path);
    else children.set(parent, [path]);
  }
  const tree = new Map<string, FolderTreeEntry>();
  for (const path of all) {
    const isRootProject = path === ROOT;
    tree.set(path, {
      path,
      level: folderLevel(path),
      name: folderName(path),
      children: (children.get(path) ?? []).sort((a, b) => compareFolderNames(folderName(a), folderName(b))),
      isRootProject,
      isExpanded: expanded ? expanded.has(path) || isRootProject : isRootProject,
    });
  }
  return tree;
}

export function expandedPaths(tree: FolderTree): Set<string> {
  return new Set([...tree.values()].filter((entry) => entry.isExpanded).map((entry) => entry.path));
}

function withEntry(tree: FolderTree, path: string, change: Partial<FolderTreeEntry>): Map<string, FolderTreeEntry> {
  const entry = tree.get(path);
  const next = new Map(tree);
  if (entry) next.set(path, { ...entry, ...change });
  return next;
}

export function toggleFolder(tree: FolderTree, path: string): Map<string, FolderTreeEntry> {
  const entry = tree.get(path);
  return entry ? withEntry(tree, path, { isExpanded: !entry.isExpanded }) : new Map(tree);
}

/** Expands every ancestor of `path` so that it is visible (the folder itself keeps its state). */
export function revealFolder(tree: FolderTree, path: string): Map<string, FolderTreeEntry> {
  let next = new Map(tree);
  const chain = ancestorsOf(path);
  for (const ancestor of chain.slice(0, -1)) {
    const entry = next.get(ancestor);
    if (entry && !entry.isExpanded) next = withEntry(next, ancestor, { isExpanded: true });
  }
  return next;
}

/** The rows to draw: depth-first from the root, descending only into expanded folders. */
export function visibleFolders(tree: FolderTree): FolderTreeEntry[] {
  const rows: FolderTreeEntry[] = [];
  const walk = (path: string) => {
    const entry = tree.get(path);
    if (!entry) return;
    rows.push(entry);
    if (entry.isExpanded) for (const child of entry.children) walk(child);
  };
  walk(ROOT);
  return rows;
}

/** SPEC §3: the folder trees' state keeps an active folder per tree id, '' until one is chosen. */
export type FolderTreesState = Readonly<Record<string, { activeFolder: string }>>;

export function activeFolderOf(state: FolderTreesState, treeId: string): string {
  return state[treeId]?.activeFolder ?? '';
}

export function setActiveFolder(state: FolderTreesState, treeId: string, folder: string): FolderTreesState {
  return { ...state, [treeId]: { activeFolder: folder } };
}
