import { createHash } from 'node:crypto';
import { NONCE_TTL_MS } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { invalidInput } from '../../errors.js';

/**
 * dxpy retries creating calls with the same `nonce`; the first answer is remembered for an hour and
 * given again, so a retry never creates a duplicate. The same nonce with another body is an error.
 */
export class NoncesService {
  private lastSweep = 0;

  constructor(private readonly stores: Stores) {}

  async once<T>(route: string, callerId: string, nonce: string, body: unknown, now: number, work: () => Promise<T>): Promise<T> {
    const bodyHash = createHash('sha256')
      .update(JSON.stringify(body ?? {}))
      .digest('hex');
    const seen = await this.stores.nonces.find(route, nonce, callerId);
    if (seen && seen.created > now - NONCE_TTL_MS) {
      if (seen.bodyHash !== bodyHash) throw invalidInput(`The nonce "${nonce}" was already used for a different ${route} request`);
      return JSON.parse(seen.response) as T;
    }
    const response = await work();
    if (now - this.lastSweep > 60_000) {
      this.lastSweep = now;
      await this.stores.nonces.deleteOlderThan(now - NONCE_TTL_MS);
    }
    if (!seen) await this.stores.nonces.insert({ route, nonce, callerId, bodyHash, response: JSON.stringify(response), created: now });
    return response;
  }
}
