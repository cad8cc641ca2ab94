import { atLeast, maxLevel, minLevel, type PermissionLevel } from '@panx/contract';
import type { Stores } from '../../db/stores.js';
import { notFound, permissionDenied } from '../../errors.js';
import type { Caller } from '../auth/caller.js';
import type { OrgMemberRow } from '../orgs/orgs.repository.js';
import type { ProjectRow } from './projects.repository.js';

export interface ProjectAccess {
  project: ProjectRow;
  level: PermissionLevel;
  /** Where the level comes from: the user's id and/or the org ids that grant it. */
  sources: string[];
}

/**
 * Effective project levels, as DNAnexus defines them: the greater of the explicit grant to the user
 * and the implicit ones through orgs (org ADMINs get ADMINISTER on projects billed to the org; on a
 * project shared with an org, each member gets the org's grant capped by their projectAccess, which
 * is ADMINISTER for ADMINs), capped by a scoped token.
 */
export class AccessService {
  constructor(private readonly stores: Stores) {}

  levelFrom(
    project: ProjectRow,
    userId: string,
    grants: { memberId: string; level: string }[],
    memberships: OrgMemberRow[],
  ): { level: PermissionLevel; sources: string[] } {
    let level: PermissionLevel = 'NONE';
    const sources: string[] = [];
    const byOrg = new Map(memberships.map((m) => [m.orgId, m]));
    for (const grant of grants) {
      let granted: PermissionLevel = 'NONE';
      if (grant.memberId === userId) granted = grant.level as PermissionLevel;
      else {
        const membership = byOrg.get(grant.memberId);
        if (!membership) continue;
        const cap = membership.level === 'ADMIN' ? 'ADMINISTER' : (membership.projectAccess as PermissionLevel);
        granted = minLevel(grant.level as PermissionLevel, cap);
      }
      if (granted !== 'NONE') {
        level = maxLevel(level, granted);
        sources.push(grant.memberId);
      }
    }
    const billingOrg = byOrg.get(project.billTo);
    if (billingOrg?.level === 'ADMIN' && project.class === 'project') {
      level = 'ADMINISTER';
      if (!sources.includes(project.billTo)) sources.push(project.billTo);
    }
    return { level, sources };
  }

  capByScope(caller: Caller, projectId: string, level: PermissionLevel): PermissionLevel {
    if (!caller.scope) return level;
    return minLevel(level, caller.scope.projects[projectId] ?? 'NONE');
  }

  async access(caller: Caller, projectId: string): Promise<ProjectAccess> {
    const project = await this.stores.projects.findById(projectId);
    if (!project) throw notFound(`The ${kindOf(projectId)} ${projectId} could not be found`);
    const memberships = await this.stores.orgs.membershipsOfUser(caller.userId);
    const grants = await this.stores.projects.grantsTo(projectId, [caller.userId, ...memberships.map((m) => m.orgId)]);
    const { level, sources } = this.levelFrom(project, caller.userId, grants, memberships);
    return { project, level: this.capByScope(caller, projectId, level), sources };
  }

  /**
   * The caller's access, which must be at least `required`. A container the caller cannot see at all
   * answers ResourceNotFound, so that its existence is not revealed.
   */
  async require(caller: Caller, projectId: string, required: PermissionLevel, action?: string): Promise<ProjectAccess> {
    const access = await this.access(caller, projectId);
    if (access.level === 'NONE') throw notFound(`The ${kindOf(projectId)} ${projectId} could not be found`);
    if (!atLeast(access.level, required)) {
      throw permissionDenied(`${action ? `${action} requires` : 'This requires'} ${required} permission in ${projectId}; you have ${access.level}`);
    }
    return access;
  }

  /** Every project the caller can see, with its level and sources. */
  async visibleProjects(caller: Caller): Promise<ProjectAccess[]> {
    const memberships = await this.stores.orgs.membershipsOfUser(caller.userId);
    const memberIds = [caller.userId, ...memberships.map((m) => m.orgId)];
    const grants = await this.stores.projects.allGrantsTo(memberIds);
    const adminOrgs = memberships.filter((m) => m.level === 'ADMIN').map((m) => m.orgId);
    const ids = new Set([...grants.map((g) => g.projectId), ...(await this.stores.projects.idsBilledTo(adminOrgs))]);
    const projects = await this.stores.projects.findByIds([...ids]);
    const grantsByProject = new Map<string, typeof grants>();
    for (const grant of grants) grantsByProject.set(grant.projectId, [...(grantsByProject.get(grant.projectId) ?? []), grant]);
    const result: ProjectAccess[] = [];
    for (const project of projects) {
      const { level, sources } = this.levelFrom(project, caller.userId, grantsByProject.get(project.id) ?? [], memberships);
      const capped = this.capByScope(caller, project.id, level);
      if (capped !== 'NONE') result.push({ project, level: capped, sources });
    }
    return result;
  }
}

function kindOf(id: string): string {
  return id.startsWith('container-') ? 'container' : 'project';
}
