/**
 * When the legal-terms and user-info dialogs appear (SPEC §5, §6). Pure functions of the user's
 * description, the runtime configuration and the page.
 */

export interface DialogUser {
  /** Signed in through single sign-on (not offered by this server yet; absent means no). */
  sso?: unknown;
  /** The account was created by someone else (an administrator), as `user-xxxx/describe` reports. */
  isProvisioned?: boolean;
  orgs?: readonly string[];
  sessionData?: Record<string, unknown>;
}

/** The installation's terms of use (runtime configuration `legalTerms`). */
export interface LegalTerms {
  version: string;
  text?: string;
  url?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `legalTerms` of the configuration, if well formed: a version and a text or an http(s) URL. */
export function legalTermsOf(config: Record<string, unknown>): LegalTerms | undefined {
  const terms = config.legalTerms;
  if (!isRecord(terms) || typeof terms.version !== 'string' || !terms.version.trim()) return undefined;
  const text = typeof terms.text === 'string' && terms.text.trim() ? terms.text : undefined;
  const url = typeof terms.url === 'string' && /^https?:\/\//i.test(terms.url) ? terms.url : undefined;
  if (!text && !url) return undefined;
  return { version: terms.version, ...(text ? { text } : {}), ...(url ? { url } : {}) };
}

/** `sessionData.acceptedLegalTerms`: `true` (any version) or `{version}` of the accepted terms. */
export function hasAcceptedLegalTerms(sessionData: Record<string, unknown> | undefined, version: string): boolean {
  const accepted = sessionData?.acceptedLegalTerms;
  if (accepted === true) return true;
  return isRecord(accepted) && accepted.version === version;
}

/**
 * SPEC §5: shown when the user is signed in via single sign-on or is provisioned, and has not accepted
 * the terms. An installation without configured terms has nothing to accept.
 */
export function shouldShowLegalTerms(user: DialogUser, terms: LegalTerms | undefined): boolean {
  if (!terms) return false;
  return (Boolean(user.sso) || user.isProvisioned === true) && !hasAcceptedLegalTerms(user.sessionData, terms.version);
}

export interface UserInfoContext {
  /** The branded provider context (a provider handle), if any. */
  provider?: string;
  isProjectListPage: boolean;
  /** Provider status per provider handle for this user. */
  providerStatus?: Readonly<Record<string, string>>;
}

/**
 * SPEC §6: shown when the user has no SSO, is not provisioned and has no organisation; with a branded
 * provider context, also only on the project-list page and when that provider's status for the user is
 * active. Panx asks once: answering or skipping records `userInfoPrompted` in the session data.
 */
export function shouldShowUserInfo(user: DialogUser, ctx: UserInfoContext): boolean {
  if (user.sso || user.isProvisioned !== false || (user.orgs ?? []).length > 0) return false;
  if (user.sessionData?.userInfoPrompted === true) return false;
  if (ctx.provider) return ctx.isProjectListPage && ctx.providerStatus?.[ctx.provider] === 'active';
  return true;
}
