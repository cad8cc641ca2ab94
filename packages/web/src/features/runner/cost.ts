/**
 * Instance types and the cost estimate of the runner: the type each entry point (or stage) runs on,
 * its price per hour from `system/describeInstanceTypes`, and an estimate for an expected duration.
 */

export interface InstanceTypeInfo {
  name: string;
  cores: number;
  memoryMB: number;
  diskGB: number;
  pricePerHour: number;
}

/** One line of the instance-type section: an entry point of an app or applet, or a stage of a workflow. */
export interface ComputeEntry {
  /** `*`, `main`, another entry point, or a stage ID. */
  key: string;
  label: string;
  /** The executable's own choice (its runSpec.systemRequirements), else the project's default. */
  defaultType: string;
}

/**
 * The entry points an executable declares instance types for (runSpec.systemRequirements keys), `*`
 * when it declares none; the type of each is its own, else `*`'s, else the project's default.
 */
export function entryPoints(systemRequirements: unknown, projectDefault: string): ComputeEntry[] {
  const requirements = typeof systemRequirements === 'object' && systemRequirements !== null ? (systemRequirements as Record<string, unknown>) : {};
  const typeOf = (key: string): string | undefined => {
    const entry = requirements[key];
    return typeof entry === 'object' && entry !== null && typeof (entry as { instanceType?: unknown }).instanceType === 'string'
      ? (entry as { instanceType: string }).instanceType
      : undefined;
  };
  const keys = Object.keys(requirements).filter((key) => typeOf(key));
  if (keys.length === 0) return [{ key: '*', label: 'All entry points', defaultType: projectDefault }];
  const star = typeOf('*');
  return keys
    .sort((a, b) => (a === '*' ? -1 : b === '*' ? 1 : a.localeCompare(b)))
    .map((key) => ({ key, label: key === '*' ? 'All entry points' : `Entry point "${key}"`, defaultType: typeOf(key) ?? star ?? projectDefault }));
}

/**
 * The estimate: every entry's price per hour (an app's main entry point and a workflow's stages run
 * one after the other, so they add up) for `hours`. Unknown types count as unknown, not as free.
 */
export function estimateCost(
  chosen: readonly string[],
  catalogue: readonly InstanceTypeInfo[],
  hours: number,
): { perHour: number; total: number; unknown: string[] } {
  const unknown: string[] = [];
  let perHour = 0;
  for (const name of chosen) {
    const type = catalogue.find((candidate) => candidate.name === name);
    if (type) perHour += type.pricePerHour;
    else unknown.push(name);
  }
  const safeHours = Number.isFinite(hours) && hours > 0 ? hours : 0;
  return { perHour, total: perHour * safeHours, unknown };
}

/** `$0.133` for prices per hour (three decimals below a dollar), `$1.20` otherwise. */
export function formatPrice(usd: number): string {
  if (usd > 0 && usd < 1) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

/** `mem2_ssd1_x2 · 2 cores · 7.5 GiB · 32 GB disk · $0.133/h` */
export function describeInstanceType(type: InstanceTypeInfo): string {
  const gib = type.memoryMB / 1024;
  return `${type.name} · ${type.cores} ${type.cores === 1 ? 'core' : 'cores'} · ${Number.isInteger(gib) ? gib : gib.toFixed(1)} GiB · ${type.diskGB} GB disk · ${formatPrice(type.pricePerHour)}/h`;
}

/** A cost limit as typed: empty is none; otherwise a positive number of dollars. */
export function parseCostLimit(text: string): { ok: true; value: number | undefined } | { ok: false; error: string } {
  const trimmed = text.trim().replace(/^\$/, '');
  if (trimmed === '') return { ok: true, value: undefined };
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value <= 0) return { ok: false, error: 'The cost limit must be a positive amount of dollars' };
  return { ok: true, value };
}

/** Tags as typed, one per entry, trimmed, without empties or repeats. */
export function cleanTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim()).filter(Boolean))];
}
