import type { PermissionLevel } from '@panx/contract';
import { UsageError } from './errors.js';

/**
 * The contract's runtime values, loaded on first use. Importing @panx/contract builds the zod schema of
 * every route, about 0.1 s of CPU that a command needing one constant should not pay at each start
 * (`import type` costs nothing and is used everywhere else).
 */
export function loadContract() {
  return import('@panx/contract');
}

/** A permission level in any case; `grantable` leaves out NONE (what invite and scoped tokens take). */
export async function parseLevel(value: string, options: { grantable?: boolean } = {}): Promise<PermissionLevel> {
  const { PERMISSION_LEVELS } = await loadContract();
  const allowed: readonly string[] = options.grantable ? PERMISSION_LEVELS.filter((level) => level !== 'NONE') : PERMISSION_LEVELS;
  const upper = value.toUpperCase();
  if (!allowed.includes(upper)) throw new UsageError(`"${value}" is not a permission level: use one of ${allowed.join(', ')}`);
  return upper as PermissionLevel;
}
