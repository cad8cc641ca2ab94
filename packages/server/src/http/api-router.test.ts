import { describe, expect, it } from 'vitest';
import { routeKeyOf } from './api-router.js';

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
