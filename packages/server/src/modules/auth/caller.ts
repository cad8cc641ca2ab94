import type { PermissionLevel } from '@panx/contract';

/** Who is calling, as established from the bearer token. */
export interface Caller {
  userId: string;
  tokenId: string;
  tokenKind: 'session' | 'api' | 'job';
  isAdmin: boolean;
  /** A scoped token only reaches these projects, each at most at its level. */
  scope: { projects: Record<string, PermissionLevel> } | null;
}

export interface CallContext {
  caller: Caller;
  now: number;
}
