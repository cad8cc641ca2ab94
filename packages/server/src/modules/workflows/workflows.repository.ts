import type { Executor } from '../../db/stores.js';

/** The SQL of workflows that the objects repository has no use case for: edits under optimistic locking. */
export class WorkflowsRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Replaces an open workflow's content only if it still is `expected` (compare and set): of two
   * edits made from the same editVersion, exactly one wins, on any number of servers.
   */
  async replaceContent(id: string, expected: string, next: string): Promise<boolean> {
    const result = await this.db
      .updateTable('objects')
      .set({ content: next })
      .where('id', '=', id)
      .where('class', '=', 'workflow')
      .where('state', '=', 'open')
      .where('content', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
