import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, endpoints, hashIdPattern, ID_ALPHABET, isHashId, type RouteSpec } from '../src/index.js';

describe('the endpoint table', () => {
  const routes = Object.entries(endpoints) as [string, RouteSpec][];

  it('keys every route by its own path', () => {
    for (const [key, route] of routes) expect(route.path).toBe(key);
  });

  it('gives every route a summary, and says why for every Panx extension', () => {
    for (const [, route] of routes) {
      expect(route.summary.length).toBeGreaterThan(10);
      if (route.extension !== undefined) expect(route.extension.length).toBeGreaterThan(10);
    }
  });

  it('generates one OpenAPI operation per route', () => {
    const doc = buildOpenApiDocument('http://localhost:8080');
    expect(Object.keys(doc.paths as object)).toHaveLength(routes.length);
  });
});

describe('ids', () => {
  it('uses the 32-character DNAnexus alphabet', () => {
    expect(new Set(ID_ALPHABET).size).toBe(32);
  });

  it('recognizes hash ids by class', () => {
    expect(isHashId('file-0123456789BFGJKPQVXYZbfg')).toBe(true);
    expect(isHashId('file-0123456789BFGJKPQVXYZbf')).toBe(false);
    expect(isHashId('user-alice')).toBe(false);
    expect(hashIdPattern('project').test('project-0123456789BFGJKPQVXYZbfg')).toBe(true);
  });
});
