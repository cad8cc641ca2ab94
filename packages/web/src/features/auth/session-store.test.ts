import { describe, expect, it, vi } from 'vitest';
import { handleOf, LOGGING_OUT_KEY, SESSION_KEY, SessionStore } from './session-store';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    removeItem: (key: string) => void data.delete(key),
  };
}

const session = { token: 'tok', userId: 'user-alice', tokenId: 'token-1' };

describe('SessionStore', () => {
  it('restores the stored session at start-up', () => {
    const store = new SessionStore(memoryStorage({ [SESSION_KEY]: JSON.stringify(session) }));
    expect(store.getSnapshot().session).toEqual(session);
  });

  it('does not restore a session when the previous page was logging out', () => {
    const storage = memoryStorage({ [SESSION_KEY]: JSON.stringify(session), [LOGGING_OUT_KEY]: '1' });
    const store = new SessionStore(storage);
    expect(store.getSnapshot().session).toBeNull();
    expect(storage.data.size).toBe(0);
  });

  it.each(['not json', '{"token":"t"}', '{"token":"","userId":"user-a"}', '{"token":"t","userId":"org-a"}', 'null'])(
    'ignores a broken stored value %j',
    (text) => {
      expect(new SessionStore(memoryStorage({ [SESSION_KEY]: text })).getSnapshot().session).toBeNull();
    },
  );

  it('goes through logout started → succeeded and forgets the token', () => {
    const storage = memoryStorage();
    const store = new SessionStore(storage);
    const listener = vi.fn();
    store.subscribe(listener);
    store.signIn(session);
    expect(JSON.parse(storage.data.get(SESSION_KEY) ?? '')).toEqual(session);
    store.logoutStarted();
    expect(store.getSnapshot().logout).toBe('started');
    expect(storage.data.get(LOGGING_OUT_KEY)).toBe('1');
    store.logoutFinished(true);
    expect(store.getSnapshot()).toEqual({ session: null, logout: 'succeeded', endReason: 'signed-out' });
    expect(storage.data.size).toBe(0);
    expect(listener).toHaveBeenCalledTimes(3);
  });

  it('forgets the token locally even when the server could not revoke it', () => {
    const store = new SessionStore(memoryStorage());
    store.signIn(session);
    store.logoutStarted();
    store.logoutFinished(false);
    expect(store.getSnapshot()).toMatchObject({ session: null, logout: 'failed' });
  });

  it('ends an expired session with its reason', () => {
    const store = new SessionStore(memoryStorage());
    store.signIn(session);
    store.end('expired');
    expect(store.getSnapshot()).toMatchObject({ session: null, endReason: 'expired' });
  });

  it('follows sign-in and sign-out in another tab', () => {
    const storage = memoryStorage();
    const store = new SessionStore(storage);
    storage.setItem(SESSION_KEY, JSON.stringify(session));
    store.syncFromStorage();
    expect(store.getSnapshot().session?.token).toBe('tok');
    storage.removeItem(SESSION_KEY);
    store.syncFromStorage();
    expect(store.getSnapshot().session).toBeNull();
  });

  it('derives the handle from the user id', () => {
    expect(handleOf('user-alice')).toBe('alice');
  });
});
