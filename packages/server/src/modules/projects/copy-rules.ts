import { permissionDenied } from '../../errors.js';
import { type ProjectSettings, projectSettings } from './project-describe.js';
import type { ProjectRow } from './projects.repository.js';

/**
 * Whether data (or metadata copied from it) may leave `source` for `target`: not out of a
 * downloadRestricted project, not out of a restricted one into a project billed elsewhere, and not
 * out of a PHI project into one without PHI. Containers (job workspaces) may receive data from
 * downloadRestricted and restricted projects. Every path that copies between containers calls this.
 */
export function assertCopyAllowed(source: ProjectRow, target: ProjectRow): void {
  const settings = projectSettings(source);
  if (settings.downloadRestricted && target.class === 'project') {
    throw permissionDenied(`${source.id} restricts downloads: its data cannot be copied into other projects`);
  }
  if (settings.restricted && target.class === 'project' && target.billTo !== source.billTo) {
    throw permissionDenied(`${source.id} is restricted: its data can only be copied into projects billed to ${source.billTo}`);
  }
  if (source.containsPHI && !target.containsPHI) {
    throw permissionDenied(`${source.id} contains PHI: its data can only be copied into projects that also contain PHI`);
  }
}

/**
 * A user copying data into a container follows the rules for projects: whatever reaches a container
 * could be copied out of it again. Only the platform's own copies (a job's inputs into its workspace,
 * which inherits the source's restrictions) use `assertCopyAllowed` with a container as target.
 */
export function assertUserCopyAllowed(source: ProjectRow, target: ProjectRow): void {
  assertCopyAllowed(source, target.class === 'container' ? { ...target, class: 'project' } : target);
}

/**
 * The restrictions a job workspace takes on when data from `source` is copied into it, so that the
 * inputs cannot leave the workspace by another route than the one they came in by. Undefined when
 * nothing changes.
 */
export function inheritedRestrictions(source: ProjectRow, target: ProjectRow): Pick<ProjectRow, 'settings' | 'containsPHI'> | undefined {
  const from = projectSettings(source);
  const to: ProjectSettings = projectSettings(target);
  const next: ProjectSettings = {
    ...to,
    downloadRestricted: Boolean(to.downloadRestricted || from.downloadRestricted),
    restricted: Boolean(to.restricted || from.restricted),
  };
  const containsPHI = target.containsPHI || source.containsPHI ? 1 : 0;
  if (next.downloadRestricted === Boolean(to.downloadRestricted) && next.restricted === Boolean(to.restricted) && containsPHI === target.containsPHI) {
    return undefined;
  }
  return { settings: JSON.stringify(next), containsPHI };
}
