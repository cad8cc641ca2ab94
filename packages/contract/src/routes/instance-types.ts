import { z } from 'zod';
import { systemRoute } from '../route.js';

export const instanceTypeSchema = z.object({
  name: z.string(),
  cores: z.number(),
  memoryMB: z.number(),
  diskGB: z.number(),
  /** USD per hour while a job of this type runs. */
  pricePerHour: z.number(),
});
export type InstanceTypeDescription = z.infer<typeof instanceTypeSchema>;

export const instanceTypeRoutes = {
  'system/describeInstanceTypes': systemRoute('describeInstanceTypes', {
    summary: "The instance types of a region (or of a project's region) with cores, memory, disk and price per hour, and the default type",
    extension:
      'DNAnexus publishes its instance types and rate card outside the API (documentation and the billing pages); Panx answers its configured catalogue (engine.instanceTypes) so that the web runner can offer types with their prices and estimate a cost.',
    input: z
      .object({
        /** The project whose region and default instance type apply (the caller needs VIEW); wins over `region`. */
        project: z.string().optional(),
        /** A region such as `aws:us-east-1`; the default region when neither is given. */
        region: z.string().max(128).optional(),
      })
      .strict(),
    output: z.object({
      region: z.string(),
      currency: z.string(),
      /** The type a job gets when nothing asks for one: the project's default, else the region's. */
      defaultInstanceType: z.string(),
      instanceTypes: z.array(instanceTypeSchema),
    }),
  }),
};
