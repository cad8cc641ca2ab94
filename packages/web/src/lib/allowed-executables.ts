/**
 * A project's `allowedExecutables` rule (SPEC §6), the one copy the web app uses (the tool library,
 * the tool selector, tool details and the runner), written as the server applies it
 * (packages/server/src/modules/executables/executable-spec.ts `isExecutableAllowed`): no list (null or
 * absent) allows everything; otherwise the executable's id is listed (`applet-…`, `workflow-…`, an app
 * version's `app-…` id) or its class and name (`applet-<name>`, `workflow-<name>`, `app-<name>` for every
 * version of an app, `app-<name>/<version>` for one).
 */

export type ExecutableClass = 'app' | 'applet' | 'workflow';

export interface ExecutableIdentity {
  id: string;
  class: ExecutableClass;
  /** The app's name (`bwa_mem`, so that `app-bwa_mem` allows every version) or the object's name. */
  name?: string;
  /** Apps: the version number (`app-bwa_mem/1.0.0` allows that one). */
  version?: string;
}

export function isExecutableAllowed(allowed: readonly string[] | null | undefined, executable: ExecutableIdentity): boolean {
  if (!allowed) return true;
  if (allowed.includes(executable.id)) return true;
  if (!executable.name) return false;
  if (allowed.includes(`${executable.class}-${executable.name}`)) return true;
  return executable.class === 'app' && !!executable.version && allowed.includes(`app-${executable.name}/${executable.version}`);
}

/** The versions of the app `name` that the list allows, in the order given. */
export function allowedVersionsOf<V extends { id: string; version: string }>(
  allowed: readonly string[] | null | undefined,
  name: string,
  versions: readonly V[],
): V[] {
  return versions.filter((version) => isExecutableAllowed(allowed, { id: version.id, class: 'app', name, version: version.version }));
}
