import { describe, expect, it } from 'vitest';
import { assertStorableJson, routeKeyOf } from './api-router.js';

describe('routeKeyOf', () => {
  it.each([
    ['system', 'whoami', 'system/whoami', ''],
    ['file', 'new', 'file/new', ''],
    ['project-0123456789BFGJKPQVXYZbfg', 'describe', 'project-xxxx/describe', 'project-0123456789BFGJKPQVXYZbfg'],
    ['user-alice', 'describe', 'user-xxxx/describe', 'user-alice'],
    ['org-acme_lab', 'findMembers', 'org-xxxx/findMembers', 'org-acme_lab'],
  ])('%s/%s → %s', (subject, method, key, id) => {
    expect(routeKeyOf(subject, method)).toEqual({ key, id });
  });

  it('rejects malformed hash ids with InvalidInput', () => {
    expect(() => routeKeyOf('file-123', 'describe')).toThrow(/not a valid ID/);
  });
});

describe('assertStorableJson', () => {
  it('accepts any well-formed text, surrogate pairs (emoji) included', () => {
    expect(() => assertStorableJson({ name: 'sample 😀 é', tags: ['𝔸'], details: { ключ: 'значение' } })).not.toThrow();
  });

  it('refuses NUL characters and lone surrogates, in values and in keys, with InvalidInput', () => {
    for (const bad of [{ name: 'a\u0000b' }, { filename: '\ud800' }, { name: 'x\udc00' }, { details: { '\ud83d': 1 } }, ['ok', ['\udbff!']]]) {
      expect(() => assertStorableJson(bad)).toThrow(expect.objectContaining({ type: 'InvalidInput' }));
    }
  });
});
