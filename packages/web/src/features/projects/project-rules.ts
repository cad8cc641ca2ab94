/**
 * Rules of the new-project dialog and the settings page (SPEC §5, §6, §9), pure: who may be billed,
 * which regions, when PHI can be set, when a project may be transferred, when the billing-org admin
 * banner shows.
 */
import { DEFAULT_REGION, REGIONS } from '@panx/contract';
import type { OrgSummary } from './hooks';

export interface BillingOption {
  value: string;
  label: string;
  org?: OrgSummary;
}

/** The user and the orgs where they may bill (allowBillableActivities, or ADMIN). */
export function billingOptions(userId: string, orgs: readonly OrgSummary[]): BillingOption[] {
  return [
    { value: userId, label: `Myself (${userId})` },
    ...orgs.filter((org) => org.billable).map((org) => ({ value: org.id, label: org.name === org.id ? org.id : `${org.name} (${org.id})`, org })),
  ];
}

/** Regions the billing account permits (an org's permittedRegions, when it lists any); all of SPEC §9 otherwise. */
export function permittedRegions(org: OrgSummary | undefined): string[] {
  const permitted = org?.permittedRegions.filter((region) => (REGIONS as readonly string[]).includes(region)) ?? [];
  return permitted.length ? permitted : [...REGIONS];
}

export function defaultRegionFor(org: OrgSummary | undefined): string {
  const regions = permittedRegions(org);
  if (org?.defaultRegion && regions.includes(org.defaultRegion)) return org.defaultRegion;
  return regions.includes(DEFAULT_REGION) ? DEFAULT_REGION : (regions[0] ?? DEFAULT_REGION);
}

/** SPEC §6: PHI is permitted only when the billing org has PHI features on (never for a user). */
export function phiAllowed(billTo: string, org: OrgSummary | undefined): boolean {
  return billTo.startsWith('org-') && org?.id === billTo && org.phiFeaturesEnabled;
}

export const ACCESS_LEVELS = ['VIEW', 'UPLOAD', 'CONTRIBUTE', 'ADMINISTER'] as const;

export function levelAtLeast(level: string | undefined, required: (typeof ACCESS_LEVELS)[number]): boolean {
  return ACCESS_LEVELS.indexOf((level ?? '') as (typeof ACCESS_LEVELS)[number]) >= ACCESS_LEVELS.indexOf(required);
}

/**
 * SPEC §5 project transfer: a user-billed project needs ADMINISTER; an org-billed one also needs the
 * org's transfer policy to admit the user's org level (ADMIN: org admins only; MEMBER: any member).
 * An unset policy counts as ADMIN, as the server does.
 */
export function transferAllowed(input: { level: string | undefined; billTo: string | undefined; billingOrg?: OrgSummary }): {
  allowed: boolean;
  reason?: string;
} {
  if (input.level !== 'ADMINISTER') return { allowed: false, reason: 'Only project administrators can transfer a project.' };
  if (!input.billTo?.startsWith('org-')) return { allowed: true };
  const org = input.billingOrg;
  if (!org) return { allowed: false, reason: `You are not a member of ${input.billTo}, which pays for this project.` };
  const policy = org.restrictProjectTransfer ?? 'ADMIN';
  if (policy === 'ADMIN' && org.level !== 'ADMIN') return { allowed: false, reason: `${org.id} lets only its admins transfer its projects.` };
  return { allowed: true };
}

/** SPEC §6: the banner shows when the user is an admin of the billing org but lacks ADMINISTER on the project. */
export function showBillingAdminBanner(input: { level: string | undefined; billTo: string | undefined; orgs: readonly OrgSummary[] }): boolean {
  if (!input.billTo?.startsWith('org-') || input.level === 'ADMINISTER') return false;
  return input.orgs.some((org) => org.id === input.billTo && org.level === 'ADMIN');
}

/**
 * The share-project modal's controls: only ADMINISTER invites and changes levels (the server enforces
 * it too); anyone may remove themselves. Raising a level is an invite (it never lowers); lowering or
 * removing goes through decreasePermissions.
 */
export function shareControls(myLevel: string | undefined, myId: string, memberId: string): { canChange: boolean; canRemove: boolean } {
  const admin = myLevel === 'ADMINISTER';
  return { canChange: admin, canRemove: admin || memberId === myId };
}

export function levelChange(current: string, next: string): 'invite' | 'decrease' | 'none' {
  const from = ACCESS_LEVELS.indexOf(current as (typeof ACCESS_LEVELS)[number]);
  const to = ACCESS_LEVELS.indexOf(next as (typeof ACCESS_LEVELS)[number]);
  if (from === to) return 'none';
  return to > from ? 'invite' : 'decrease';
}

/** Whether removing or lowering `memberId` would leave the project without an administrator. */
export function removesLastAdmin(permissions: Readonly<Record<string, unknown>>, memberId: string, next: string | null): boolean {
  if (permissions[memberId] !== 'ADMINISTER' || next === 'ADMINISTER') return false;
  return Object.entries(permissions).filter(([id, level]) => id !== memberId && level === 'ADMINISTER').length === 0;
}
