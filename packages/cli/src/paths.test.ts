import { describe, expect, it } from 'vitest';
import { baseName, joinPath, normalizePath, parentOf, splitProjectPath } from './paths.js';

describe('paths', () => {
  it.each([
    ['reads.fq', { path: 'reads.fq' }],
    ['alpha:/a/b', { projectSpec: 'alpha', path: '/a/b' }],
    ['alpha:', { projectSpec: 'alpha', path: '' }],
    ['project-0123456789abcdefghijKLMN:x', { projectSpec: 'project-0123456789abcdefghijKLMN', path: 'x' }],
    ['my\\:project:/x', { projectSpec: 'my:project', path: '/x' }],
    ['/a/time\\:12', { path: '/a/time\\:12' }],
  ])('splits %s into project and path', (spec, expected) => {
    expect(splitProjectPath(spec)).toEqual(expected);
  });

  it.each([
    ['/', 'x', '/x'],
    ['/a/b', '..', '/a'],
    ['/a/b', '../../..', '/'],
    ['/a', './c//d/', '/a/c/d'],
    ['/a', '/z/./y/../w', '/z/w'],
    ['/a', 'time\\:12', '/a/time:12'],
    ['/a', '', '/a'],
  ])('normalizes %s + %s to %s', (base, path, expected) => {
    expect(normalizePath(base, path)).toBe(expected);
  });

  it('takes paths apart and puts them together', () => {
    expect(parentOf('/a/b/c')).toBe('/a/b');
    expect(parentOf('/a')).toBe('/');
    expect(parentOf('/')).toBe('/');
    expect(baseName('/a/b.txt')).toBe('b.txt');
    expect(joinPath('/', 'x')).toBe('/x');
    expect(joinPath('/a', 'x')).toBe('/a/x');
  });
});
