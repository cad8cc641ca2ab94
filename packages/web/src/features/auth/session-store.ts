/**
 * Client session state of SPEC §3/§4: the stored user and bearer token (local storage, as SPEC §7's
 * getUIConfig call expects), restored at start-up unless a logout was under way, and the logout
 * progress (started → succeeded | failed). A tiny external store for `useSyncExternalStore`.
 */

export interface StoredSession {
  token: string;
  userId: string;
  /** The token's id (`token-…`), to mark "this session" in the sessions list. */
  tokenId?: string;
}

export type LogoutStatus = 'idle' | 'started' | 'succeeded' | 'failed';
/** Why the last session ended: shown on the sign-in page. */
export type EndReason = 'expired' | 'signed-out' | 'password-changed';

export interface SessionState {
  session: StoredSession | null;
  logout: LogoutStatus;
  endReason: EndReason | null;
}

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export const SESSION_KEY = 'panx.session';
export const LOGGING_OUT_KEY = 'panx.loggingOut';

function parseSession(text: string | null): StoredSession | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { token, userId, tokenId } = value as Record<string, unknown>;
    if (typeof token !== 'string' || !token || typeof userId !== 'string' || !userId.startsWith('user-')) return null;
    return typeof tokenId === 'string' ? { token, userId, tokenId } : { token, userId };
  } catch {
    return null;
  }
}

export class SessionStore {
  private state: SessionState;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly storage: KeyValueStorage) {
    this.state = { session: this.restore(), logout: 'idle', endReason: null };
  }

  /** At start-up: the stored session, unless the previous page was in the middle of logging out. */
  private restore(): StoredSession | null {
    if (this.storage.getItem(LOGGING_OUT_KEY)) {
      this.storage.removeItem(LOGGING_OUT_KEY);
      this.storage.removeItem(SESSION_KEY);
      return null;
    }
    return parseSession(this.storage.getItem(SESSION_KEY));
  }

  getSnapshot = (): SessionState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(next: Partial<SessionState>): void {
    this.state = { ...this.state, ...next };
    for (const listener of this.listeners) listener();
  }

  signIn(session: StoredSession): void {
    this.storage.removeItem(LOGGING_OUT_KEY);
    this.storage.setItem(SESSION_KEY, JSON.stringify(session));
    this.set({ session, logout: 'idle', endReason: null });
  }

  /** The session is over without a logout (expired, revoked elsewhere, password changed). */
  end(reason: EndReason): void {
    if (!this.state.session) return;
    this.storage.removeItem(SESSION_KEY);
    this.set({ session: null, endReason: reason });
  }

  logoutStarted(): void {
    this.storage.setItem(LOGGING_OUT_KEY, '1');
    this.set({ logout: 'started' });
  }

  /** Whether the server revoked the token or not, this browser forgets it. */
  logoutFinished(ok: boolean): void {
    this.storage.removeItem(SESSION_KEY);
    this.storage.removeItem(LOGGING_OUT_KEY);
    this.set({ session: null, logout: ok ? 'succeeded' : 'failed', endReason: 'signed-out' });
  }

  /** Another tab signed in or out: follow it. */
  syncFromStorage(): void {
    const stored = parseSession(this.storage.getItem(SESSION_KEY));
    const current = this.state.session;
    if (stored?.token === current?.token) return;
    this.set(stored ? { session: stored, endReason: null } : { session: null, endReason: 'signed-out' });
  }
}

/** `user-alice` → `alice`. */
export function handleOf(userId: string): string {
  return userId.startsWith('user-') ? userId.slice('user-'.length) : userId;
}
