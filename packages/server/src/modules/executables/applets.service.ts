import type { RouteParsedInput, RunSpec } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { ApiError, invalidInput, notFound } from '../../errors.js';
import { parseJson } from '../../lib/json.js';
import type { Caller } from '../auth/caller.js';
import type { DataObjectsService } from '../data-objects/data-objects.service.js';
import type { InstanceTypes } from '../jobs/instance-types.js';
import type { AccessService } from '../projects/access.service.js';
import { buildExecutableSpec, bundledFileOf, type Executable, type ExecutableSpec } from './executable-spec.js';

/** Applets: data objects of class applet whose content is the processed dxapp.json (reference §4.4, §8). */
export class AppletsService {
  constructor(
    private readonly stores: Stores,
    private readonly access: AccessService,
    private readonly objects: DataObjectsService,
    private readonly instanceTypes: InstanceTypes,
  ) {}

  async create(caller: Caller, input: RouteParsedInput<'applet/new'>, now: number): Promise<{ id: string }> {
    const { project } = await this.access.require(caller, input.project, 'UPLOAD', 'Creating an applet');
    const spec = buildExecutableSpec(input as Record<string, unknown> & { runSpec: RunSpec }, this.instanceTypes, project.region);
    for (const [index, depend] of (spec.runSpec.bundledDepends ?? []).entries()) {
      const file = bundledFileOf(depend);
      if (!file) continue;
      try {
        const { row } = await this.objects.resolve(caller, file.id, file.project, 'file');
        if (row.state !== 'closed') throw invalidInput(`runSpec.bundledDepends[${index}]: ${file.id} is ${row.state}; bundled resources must be closed files`);
      } catch (error) {
        if (error instanceof ApiError && error.type !== 'InvalidInput') {
          throw invalidInput(`runSpec.bundledDepends[${index}]: ${file.id} cannot be read: ${error.message}`);
        }
        throw error;
      }
    }
    return this.objects.create(
      caller,
      {
        project: input.project,
        name: input.name,
        folder: input.folder,
        parents: input.parents,
        hidden: input.hidden,
        tags: input.tags,
        types: input.types,
        properties: input.properties,
        details: input.details,
      },
      { cls: 'applet', state: 'closed', content: spec as unknown as Record<string, unknown> },
      now,
    );
  }

  /** The whole spec, code included (`applet-xxxx/get`). */
  async get(caller: Caller, id: string, input: RouteParsedInput<'applet-xxxx/get'>): Promise<{ id: string } & Record<string, unknown>> {
    const { row } = await this.objects.resolve(caller, id, input.project, 'applet');
    const spec = parseJson<ExecutableSpec>(row.content, {} as ExecutableSpec);
    return { ...spec, id, class: 'applet', name: row.name, project: row.projectId, folder: row.folder, created: row.created, modified: row.modified };
  }

  /** The applet as the caller may run it (VIEW on a container holding it). */
  async forRun(caller: Caller, id: string, projectHint?: string): Promise<Executable> {
    let resolved: Awaited<ReturnType<DataObjectsService['resolve']>>;
    try {
      resolved = await this.objects.resolve(caller, id, projectHint, 'applet');
    } catch (error) {
      // The applet may live outside the project the job runs in.
      if (!projectHint || !(error instanceof ApiError) || error.type !== 'ResourceNotFound') throw error;
      resolved = await this.objects.resolve(caller, id, undefined, 'applet');
    }
    const { row } = resolved;
    return { id, kind: 'applet', name: row.name, spec: parseJson<ExecutableSpec>(row.content, {} as ExecutableSpec), container: row.projectId };
  }

  /** The applet's spec, for the engine (no permission check: the job was allowed to run it). */
  async load(id: string): Promise<ExecutableSpec> {
    const object = await this.stores.objects.findObject(id);
    if (object?.class !== 'applet') throw notFound(`The applet ${id} no longer exists`);
    return parseJson<ExecutableSpec>(object.content, {} as ExecutableSpec);
  }
}
