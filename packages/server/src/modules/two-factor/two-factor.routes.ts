import type { HandlerTable } from '../../http/handler.js';
import type { TwoFactorService } from './two-factor.service.js';

export function twoFactorHandlers(
  twoFactor: TwoFactorService,
): HandlerTable<
  | 'system/describeTwoFactor'
  | 'system/startTwoFactorEnrolment'
  | 'system/confirmTwoFactorEnrolment'
  | 'system/disableTwoFactor'
  | 'system/newTwoFactorBackupCodes'
  | 'system/setTwoFactorRequirement'
> {
  return {
    'system/describeTwoFactor': (ctx) => twoFactor.describe(ctx.caller),
    'system/startTwoFactorEnrolment': (ctx, input) => twoFactor.start(ctx.caller, input, ctx.now),
    'system/confirmTwoFactorEnrolment': (ctx, input) => twoFactor.confirm(ctx.caller, input, ctx.now),
    'system/disableTwoFactor': async (ctx, input) => {
      await twoFactor.disable(ctx.caller, input, ctx.now);
      return {};
    },
    'system/newTwoFactorBackupCodes': async (ctx, input) => ({ backupCodes: await twoFactor.newBackupCodes(ctx.caller, input.code, ctx.now) }),
    'system/setTwoFactorRequirement': (ctx, input) => twoFactor.setRequirement(ctx.caller, input, ctx.now),
  };
}
