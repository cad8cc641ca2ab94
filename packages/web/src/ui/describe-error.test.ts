import { PanxApiError } from '@panx/client';
import { describe, expect, it } from 'vitest';
import { describeError } from './describe-error';

describe('describeError', () => {
  it.each<[unknown, string]>([
    [new PanxApiError('InvalidInput', 'name is required', 400), 'name is required'],
    [new PanxApiError('PermissionDenied', 'not yours', 403), 'Permission denied: not yours'],
    [new PanxApiError('ResourceNotFound', 'no such project', 404), 'Not found: no such project'],
    [new PanxApiError('InternalError', '', 500), 'The server answered 500 (InternalError)'],
    [new TypeError('Failed to fetch'), 'The server could not be reached. Check your connection and try again.'],
    [new Error('boom'), 'boom'],
    ['text', 'text'],
  ])('%s → %s', (error, text) => {
    expect(describeError(error)).toBe(text);
  });
});
