/**
 * The allowed-executables rule of SPEC §6, as the server applies it: a project whose
 * `allowedExecutables` is set runs only the tools listed there, by ID (`applet-…`, `workflow-…`, an app
 * version's `app-…` ID) or by class and name (`applet-<name>`, `workflow-<name>`, `app-<name>` for
 * every version of an app, `app-<name>/<version>` for one). For an app only the listed versions are
 * offered; when the chosen version is not one of them, the first allowed one is selected.
 */

export interface AppVersion {
  id: string;
  name: string;
  version: string;
}

export interface ToolIdentity {
  id: string;
  /** The app's name (`bwa_mem`, so that `app-bwa_mem` allows every version) or the object's name. */
  name?: string;
  /** Apps: the version number (`app-bwa_mem/1.0.0` allows that one). */
  version?: string;
  class: 'app' | 'applet' | 'workflow';
}

/** No list (null or undefined): every tool is allowed. */
export function isToolAllowed(allowed: readonly string[] | null | undefined, tool: ToolIdentity): boolean {
  if (!allowed) return true;
  if (allowed.includes(tool.id)) return true;
  if (!tool.name) return false;
  if (allowed.includes(`${tool.class}-${tool.name}`)) return true;
  return tool.class === 'app' && !!tool.version && allowed.includes(`app-${tool.name}/${tool.version}`);
}

/** The versions of an app the project allows, in the order given (newest first is the caller's choice). */
export function allowedAppVersions(allowed: readonly string[] | null | undefined, versions: readonly AppVersion[]): AppVersion[] {
  return versions.filter((version) => isToolAllowed(allowed, { id: version.id, name: version.name, version: version.version, class: 'app' }));
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
