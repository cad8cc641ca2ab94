import { createStore } from '../lib/store';

export interface AppState {
  /** SPEC §8: a background task of the app failed; the shell shows the error view. */
  rootError: { message: string } | null;
  /** The community context (an org id); null is the platform's own, the default (SPEC §3). */
  community: string | null;
}

const COMMUNITY_KEY = 'panx.community';

function storedCommunity(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(COMMUNITY_KEY) ?? null;
  } catch {
    return null;
  }
}

export const appState = createStore<AppState>({ rootError: null, community: storedCommunity() });

export function setRootError(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  appState.set((state) => ({ ...state, rootError: { message } }));
}

export function setCommunity(orgId: string | null): void {
  try {
    if (orgId) globalThis.sessionStorage?.setItem(COMMUNITY_KEY, orgId);
    else globalThis.sessionStorage?.removeItem(COMMUNITY_KEY);
  } catch {
    // storage unavailable (private mode): keep it in memory only
  }
  appState.set((state) => (state.community === orgId ? state : { ...state, community: orgId }));
}
