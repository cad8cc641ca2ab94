import type { RouteParsedInput } from '@panx/contract';
import { parseJson } from '../../lib/json.js';
import type { Caller } from '../auth/caller.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';
import type { AccessService } from '../projects/access.service.js';
import { assertUserCopyAllowed } from '../projects/copy-rules.js';

type NewRecordInput = RouteParsedInput<'record/new'>;

/** Records: creation (optionally closed at once, or initialised from another record) and close. */
export class RecordsService {
  constructor(
    private readonly objects: DataObjectsService,
    private readonly access: AccessService,
  ) {}

  async create(caller: Caller, input: NewRecordInput, now: number): Promise<{ id: string }> {
    let effective: NewRecordInput = input;
    if (input.initializeFrom) {
      // The source record's metadata, with whatever this call gives explicitly taking precedence.
      const { row, access: source } = await this.objects.resolve(caller, input.initializeFrom.id, input.initializeFrom.project, 'record');
      // Initialising copies the source's metadata, so the rules for copying data out of its project apply.
      const target = await this.access.require(caller, input.project, 'UPLOAD', 'Creating data');
      if (target.project.id !== source.project.id) assertUserCopyAllowed(source.project, target.project);
      const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as NewRecordInput;
      effective = {
        types: parseJson<string[]>(row.types, []),
        tags: parseJson<string[]>(row.tags, []),
        properties: parseJson<Record<string, string>>(row.properties, {}),
        details: parseJson<unknown>(row.details, {}),
        hidden: row.hidden === 1,
        ...given,
      };
    }
    return this.objects.create(caller, effective, { cls: 'record', state: input.close ? 'closed' : 'open' }, now);
  }

  close(caller: Caller, id: string, now: number): Promise<{ id: string }> {
    return this.objects.closeRecord(caller, id, now);
  }
}
