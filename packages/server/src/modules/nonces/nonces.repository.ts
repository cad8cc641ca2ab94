import type { NoncesTable } from '../../db/schema.js';
import type { Executor } from '../../db/stores.js';

type NonceKey = Pick<NoncesTable, 'route' | 'nonce' | 'callerId'>;

export class NoncesRepository {
  constructor(private readonly db: Executor) {}

  find(key: NonceKey): Promise<NoncesTable | undefined> {
    return this.db
      .selectFrom('nonces')
      .selectAll()
      .where('route', '=', key.route)
      .where('nonce', '=', key.nonce)
      .where('callerId', '=', key.callerId)
      .executeTakeFirst();
  }

  /** Claims the nonce (with an empty response, meaning "in progress"); false when someone holds it already. */
  async reserve(row: NoncesTable): Promise<boolean> {
    const result = await this.db
      .insertInto('nonces')
      .values(row)
      .onConflict((oc) => oc.columns(['route', 'nonce', 'callerId']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async complete(key: NonceKey, response: string): Promise<void> {
    await this.db
      .updateTable('nonces')
      .set({ response })
      .where('route', '=', key.route)
      .where('nonce', '=', key.nonce)
      .where('callerId', '=', key.callerId)
      .execute();
  }

  async release(key: NonceKey): Promise<void> {
    await this.db.deleteFrom('nonces').where('route', '=', key.route).where('nonce', '=', key.nonce).where('callerId', '=', key.callerId).execute();
  }

  async deleteOlderThan(before: number): Promise<void> {
    await this.db.deleteFrom('nonces').where('created', '<', before).execute();
  }
}
