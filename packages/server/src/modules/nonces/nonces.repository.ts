import type { Executor } from '../../db/stores.js';
import type { NoncesTable } from '../../db/schema.js';

export class NoncesRepository {
  constructor(private readonly db: Executor) {}

  find(route: string, nonce: string, callerId: string): Promise<NoncesTable | undefined> {
    return this.db.selectFrom('nonces').selectAll().where('route', '=', route).where('nonce', '=', nonce).where('callerId', '=', callerId).executeTakeFirst();
  }

  async insert(row: NoncesTable): Promise<void> {
    await this.db.insertInto('nonces').values(row).execute();
  }

  async deleteOlderThan(before: number): Promise<void> {
    await this.db.deleteFrom('nonces').where('created', '<', before).execute();
  }
}
