import { DEFAULT_INSTANCE_TYPE_BY_REGION, REGIONS } from '@panx/contract';
import type { InstanceTypeConfig } from '../../config.js';

export type InstanceType = InstanceTypeConfig & { name: string };

const GiB = 1024;

/**
 * The built-in catalogue, modelled on DNAnexus's AWS families: mem1 ≈ 2 GiB per core, mem2 ≈ 4 GiB,
 * mem3 ≈ 8 GiB; ssd1 small local SSD, hdd2 large disks. Prices are USD per hour, of the order of
 * on-demand cloud prices. Every region gets the same list unless the configuration says otherwise.
 */
const CATALOGUE: Record<string, InstanceTypeConfig> = {
  mem1_ssd1_v2_x2: { cores: 2, memoryMB: Math.round(3.8 * GiB), diskGB: 50, pricePerHour: 0.093 },
  mem1_ssd1_v2_x4: { cores: 4, memoryMB: Math.round(7.6 * GiB), diskGB: 100, pricePerHour: 0.186 },
  mem1_ssd1_v2_x8: { cores: 8, memoryMB: Math.round(15.2 * GiB), diskGB: 200, pricePerHour: 0.372 },
  mem1_ssd1_v2_x16: { cores: 16, memoryMB: Math.round(30.4 * GiB), diskGB: 400, pricePerHour: 0.744 },
  mem1_ssd1_x2: { cores: 2, memoryMB: Math.round(3.8 * GiB), diskGB: 32, pricePerHour: 0.1 },
  mem1_ssd1_x4: { cores: 4, memoryMB: Math.round(7.5 * GiB), diskGB: 80, pricePerHour: 0.2 },
  mem2_ssd1_x1: { cores: 1, memoryMB: Math.round(3.5 * GiB), diskGB: 16, pricePerHour: 0.067 },
  mem2_ssd1_x2: { cores: 2, memoryMB: Math.round(7.5 * GiB), diskGB: 32, pricePerHour: 0.133 },
  mem2_ssd1_x4: { cores: 4, memoryMB: 15 * GiB, diskGB: 80, pricePerHour: 0.266 },
  mem2_ssd1_x8: { cores: 8, memoryMB: 30 * GiB, diskGB: 160, pricePerHour: 0.532 },
  mem2_ssd1_v2_x2: { cores: 2, memoryMB: 8 * GiB, diskGB: 75, pricePerHour: 0.12 },
  mem2_ssd1_v2_x4: { cores: 4, memoryMB: 16 * GiB, diskGB: 150, pricePerHour: 0.24 },
  mem2_ssd1_v2_x8: { cores: 8, memoryMB: 32 * GiB, diskGB: 300, pricePerHour: 0.48 },
  mem2_hdd2_x1: { cores: 1, memoryMB: Math.round(3.75 * GiB), diskGB: 420, pricePerHour: 0.075 },
  mem2_hdd2_x2: { cores: 2, memoryMB: Math.round(7.5 * GiB), diskGB: 840, pricePerHour: 0.15 },
  mem2_hdd2_x4: { cores: 4, memoryMB: 15 * GiB, diskGB: 1680, pricePerHour: 0.3 },
  mem3_ssd1_x2: { cores: 2, memoryMB: 15 * GiB, diskGB: 32, pricePerHour: 0.2 },
  mem3_ssd1_x4: { cores: 4, memoryMB: 30 * GiB, diskGB: 80, pricePerHour: 0.4 },
  mem3_ssd1_v2_x2: { cores: 2, memoryMB: 16 * GiB, diskGB: 75, pricePerHour: 0.16 },
  mem3_ssd1_v2_x4: { cores: 4, memoryMB: 32 * GiB, diskGB: 150, pricePerHour: 0.32 },
  mem3_ssd1_v2_x8: { cores: 8, memoryMB: 64 * GiB, diskGB: 300, pricePerHour: 0.64 },
};

/** Instance types per region, and each region's default (SPEC §9). */
export class InstanceTypes {
  private readonly byRegion: Record<string, Record<string, InstanceTypeConfig>>;

  constructor(configured: Record<string, Record<string, InstanceTypeConfig>> | undefined) {
    this.byRegion = configured ?? Object.fromEntries(REGIONS.map((region) => [region, CATALOGUE]));
  }

  list(region: string): InstanceType[] {
    return Object.entries(this.byRegion[region] ?? {}).map(([name, type]) => ({ name, ...type }));
  }

  find(region: string, name: string): InstanceType | undefined {
    const type = this.byRegion[region]?.[name];
    return type ? { name, ...type } : undefined;
  }

  /** The project's default, else the region's (SPEC §9), else the region's smallest type. */
  defaultFor(region: string, projectDefault?: string): string {
    if (projectDefault && this.find(region, projectDefault)) return projectDefault;
    const regional = DEFAULT_INSTANCE_TYPE_BY_REGION[region];
    if (regional && this.find(region, regional)) return regional;
    const smallest = this.list(region).sort((a, b) => a.cores - b.cores || a.memoryMB - b.memoryMB)[0];
    return smallest?.name ?? 'mem2_hdd2_x2';
  }
}

/** USD for `ms` of running time at `pricePerHour`. */
export function priceOf(ms: number, pricePerHour: number): number {
  return (Math.max(0, ms) / 3_600_000) * pricePerHour;
}
