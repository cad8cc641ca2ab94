import { describe, expect, it } from 'vitest';
import { isSameOrUnder, joinFolder, lastSegment, normalizeFolder, parentOf, pathWithAncestors } from './folders.js';

describe('folder paths', () => {
  it.each([
    ['/', '/'],
    ['/a/', '/a'],
    ['/a/b//', '/a/b'],
  ])('normalizes %s to %s', (input, expected) => expect(normalizeFolder(input)).toBe(expected));

  it('knows parents, names and ancestors', () => {
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a')).toBe('/');
    expect(lastSegment('/a/b')).toBe('b');
    expect(pathWithAncestors('/a/b/c')).toEqual(['/a', '/a/b', '/a/b/c']);
    expect(pathWithAncestors('/')).toEqual([]);
    expect(joinFolder('/', 'x')).toBe('/x');
    expect(joinFolder('/a', 'x')).toBe('/a/x');
  });

  it('tells whether a path is inside another without prefix confusion', () => {
    expect(isSameOrUnder('/ab', '/a')).toBe(false);
    expect(isSameOrUnder('/a/b', '/a')).toBe(true);
    expect(isSameOrUnder('/anything', '/')).toBe(true);
  });
});
