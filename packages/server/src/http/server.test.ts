import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createHttpServer, isStorageFull } from './server.js';

describe('the HTTP error handler', () => {
  it('knows a full disk, quota or database by its code', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']) expect(isStorageFull(Object.assign(new Error('full'), { code }))).toBe(true);
    expect(isStorageFull(new Error('writing the part failed', { cause: Object.assign(new Error('full'), { code: 'ENOSPC' }) }))).toBe(true);
    for (const error of [new Error('other'), Object.assign(new Error('io'), { code: 'EIO' }), undefined, 'ENOSPC']) expect(isStorageFull(error)).toBe(false);
  });

  it('answers a full disk 503 ServiceUnavailable with Retry-After, and any other fault 500 InternalError', async () => {
    const app = createHttpServer(pino({ level: 'silent' }), 1024);
    app.get('/full', async () => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    app.get('/broken', async () => {
      throw new Error('a bug');
    });
    const full = await app.inject({ method: 'GET', url: '/full' });
    expect(full.statusCode).toBe(503);
    expect(full.headers['retry-after']).toBe('60');
    expect(full.json()).toEqual({ error: { type: 'ServiceUnavailable', message: "The server's storage is full: try again once space is freed" } });
    const broken = await app.inject({ method: 'GET', url: '/broken' });
    expect(broken.statusCode).toBe(500);
    expect(broken.json().error.type).toBe('InternalError');
    await app.close();
  });
});
