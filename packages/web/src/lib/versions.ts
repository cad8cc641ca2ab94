/**
 * App version order, one copy for the tool library, the tool selector and the runner, so that "newest
 * first" and hence "the first allowed version" (SPEC §6) are the same everywhere.
 */

/** Semantic-version order (`1.10.0` after `1.9.2`; a pre-release before its release); unparsable parts compare as text. */
export function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split(/[-+]/, 2);
  const [coreB = '', preB] = b.split(/[-+]/, 2);
  const partsA = coreA.split('.');
  const partsB = coreB.split('.');
  for (let i = 0; i < Math.max(partsA.length, partsB.length); i++) {
    const x = partsA[i] ?? '0';
    const y = partsB[i] ?? '0';
    const nx = Number(x);
    const ny = Number(y);
    const diff = Number.isInteger(nx) && Number.isInteger(ny) ? nx - ny : x.localeCompare(y);
    if (diff !== 0) return Math.sign(diff);
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA.localeCompare(preB);
}

/** App versions newest first: by semantic version, then by creation time. */
export function newestFirst<V extends { version: string; created: number }>(versions: readonly V[]): V[] {
  return [...versions].sort((a, b) => compareVersions(b.version, a.version) || b.created - a.created);
}
