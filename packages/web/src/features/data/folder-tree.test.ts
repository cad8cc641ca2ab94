import { describe, expect, it } from 'vitest';
import {
  activeFolderOf,
  ancestorsOf,
  buildFolderTree,
  expandedPaths,
  folderLevel,
  isChildFolder,
  normalizeFolderPath,
  revealFolder,
  setActiveFolder,
  toggleFolder,
  visibleFolders,
} from './folder-tree';

describe('folder tree (SPEC §3, §9)', () => {
  it('counts levels as slashes followed by a character', () => {
    expect(folderLevel('/')).toBe(0);
    expect(folderLevel('/a')).toBe(1);
    expect(folderLevel('/a/b')).toBe(2);
    expect(folderLevel('/a/b/')).toBe(2);
  });

  it('knows direct children: root children have level 1, others start with the path plus a slash, one level deeper', () => {
    expect(isChildFolder('/', '/a')).toBe(true);
    expect(isChildFolder('/', '/a/b')).toBe(false);
    expect(isChildFolder('/a', '/a/b')).toBe(true);
    expect(isChildFolder('/a', '/ab')).toBe(false);
    expect(isChildFolder('/a', '/a/b/c')).toBe(false);
    expect(isChildFolder('/a', '/a')).toBe(false);
  });

  it('builds entries with path, level, name, sorted children; root expanded, the rest collapsed', () => {
    const tree = buildFolderTree(['/', '/reads', '/Results', '/alpha', '/reads/run2', '/reads/Run1', '/b/c/d']);
    expect(tree.get('/')).toEqual({
      path: '/',
      level: 0,
      name: '/',
      children: ['/alpha', '/b', '/reads', '/Results'],
      isRootProject: true,
      isExpanded: true,
    });
    expect(tree.get('/reads')).toMatchObject({ level: 1, name: 'reads', children: ['/reads/Run1', '/reads/run2'], isRootProject: false, isExpanded: false });
    // Missing ancestors are added.
    expect(tree.get('/b/c')).toMatchObject({ level: 2, name: 'c', children: ['/b/c/d'] });
    expect(visibleFolders(tree).map((entry) => entry.path)).toEqual(['/', '/alpha', '/b', '/reads', '/Results']);
  });

  it('breaks case-insensitive ties deterministically', () => {
    expect(buildFolderTree(['/b', '/B', '/a']).get('/')?.children).toEqual(['/a', '/B', '/b']);
  });

  it('toggles, reveals and keeps expansion across rebuilds', () => {
    let tree = buildFolderTree(['/a/b/c', '/z']);
    tree = toggleFolder(tree, '/a');
    expect(visibleFolders(tree).map((entry) => entry.path)).toEqual(['/', '/a', '/a/b', '/z']);
    tree = revealFolder(tree, '/a/b/c');
    expect(visibleFolders(tree).map((entry) => entry.path)).toEqual(['/', '/a', '/a/b', '/a/b/c', '/z']);
    const rebuilt = buildFolderTree(['/a/b/c', '/z', '/new'], expandedPaths(tree));
    expect(rebuilt.get('/a/b')?.isExpanded).toBe(true);
    expect(rebuilt.get('/new')?.isExpanded).toBe(false);
    // The inputs are never changed.
    expect(toggleFolder(rebuilt, '/').get('/')?.isExpanded).toBe(false);
    expect(rebuilt.get('/')?.isExpanded).toBe(true);
  });

  it('normalises paths and lists ancestors', () => {
    expect(normalizeFolderPath('')).toBe('/');
    expect(normalizeFolderPath('a//b/')).toBe('/a/b');
    expect(ancestorsOf('/a/b')).toEqual(['/', '/a', '/a/b']);
  });

  it('keeps an active folder per tree id, empty by default', () => {
    const state = setActiveFolder({}, 'project-1', '/reads');
    expect(activeFolderOf(state, 'project-1')).toBe('/reads');
    expect(activeFolderOf(state, 'project-2')).toBe('');
  });
});

import { folderNameError } from './folder-name';

describe('folder names (SPEC §5)', () => {
  it('refuses slashes, empty names, dot names and names over 1000 characters', () => {
    expect(folderNameError('reads')).toBeUndefined();
    expect(folderNameError('a/b')).toMatch(/"\/"/);
    expect(folderNameError(' ')).toMatch(/Enter/);
    expect(folderNameError('..')).toMatch(/cannot be/);
    expect(folderNameError('x'.repeat(1000))).toBeUndefined();
    expect(folderNameError('x'.repeat(1001))).toMatch(/1000/);
  });
});
