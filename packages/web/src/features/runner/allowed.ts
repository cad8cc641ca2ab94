/**
 * The allowed-executables rule of SPEC §6, as the server applies it: a project whose
 * `allowedExecutables` is set runs only the tools listed there, by ID (`applet-…`, `workflow-…`, an app
 * version's `app-…` ID) or by class and name (`applet-<name>`, `workflow-<name>`, `app-<name>` for
 * every version of an app, `app-<name>/<version>` for one). For an app only the listed versions are
 * offered; when the chosen version is not one of them, the first allowed one is selected. The rule
 * itself is shared with the tools feature (lib/allowed-executables.ts).
 */
import { isExecutableAllowed } from '../../lib/allowed-executables';

export interface AppVersion {
  id: string;
  name: string;
  version: string;
}

/** The versions of an app the project allows, in the order given (newest first is the caller's choice). */
export function allowedAppVersions(allowed: readonly string[] | null | undefined, versions: readonly AppVersion[]): AppVersion[] {
  return versions.filter((version) => isExecutableAllowed(allowed, { id: version.id, name: version.name, version: version.version, class: 'app' }));
}

/**
 * The version to run: the chosen one when it is allowed, else the first allowed one; undefined when
 * no version is allowed.
 */
export function selectAppVersion(
  allowed: readonly string[] | null | undefined,
  versions: readonly AppVersion[],
  chosenId: string | undefined,
): AppVersion | undefined {
  const offered = allowedAppVersions(allowed, versions);
  return offered.find((version) => version.id === chosenId) ?? offered[0];
}

/** A sentence for a tool the project does not allow. */
export function notAllowedMessage(projectName: string, allowed: readonly string[]): string {
  return `The project "${projectName}" only allows ${allowed.length === 0 ? 'no tools' : `these tools: ${allowed.join(', ')}`}. Choose another project or ask its administrator.`;
}
