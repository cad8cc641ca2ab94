import { DEFAULT_CURRENCY, DEFAULT_REGION, type RouteOutput, type RouteParsedInput } from '@panx/contract';
import { invalidInput } from '../../errors.js';
import type { Caller } from '../auth/caller.js';
import { projectSettings } from '../projects/project-describe.js';
import type { AccessService } from '../projects/access.service.js';
import type { InstanceTypes } from './instance-types.js';

type Input = RouteParsedInput<'system/describeInstanceTypes'>;
type Output = RouteOutput<'system/describeInstanceTypes'>;

/**
 * `system/describeInstanceTypes` (Panx extension): the configured catalogue of a region, with prices,
 * sorted by cores, memory and name. With `project`, that project's region and default type (VIEW needed).
 */
export async function describeInstanceTypes(instanceTypes: InstanceTypes, access: AccessService, caller: Caller, input: Input): Promise<Output> {
  let region = input.region ?? DEFAULT_REGION;
  let projectDefault: string | undefined;
  if (input.project) {
    const { project } = await access.require(caller, input.project, 'VIEW', 'Describing the instance types of a project');
    region = project.region;
    projectDefault = projectSettings(project).defaultInstanceType ?? undefined;
  }
  const types = instanceTypes.list(region);
  if (types.length === 0) throw invalidInput(`"region": no instance types are configured for the region "${region}"`, { field: 'region' });
  types.sort((a, b) => a.cores - b.cores || a.memoryMB - b.memoryMB || a.name.localeCompare(b.name));
  return {
    region,
    currency: DEFAULT_CURRENCY.code,
    defaultInstanceType: instanceTypes.defaultFor(region, projectDefault),
    instanceTypes: types.map(({ name, cores, memoryMB, diskGB, pricePerHour }) => ({ name, cores, memoryMB, diskGB, pricePerHour })),
  };
}
