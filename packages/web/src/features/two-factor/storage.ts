import type { KeyValueStorage } from '../auth/session-store';

/** This tab's session storage (the pending enrolment must not outlive the tab), or memory when disabled. */
let fallback: Map<string, string> | undefined;
export function tabStorage(): KeyValueStorage {
  try {
    const storage = globalThis.sessionStorage;
    storage.getItem('panx.probe');
    return storage;
  } catch {
    fallback ??= new Map();
    const memory = fallback;
    return {
      getItem: (key) => memory.get(key) ?? null,
      setItem: (key, value) => void memory.set(key, value),
      removeItem: (key) => void memory.delete(key),
    };
  }
}
