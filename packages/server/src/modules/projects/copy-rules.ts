import { permissionDenied } from '../../errors.js';
import { projectSettings } from './project-describe.js';
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
