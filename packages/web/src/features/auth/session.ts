import { useSyncExternalStore } from 'react';
import { type KeyValueStorage, type SessionState, SessionStore } from './session-store';

function browserStorage(): KeyValueStorage {
  try {
    const storage = globalThis.localStorage;
    storage.getItem('panx.probe');
    return storage;
  } catch {
    // storage disabled: the session lasts as long as the page
    const memory = new Map<string, string>();
    return {
      getItem: (key) => memory.get(key) ?? null,
      setItem: (key, value) => void memory.set(key, value),
      removeItem: (key) => void memory.delete(key),
    };
  }
}

/** The one session store of the app. */
export const sessionStore = new SessionStore(browserStorage());

export function useSession(): SessionState {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.getSnapshot, sessionStore.getSnapshot);
}
