import { createHash } from 'node:crypto';
import { NONCE_TTL_MS } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidInput } from '../../errors.js';

/** How long a retry waits for the first request with its nonce to finish before giving up. */
const WAIT_FOR_FIRST_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * dxpy retries creating calls with the same `nonce`; the first answer is remembered for an hour and
 * given again, so a retry never creates a duplicate. The same nonce with another body is an error.
 * The nonce is reserved before the work runs, so concurrent retries wait for the first one's answer.
 */
export class NoncesService {
  private lastSweep = 0;

  constructor(private readonly stores: Stores) {}

  async once<T>(route: string, callerId: string, nonce: string, body: unknown, now: number, work: () => Promise<T>): Promise<T> {
    const bodyHash = createHash('sha256')
      .update(JSON.stringify(body ?? {}))
      .digest('hex');
    const key = { route, nonce, callerId };
    if (now - this.lastSweep > 60_000) {
      this.lastSweep = now;
      await this.stores.nonces.deleteOlderThan(now - NONCE_TTL_MS);
    }
    while (!(await this.stores.nonces.reserve({ ...key, bodyHash, response: '', created: now }))) {
      const answer = await this.answerOf<T>(key, bodyHash);
      if (answer.done) return answer.response;
      // The first request failed and released the nonce: this one does the work instead.
    }
    let response: T;
    try {
      response = await work();
    } catch (error) {
      // A failed first attempt leaves nothing behind: the retry runs the work afresh.
      await this.stores.nonces.release(key);
      throw error;
    }
    await this.stores.nonces.complete(key, JSON.stringify(response));
    return response;
  }

  /** The first request's answer once it has one; `done: false` when that request failed and let the nonce go. */
  private async answerOf<T>(key: { route: string; nonce: string; callerId: string }, bodyHash: string): Promise<{ done: true; response: T } | { done: false }> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (let delay = 20; ; delay = Math.min(delay * 2, 500)) {
      const seen = await this.stores.nonces.find(key);
      if (!seen) return { done: false };
      if (seen.bodyHash !== bodyHash) throw invalidInput(`The nonce "${key.nonce}" was already used for a different ${key.route} request`);
      if (seen.response) return { done: true, response: JSON.parse(seen.response) as T };
      if (Date.now() > deadline) throw new ApiError('InvalidState', `The first ${key.route} request with nonce "${key.nonce}" is still running`);
      await sleep(delay);
    }
  }
}
