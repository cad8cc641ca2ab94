import type { HandlerTable } from '../../http/handler.js';
import { invalidInput } from '../../errors.js';
import type { UsersService } from '../users/users.service.js';
import type { AuthService } from './auth.service.js';

export function authHandlers(
  auth: AuthService,
  users: UsersService,
): HandlerTable<'system/newAuthToken' | 'system/findAuthTokens' | 'system/destroyAuthToken' | 'system/heartbeat' | 'system/whoami' | 'system/getUserInfo'> {
  return {
    'system/newAuthToken': async (ctx, input) => {
      if (input.username !== undefined || input.password !== undefined) {
        if (!input.username || !input.password) throw invalidInput('Signing in needs both "username" and "password"');
        return auth.login({ username: input.username, password: input.password, otp: input.otp, securityLevel: input.securityLevel }, ctx.now);
      }
      if (!ctx.caller) throw invalidInput('Send "username" and "password" to sign in, or authenticate to create an API token');
      return auth.createApiToken(ctx.caller, input, ctx.now);
    },
    'system/findAuthTokens': async (ctx, input) => ({ results: await auth.list(ctx.caller, input, ctx.now) }),
    'system/destroyAuthToken': async (ctx, input) => {
      await auth.revoke(ctx.caller, input.tokenId);
      return {};
    },
    'system/heartbeat': (ctx) => auth.heartbeat(ctx.caller, ctx.now),
    'system/whoami': async (ctx) => ({ id: ctx.caller.userId }),
    'system/getUserInfo': async (ctx) => {
      const user = await users.requireUser(ctx.caller.userId);
      return { username: user.handle, user_id: user.id };
    },
  };
}
