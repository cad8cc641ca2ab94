import { describe, expect, it } from 'vitest';
import { type DialogUser, hasAcceptedLegalTerms, legalTermsOf, shouldShowLegalTerms, shouldShowUserInfo } from './dialog-rules';

const terms = { version: '2026-11', text: 'Be kind to the data.' };

describe('legal-terms dialog (SPEC §5)', () => {
  it.each<[string, DialogUser, boolean]>([
    ['provisioned, not accepted', { isProvisioned: true, sessionData: {} }, true],
    ['single sign-on, not accepted', { sso: 'okta', isProvisioned: false }, true],
    ['provisioned, accepted this version', { isProvisioned: true, sessionData: { acceptedLegalTerms: { version: '2026-11' } } }, false],
    ['provisioned, accepted (legacy true)', { isProvisioned: true, sessionData: { acceptedLegalTerms: true } }, false],
    ['provisioned, accepted an older version', { isProvisioned: true, sessionData: { acceptedLegalTerms: { version: '2025-01' } } }, true],
    ['self-registered, no SSO', { isProvisioned: false }, false],
  ])('%s → %s', (_name, user, expected) => {
    expect(shouldShowLegalTerms(user, terms)).toBe(expected);
  });

  it('is never shown when the installation has no terms', () => {
    expect(shouldShowLegalTerms({ isProvisioned: true }, undefined)).toBe(false);
  });

  it.each([
    [{ legalTerms: terms }, terms],
    [{ legalTerms: { version: '1', url: 'https://example.org/terms' } }, { version: '1', url: 'https://example.org/terms' }],
    [{ legalTerms: { version: '1', url: 'javascript:alert(1)' } }, undefined],
    [{ legalTerms: { version: '', text: 'x' } }, undefined],
    [{ legalTerms: { version: '1' } }, undefined],
    [{}, undefined],
  ])('reads legalTerms %j', (config, expected) => {
    expect(legalTermsOf(config)).toEqual(expected);
  });

  it('checks the accepted version', () => {
    expect(hasAcceptedLegalTerms(undefined, '1')).toBe(false);
    expect(hasAcceptedLegalTerms({ acceptedLegalTerms: { version: '1' } }, '1')).toBe(true);
  });
});

describe('user-info dialog (SPEC §6)', () => {
  const base: DialogUser = { isProvisioned: false, orgs: [], sessionData: {} };
  it.each<[string, DialogUser, Parameters<typeof shouldShowUserInfo>[1], boolean]>([
    ['no SSO, not provisioned, no org', base, { isProjectListPage: false }, true],
    ['single sign-on', { ...base, sso: 'okta' }, { isProjectListPage: false }, false],
    ['provisioned', { ...base, isProvisioned: true }, { isProjectListPage: false }, false],
    ['provisioning unknown', { orgs: [] }, { isProjectListPage: false }, false],
    ['member of an org', { ...base, orgs: ['org-acme'] }, { isProjectListPage: false }, false],
    ['already asked', { ...base, sessionData: { userInfoPrompted: true } }, { isProjectListPage: false }, false],
    ['provider context, project list, active', base, { provider: 'acme', isProjectListPage: true, providerStatus: { acme: 'active' } }, true],
    ['provider context, other page', base, { provider: 'acme', isProjectListPage: false, providerStatus: { acme: 'active' } }, false],
    ['provider context, inactive', base, { provider: 'acme', isProjectListPage: true, providerStatus: { acme: 'pending' } }, false],
    ['provider context, no status', base, { provider: 'acme', isProjectListPage: true }, false],
  ])('%s → %s', (_name, user, ctx, expected) => {
    expect(shouldShowUserInfo(user, ctx)).toBe(expected);
  });
});
