import type { RouteOutput, RouteParsedInput, RoutePath } from '@panx/contract';
import type { Caller } from '../modules/auth/caller.js';

/** Routes that answer without a token (the handler sees the caller when one is sent). */
export const PUBLIC_ROUTES = [
  'system/newAuthToken',
  'user/new',
  'system/getUIConfig',
  // Two-factor set-up of a user whose sign-in required it: they hold an enrolment token, not a session.
  'system/startTwoFactorEnrolment',
  'system/confirmTwoFactorEnrolment',
] as const;
export type PublicRoute = (typeof PUBLIC_ROUTES)[number];

export interface AuthedContext {
  caller: Caller;
  now: number;
}
export interface PublicContext {
  caller: Caller | undefined;
  now: number;
}

export type Handler<P extends RoutePath> = (
  ctx: P extends PublicRoute ? PublicContext : AuthedContext,
  input: RouteParsedInput<P>,
  id: string,
) => Promise<RouteOutput<P>>;

/** A module's handlers for some routes of the contract; the router checks that every route has exactly one. */
export type HandlerTable<K extends RoutePath> = { [P in K]: Handler<P> };
