import { describe, expect, it } from 'vitest';
import type { OrgSummary } from './hooks';
import { billingOptions, defaultRegionFor, levelAtLeast, permittedRegions, phiAllowed, showBillingAdminBanner, transferAllowed } from './project-rules';

const org = (id: string, extra: Partial<OrgSummary> = {}): OrgSummary => ({
  id,
  name: id,
  level: 'MEMBER',
  billable: true,
  phiFeaturesEnabled: false,
  permittedRegions: [],
  defaultRegion: undefined,
  restrictProjectTransfer: undefined,
  ...extra,
});

describe('project rules', () => {
  it('offers the user and the orgs where they may bill', () => {
    const options = billingOptions('user-alice', [org('org-a'), org('org-b', { billable: false }), org('org-c', { name: 'Clinic' })]);
    expect(options.map((option) => option.value)).toEqual(['user-alice', 'org-a', 'org-c']);
    expect(options[2]?.label).toBe('Clinic (org-c)');
  });

  it('limits regions to the permitted ones of SPEC §9 and picks a default', () => {
    expect(permittedRegions(undefined)).toContain('aws:us-east-1');
    const eu = org('org-eu', { permittedRegions: ['aws:eu-central-1', 'mars:base-1'], defaultRegion: 'aws:eu-central-1' });
    expect(permittedRegions(eu)).toEqual(['aws:eu-central-1']);
    expect(defaultRegionFor(eu)).toBe('aws:eu-central-1');
    expect(defaultRegionFor(org('org-x', { permittedRegions: ['aws:eu-west-2'] }))).toBe('aws:eu-west-2');
    expect(defaultRegionFor(undefined)).toBe('aws:us-east-1');
  });

  it('permits PHI only when the billing org has PHI features', () => {
    expect(phiAllowed('user-alice', undefined)).toBe(false);
    expect(phiAllowed('org-a', org('org-a'))).toBe(false);
    expect(phiAllowed('org-a', org('org-a', { phiFeaturesEnabled: true }))).toBe(true);
    expect(phiAllowed('org-b', org('org-a', { phiFeaturesEnabled: true }))).toBe(false);
  });

  it('allows transfer by the rules of SPEC §5', () => {
    expect(transferAllowed({ level: 'CONTRIBUTE', billTo: 'user-alice' }).allowed).toBe(false);
    expect(transferAllowed({ level: 'ADMINISTER', billTo: 'user-alice' }).allowed).toBe(true);
    expect(transferAllowed({ level: 'ADMINISTER', billTo: 'org-a' }).allowed).toBe(false);
    expect(transferAllowed({ level: 'ADMINISTER', billTo: 'org-a', billingOrg: org('org-a') }).allowed).toBe(false);
    expect(transferAllowed({ level: 'ADMINISTER', billTo: 'org-a', billingOrg: org('org-a', { restrictProjectTransfer: 'MEMBER' }) }).allowed).toBe(true);
    expect(transferAllowed({ level: 'ADMINISTER', billTo: 'org-a', billingOrg: org('org-a', { level: 'ADMIN' }) }).allowed).toBe(true);
  });

  it('shows the billing-org admin banner only to org admins without ADMINISTER', () => {
    const orgs = [org('org-a', { level: 'ADMIN' }), org('org-b')];
    expect(showBillingAdminBanner({ level: 'VIEW', billTo: 'org-a', orgs })).toBe(true);
    expect(showBillingAdminBanner({ level: 'ADMINISTER', billTo: 'org-a', orgs })).toBe(false);
    expect(showBillingAdminBanner({ level: 'VIEW', billTo: 'org-b', orgs })).toBe(false);
    expect(showBillingAdminBanner({ level: 'VIEW', billTo: 'user-alice', orgs })).toBe(false);
    expect(levelAtLeast('CONTRIBUTE', 'UPLOAD')).toBe(true);
    expect(levelAtLeast('VIEW', 'UPLOAD')).toBe(false);
    expect(levelAtLeast(undefined, 'VIEW')).toBe(false);
  });
});

import { levelChange, removesLastAdmin, shareControls } from './project-rules';

describe('share-project controls', () => {
  it('lets administrators change anyone and others only remove themselves', () => {
    expect(shareControls('ADMINISTER', 'user-a', 'user-b')).toEqual({ canChange: true, canRemove: true });
    expect(shareControls('CONTRIBUTE', 'user-a', 'user-b')).toEqual({ canChange: false, canRemove: false });
    expect(shareControls('VIEW', 'user-a', 'user-a')).toEqual({ canChange: false, canRemove: true });
  });

  it('raises by invitation and lowers by decreasePermissions', () => {
    expect(levelChange('VIEW', 'CONTRIBUTE')).toBe('invite');
    expect(levelChange('ADMINISTER', 'UPLOAD')).toBe('decrease');
    expect(levelChange('VIEW', 'VIEW')).toBe('none');
  });

  it('keeps one administrator', () => {
    const permissions = { 'user-a': 'ADMINISTER', 'user-b': 'VIEW' };
    expect(removesLastAdmin(permissions, 'user-a', null)).toBe(true);
    expect(removesLastAdmin(permissions, 'user-a', 'VIEW')).toBe(true);
    expect(removesLastAdmin(permissions, 'user-b', null)).toBe(false);
    expect(removesLastAdmin({ ...permissions, 'user-c': 'ADMINISTER' }, 'user-a', null)).toBe(false);
  });
});
