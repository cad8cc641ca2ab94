/**
 * The route table of SPEC §2 and its redirect rules, as pure functions of (path, query, context).
 * The React Router configuration (routes.tsx) is generated from ROUTES; the shell applies `resolveRoute`
 * on every navigation, so a redirect rule never depends on which component happens to render.
 *
 * Paths here are app paths WITHOUT the `/panx` base (`/projects/x/data/`); `withBase` adds it.
 */

export const BASE_PATH = '/panx';

/** Which page module renders a route (routes.tsx maps each to a lazily loaded component). */
export type PageKey =
  | 'login'
  | 'maintenance'
  | 'home'
  | 'profileSettings'
  | 'communityHome'
  | 'setup2fa'
  | 'projects'
  | 'projectData'
  | 'projectSettings'
  | 'fileViewer'
  | 'dataCatalog'
  | 'datasetsCatalog'
  | 'toolLibrary'
  | 'toolDetails'
  | 'toolRunner'
  | 'workflowEditor'
  | 'importWorkflow'
  | 'executionsList'
  | 'executionDetails'
  /** Owned by a later issue: an honest "not available yet" page. */
  | 'notAvailable';

export type RouteId =
  | 'login'
  | 'maintenance'
  | 'setup2fa'
  | 'home'
  | 'projects'
  | 'projectsFeatured'
  | 'projectsPartner'
  | 'projectData'
  | 'projectSettings'
  | 'projectMonitor'
  | 'executionTry'
  | 'executionDetails'
  | 'projectVisualize'
  | 'workflowEditor'
  | 'projectToolRun'
  | 'projectToolDetails'
  | 'fileViewer'
  | 'search'
  | 'dataCatalog'
  | 'datasetsCatalog'
  | 'orgs'
  | 'orgSettings'
  | 'orgBilling'
  | 'orgBillingUsage'
  | 'orgBillingUsageType'
  | 'orgProjects'
  | 'orgMembers'
  | 'orgCloudIntegration'
  | 'orgStorageDrives'
  | 'orgTreList'
  | 'orgTre'
  | 'communityHome'
  | 'coHome'
  | 'tools'
  | 'toolRun'
  | 'toolWorkers'
  | 'importWorkflow'
  | 'toolDetails'
  | 'terminal'
  | 'stencilData'
  | 'stencilSession'
  | 'stencil'
  | 'cohortBrowser'
  | 'associate'
  | 'profileAccountSecurity'
  | 'profileBilling'
  | 'profileUserAccount'
  | 'profileUserAccountSection'
  | 'dataRequests'
  | 'dataRequestNew'
  | 'dataRequestInfo'
  | 'dataRequestData'
  | 'execution'
  | 'dataResources'
  | 'dataResource'
  | 'dataResourceDescription'
  | 'dataResourceShowcase'
  | 'accessRequests'
  | 'accessRequestReviews'
  | 'accessRequest'
  | 'accessRequestMessages'
  | 'accessRequestShowcase'
  | 'sandbox';

/** Page identifiers of SPEC §2 (used for analytics and `data-page-id`). */
export type PageIdentifier =
  | 'execution-page'
  | 'executions-list'
  | 'project-settings'
  | 'data-manager'
  | 'projects-list'
  | 'data-list'
  | 'jobs-list'
  | 'workers-list'
  | 'tools-library'
  | 'quicklaunch'
  | 'samples-viewer'
  | 'uds-project-data'
  | 'uds-projects'
  | 'data-catalog'
  | 'datasets-catalog'
  | 'organizations-page'
  | 'data-transfer-request-list'
  | 'data-transfer-request-review-data'
  | 'omics-data-catalog-search'
  | 'cohort-browser-somatic-variants-tab'
  | 'org-projects-list'
  | 'org-members'
  | 'tre-admin-list';

export interface RouteEntry {
  id: RouteId;
  /** Pattern relative to /panx: `:name` segments, `:name?` for an optional last segment, `*` for the rest. */
  path: string;
  page: PageKey;
  /** Human title (also used by the "not available yet" page). */
  title: string;
  /** Reachable without signing in. */
  public?: boolean;
  hideHeader?: boolean;
  pageId?: PageIdentifier;
  /** Extra condition on the matched parameters; a failed check means "no match". */
  accepts?: (params: RouteParams) => boolean;
}

export type RouteParams = Record<string, string>;

const isProjectId = (value: string | undefined) => /^(project|container)-[0-9A-Za-z]{24}$/.test(value ?? '');

/**
 * Every route of SPEC §2 that renders a page. Order matters: the first match wins, so specific static
 * paths come before parametric ones. Redirect-only routes are in `resolveRoute`.
 */
export const ROUTES: readonly RouteEntry[] = [
  // Panx additions (SPEC §2 does not name them): the sign-in page and the maintenance page.
  { id: 'login', path: '/login', page: 'login', title: 'Sign in', public: true },
  { id: 'maintenance', path: '/maintenance', page: 'maintenance', title: 'Maintenance', public: true },

  { id: 'setup2fa', path: '/setup/2fa', page: 'setup2fa', title: 'Two-factor authentication setup', public: true },
  { id: 'home', path: '/home', page: 'home', title: 'Home' },

  { id: 'projects', path: '/projects', page: 'projects', title: 'Projects', pageId: 'projects-list' },
  { id: 'projectsFeatured', path: '/projects/featured', page: 'projects', title: 'Featured projects', pageId: 'projects-list' },
  { id: 'projectsPartner', path: '/projects/partner/:orgID', page: 'projects', title: 'Partner projects', pageId: 'projects-list' },
  { id: 'projectData', path: '/projects/:id/data/*', page: 'projectData', title: 'Project data', pageId: 'data-manager' },
  { id: 'projectSettings', path: '/projects/:id/settings', page: 'projectSettings', title: 'Project settings', pageId: 'project-settings' },
  { id: 'projectMonitor', path: '/projects/:id/monitor', page: 'executionsList', title: 'Executions', pageId: 'executions-list' },
  {
    id: 'executionTry',
    path: '/projects/:id/monitor/:executionClass/:executionHandle/try/:tryNumber/*',
    page: 'executionDetails',
    title: 'Execution try',
    pageId: 'execution-page',
  },
  {
    id: 'executionDetails',
    path: '/projects/:id/monitor/:executionClass/:executionHandle/*',
    page: 'executionDetails',
    title: 'Execution details',
    pageId: 'execution-page',
  },
  { id: 'projectVisualize', path: '/projects/:id/visualize/:fragment?', page: 'notAvailable', title: 'Visualize' },
  { id: 'workflowEditor', path: '/projects/:id/workflows/:workflow', page: 'workflowEditor', title: 'Workflow editor' },
  { id: 'projectToolRun', path: '/projects/:projectID/run/:toolID/*', page: 'toolRunner', title: 'Run a tool', pageId: 'quicklaunch' },
  { id: 'projectToolDetails', path: '/projects/:projectID/:toolID', page: 'toolDetails', title: 'Tool details' },

  { id: 'search', path: '/search', page: 'notAvailable', title: 'Omics data discovery search', pageId: 'omics-data-catalog-search' },
  { id: 'dataCatalog', path: '/data', page: 'dataCatalog', title: 'Data catalog', pageId: 'data-catalog' },
  { id: 'datasetsCatalog', path: '/data/datasets', page: 'datasetsCatalog', title: 'Datasets catalog', pageId: 'datasets-catalog' },

  { id: 'orgs', path: '/orgs', page: 'notAvailable', title: 'Organizations', pageId: 'organizations-page' },
  { id: 'orgSettings', path: '/orgs/:org/settings/:menuItem?', page: 'notAvailable', title: 'Organization settings' },
  { id: 'orgBilling', path: '/orgs/:org/billing', page: 'notAvailable', title: 'Organization billing' },
  { id: 'orgBillingUsage', path: '/orgs/:org/billing/usage', page: 'notAvailable', title: 'Usage' },
  { id: 'orgBillingUsageType', path: '/orgs/:org/billing/usage/:usageType', page: 'notAvailable', title: 'Usage' },
  { id: 'orgProjects', path: '/orgs/:org/projects', page: 'notAvailable', title: 'Organization projects', pageId: 'org-projects-list' },
  { id: 'orgMembers', path: '/orgs/:org/members', page: 'notAvailable', title: 'Organization members', pageId: 'org-members' },
  { id: 'orgCloudIntegration', path: '/orgs/:org/cloudIntegration', page: 'notAvailable', title: 'Cloud integration' },
  { id: 'orgStorageDrives', path: '/orgs/:org/cloudIntegration/storageDrives', page: 'notAvailable', title: 'Storage drives' },
  { id: 'orgTreList', path: '/orgs/:org/tre', page: 'notAvailable', title: 'Trusted research environments', pageId: 'tre-admin-list' },
  { id: 'orgTre', path: '/orgs/:org/tre/:tre', page: 'notAvailable', title: 'Trusted research environment' },

  { id: 'communityHome', path: '/communities/:id/home', page: 'communityHome', title: 'Community' },
  { id: 'coHome', path: '/co/:id/home', page: 'communityHome', title: 'Community' },

  { id: 'tools', path: '/tools', page: 'toolLibrary', title: 'Tools', pageId: 'tools-library' },
  { id: 'toolRun', path: '/tools/run/:toolID/*', page: 'toolRunner', title: 'Run a tool', pageId: 'quicklaunch' },
  { id: 'toolWorkers', path: '/tools/workers/:workerID/*', page: 'notAvailable', title: 'Workers', pageId: 'workers-list' },
  { id: 'importWorkflow', path: '/tools/import-workflow/*', page: 'importWorkflow', title: 'Import a workflow' },
  { id: 'toolDetails', path: '/tool/:toolClass/:toolID', page: 'toolDetails', title: 'Tool details' },
  { id: 'terminal', path: '/terminal/*', page: 'notAvailable', title: 'Terminal' },
  { id: 'stencilData', path: '/stencil/data/:data/*', page: 'notAvailable', title: 'Stencil' },
  { id: 'stencilSession', path: '/stencil/session/:session/*', page: 'notAvailable', title: 'Stencil' },
  { id: 'stencil', path: '/stencil/*', page: 'notAvailable', title: 'Stencil' },
  // The cohort application router (the "v3 base route"); legacy paths redirect here (see resolveRoute).
  { id: 'cohortBrowser', path: '/cohort-browser/*', page: 'notAvailable', title: 'Cohort browser' },

  { id: 'associate', path: '/associate', page: 'notAvailable', title: 'Associate your account', hideHeader: true },

  {
    id: 'profileAccountSecurity',
    path: '/profile/:user/settings/accountSecurity/:fragment?',
    page: 'profileSettings',
    title: 'Account security',
  },
  { id: 'profileBilling', path: '/profile/:user/settings/billing', page: 'profileSettings', title: 'Billing' },
  { id: 'profileUserAccount', path: '/profile/:user/settings/userAccount', page: 'profileSettings', title: 'User account' },
  { id: 'profileUserAccountSection', path: '/profile/:user/settings/userAccount/:section/*', page: 'profileSettings', title: 'User account' },

  { id: 'dataRequests', path: '/datarequests', page: 'notAvailable', title: 'Data transfer requests', pageId: 'data-transfer-request-list' },
  { id: 'dataRequestNew', path: '/datarequests/new', page: 'notAvailable', title: 'New data transfer request' },
  { id: 'dataRequestInfo', path: '/datarequests/:id/info', page: 'notAvailable', title: 'Data transfer request' },
  {
    id: 'dataRequestData',
    path: '/datarequests/:id/data',
    page: 'notAvailable',
    title: 'Data transfer request review data',
    pageId: 'data-transfer-request-review-data',
  },
  { id: 'execution', path: '/executions/:id', page: 'executionDetails', title: 'Execution', pageId: 'execution-page' },
  { id: 'dataResources', path: '/dataResources', page: 'notAvailable', title: 'Data resource centres' },
  { id: 'dataResource', path: '/dataResources/:tre', page: 'notAvailable', title: 'Data resource centre' },
  { id: 'dataResourceDescription', path: '/dataResources/:tre/description', page: 'notAvailable', title: 'Data resource centre' },
  { id: 'dataResourceShowcase', path: '/dataResources/:tre/showcase/:recordID', page: 'notAvailable', title: 'Data resource showcase' },
  { id: 'accessRequests', path: '/accessRequests', page: 'notAvailable', title: 'Access requests' },
  { id: 'accessRequestReviews', path: '/accessRequests/reviews', page: 'notAvailable', title: 'Access request reviews' },
  { id: 'accessRequest', path: '/accessRequests/:requestID', page: 'notAvailable', title: 'Access request' },
  { id: 'accessRequestMessages', path: '/accessRequests/:requestID/messages', page: 'notAvailable', title: 'Access request messages' },
  { id: 'accessRequestShowcase', path: '/accessRequests/:requestID/showcase/:recordID', page: 'notAvailable', title: 'Access request showcase' },
  { id: 'sandbox', path: '/sandbox/*', page: 'notAvailable', title: 'Sandbox' },

  // Last: `/{projectID}/{objectID}/view` would otherwise shadow three-segment paths of other routes.
  { id: 'fileViewer', path: '/:projectID/:objectID/view', page: 'fileViewer', title: 'File viewer', accepts: (params) => isProjectId(params.projectID) },
];

/** Matches one pattern against a path; returns the parameters (`*` holds the rest) or undefined. */
export function matchPattern(pattern: string, pathname: string): RouteParams | undefined {
  const patternParts = pattern.split('/').filter(Boolean);
  const pathParts = pathname.split('/').filter(Boolean);
  const params: RouteParams = {};
  for (let index = 0; index < patternParts.length; index++) {
    const part = patternParts[index] ?? '';
    if (part === '*') {
      params['*'] = pathParts.slice(index).join('/');
      return params;
    }
    const value = pathParts[index];
    if (part.startsWith(':')) {
      const optional = part.endsWith('?');
      const name = part.slice(1, optional ? -1 : undefined);
      if (value === undefined) {
        if (optional) continue;
        return undefined;
      }
      params[name] = safeDecode(value);
      continue;
    }
    if (value !== part) return undefined;
  }
  return pathParts.length <= patternParts.length ? params : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function matchRoute(pathname: string): { route: RouteEntry; params: RouteParams } | undefined {
  for (const route of ROUTES) {
    const params = matchPattern(route.path, pathname);
    if (params && (!route.accepts || route.accepts(params))) return { route, params };
  }
  return undefined;
}

/** What the rules need to know about the user and the installation. */
export interface RouteContext {
  /** `location.hostname`: the sandbox exists only on localhost or staging. */
  hostname: string;
  flags: Partial<Record<string, boolean>>;
  /** The signed-in user's handle (`alice` for `user-alice`), for /returnFromBilling. */
  userHandle?: string;
  /** Internal staff (SPEC §6): see `isInternalStaff`. */
  isInternalStaff: boolean;
  /** `communityPortalOrgIds` of the runtime configuration. */
  communityOrgIds: readonly string[];
  /** The orgs the user belongs to. */
  userOrgs: readonly string[];
  /** `maintenanceWindow.active`: every page goes to the maintenance page. */
  maintenance?: boolean;
}

export type RouteDecision =
  | { kind: 'render'; route: RouteEntry; params: RouteParams }
  /** `to` is a full path under /panx including the query string. `community` is set when the context changes. */
  | { kind: 'redirect'; to: string; community?: string; reason: RedirectReason };

export type RedirectReason =
  | 'root'
  | 'unknown'
  | 'project-data'
  | 'org-settings'
  | 'community-home'
  | 'community-context'
  | 'cohort-browser'
  | 'return-from-billing'
  | 'data-request-info'
  | 'try-canonical'
  | 'try-invalid'
  | 'feature-off'
  | 'not-allowed'
  | 'maintenance'
  | 'sign-in';

export const HOME = `${BASE_PATH}/home`;

/** The React Router path of a route (routes.tsx registers every route of ROUTES with it). */
export function routerPath(route: RouteEntry): string {
  return withBase(route.path);
}

export function withBase(path: string): string {
  return `${BASE_PATH}${path.startsWith('/') ? path : `/${path}`}`;
}

/** `/panx/projects/x` → `/projects/x`; paths outside the base give undefined. */
export function stripBase(pathname: string): string | undefined {
  if (pathname === BASE_PATH) return '/';
  if (!pathname.startsWith(`${BASE_PATH}/`)) return undefined;
  return pathname.slice(BASE_PATH.length);
}

/** Try numbers are canonical non-negative integers: `0`, `7`, `12`, never `07`, `+1`, `1.0` or `-1`. */
export function classifyTryNumber(value: string): { kind: 'canonical' } | { kind: 'non-canonical'; canonical: string } | { kind: 'invalid' } {
  if (!/^[0-9]+$/.test(value)) return { kind: 'invalid' };
  const number = Number(value);
  if (!Number.isSafeInteger(number)) return { kind: 'invalid' };
  const canonical = String(number);
  return canonical === value ? { kind: 'canonical' } : { kind: 'non-canonical', canonical };
}

/** A community id of the URL (`acme` or `org-acme`) → its org id. */
export function communityOrgId(id: string): string {
  return id.startsWith('org-') ? id : `org-${id}`;
}

/** The sandbox is offered on localhost and staging installations only. */
export function isSandboxHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1' || host.endsWith('.localhost') || /(^|[.-])staging([.-]|$)/.test(host)
  );
}

/**
 * Internal staff (SPEC §6 identifies them by the company e-mail domain): users whose e-mail domain is in
 * `staffEmailDomains` of the runtime configuration, and the installation's administrators.
 */
export function isInternalStaff(user: { email?: string; admin?: boolean } | undefined, staffEmailDomains: readonly string[]): boolean {
  if (!user) return false;
  if (user.admin === true) return true;
  const domain = user.email?.split('@')[1]?.toLowerCase();
  return domain !== undefined && staffEmailDomains.some((allowed) => allowed.toLowerCase() === domain);
}

const redirect = (to: string, reason: RedirectReason, community?: string): RouteDecision =>
  community === undefined ? { kind: 'redirect', to, reason } : { kind: 'redirect', to, reason, community };

/**
 * Applies the redirect rules of SPEC §2 to a path under /panx (with its query string, `''` or `?a=b`).
 * Order: the exact redirect routes, then the route table, then "unknown → /panx/home".
 */
export function resolveRoute(pathnameWithBase: string, search: string, ctx: RouteContext): RouteDecision {
  const query = search && search !== '?' ? (search.startsWith('?') ? search : `?${search}`) : '';
  const path = stripBase(pathnameWithBase);
  if (path === undefined) return redirect(HOME, 'unknown');
  const parts = path.split('/').filter(Boolean);
  const [first, second, third] = parts;

  if (parts.length === 0) return redirect(HOME, 'root');

  // Maintenance mode: the maintenance page only; without maintenance that page goes home.
  const onMaintenancePage = parts.length === 1 && first === 'maintenance';
  if (ctx.maintenance && !onMaintenancePage) return redirect(withBase('/maintenance'), 'maintenance');
  if (!ctx.maintenance && onMaintenancePage) return redirect(HOME, 'unknown');

  // /projects/{id} → /projects/{id}/data/
  if (first === 'projects' && parts.length === 2 && second !== 'featured') {
    return redirect(withBase(`/projects/${encodeURIComponent(second ?? '')}/data/${query}`), 'project-data');
  }
  // /orgs/{org} → settings
  if (first === 'orgs' && parts.length === 2) return redirect(withBase(`/orgs/${encodeURIComponent(second ?? '')}/settings${query}`), 'org-settings');

  // Communities: /communities/{id} → home; /communities/{id}/* sets the context, then /panx/* with the query.
  // Short forms: /co/{id} → /co/{id}/home; /co/{id}/projects/* and /co/{id}/* as /communities/{id}/*.
  if ((first === 'communities' || first === 'co') && second) {
    if (parts.length === 2) return redirect(withBase(`/${first}/${encodeURIComponent(second)}/home${query}`), 'community-home');
    if (third !== 'home' || parts.length > 3) {
      const orgId = communityOrgId(second);
      const entitled = ctx.communityOrgIds.includes(orgId) && ctx.userOrgs.includes(orgId);
      const rest = parts.slice(2).join('/');
      return redirect(withBase(`/${rest}${query}`), 'community-context', entitled ? orgId : undefined);
    }
  }

  // Legacy and current cohort browser paths → the cohort application path for that project and cohort.
  const cohort = cohortBrowserRedirect(parts);
  if (cohort) return redirect(withBase(`${cohort}${query}`), 'cohort-browser');

  if (first === 'returnFromBilling' && parts.length === 1) {
    if (!ctx.userHandle) return redirect(`${withBase('/login')}?${new URLSearchParams({ returnTo: `${pathnameWithBase}${query}` })}`, 'sign-in');
    return redirect(withBase(`/profile/${encodeURIComponent(ctx.userHandle)}/settings/billing${query}`), 'return-from-billing');
  }
  // /datarequests/{id} → /datarequests/{id}/info (not /datarequests/new)
  if (first === 'datarequests' && parts.length === 2 && second !== 'new') {
    return redirect(withBase(`/datarequests/${encodeURIComponent(second ?? '')}/info${query}`), 'data-request-info');
  }

  const matched = matchRoute(path);
  if (!matched) return redirect(HOME, 'unknown');
  const { route, params } = matched;

  if (route.id === 'executionTry') {
    const verdict = classifyTryNumber(params.tryNumber ?? '');
    const details = `/projects/${enc(params.id)}/monitor/${enc(params.executionClass)}/${enc(params.executionHandle)}`;
    const rest = params['*'] ? `/${params['*']}` : '';
    if (verdict.kind === 'non-canonical') return redirect(withBase(`${details}/try/${verdict.canonical}${rest}${query}`), 'try-canonical');
    if (verdict.kind === 'invalid') return redirect(withBase(`${details}${rest}${query}`), 'try-invalid');
  }
  if (route.id === 'search' && ctx.flags.enablePanxOmicsDataDiscoverySearch !== true) return redirect(HOME, 'feature-off');
  if (route.id === 'sandbox' && !(isSandboxHost(ctx.hostname) && ctx.isInternalStaff)) return redirect(HOME, 'not-allowed');
  return { kind: 'render', route, params };
}

const enc = (value: string | undefined) => encodeURIComponent(value ?? '');

/**
 * Cohort browser paths (SPEC §2 names them without spelling them out; these are Panx's):
 * - legacy: `/projects/{projectID}/cohortBrowser/{recordID}/*`
 * - current: `/cohortBrowser/{projectID}/{recordID}/*`
 * both → `/cohort-browser/{projectID}/{recordID}/*`, the cohort application's path (v3 base route).
 */
function cohortBrowserRedirect(parts: string[]): string | undefined {
  const [first, second, third, fourth] = parts;
  if (first === 'projects' && third === 'cohortBrowser' && second && fourth) {
    return `/cohort-browser/${second}/${fourth}${parts.length > 4 ? `/${parts.slice(4).join('/')}` : ''}`;
  }
  if (first === 'cohortBrowser' && second && third) {
    return `/cohort-browser/${second}/${third}${parts.length > 3 ? `/${parts.slice(3).join('/')}` : ''}`;
  }
  return undefined;
}

/** `?viewer` (with or without a value) hides header and footer. */
export function isViewerMode(search: string): boolean {
  return new URLSearchParams(search).has('viewer');
}

/** A project-list page is recognised by its path (SPEC §2). */
export function isProjectListPath(pathnameWithBase: string): boolean {
  const path = stripBase(pathnameWithBase) ?? '';
  return /^\/projects(\/featured|\/partner\/[^/]+)?\/?$/.test(path);
}

export type AnalyticsPageKind =
  | 'Project Data page'
  | 'Project Data page with params'
  | 'Project Monitor page'
  | 'Execution Details page (job)'
  | 'Execution Details page (analysis)'
  | 'Execution page';

/** Analytics page kind of SPEC §2, by URL pattern. */
export function analyticsPageKind(pathnameWithBase: string, search = ''): AnalyticsPageKind | undefined {
  const path = stripBase(pathnameWithBase);
  if (!path) return undefined;
  const data = /^\/projects\/[^/]+\/data(\/(.*))?$/.exec(path);
  if (data) return data[2] || (search && search !== '?') ? 'Project Data page with params' : 'Project Data page';
  if (/^\/projects\/[^/]+\/monitor\/?$/.test(path)) return 'Project Monitor page';
  const execution = /^\/projects\/[^/]+\/monitor\/(job|analysis)\/[^/]+(\/.*)?$/.exec(path);
  if (execution) return execution[1] === 'job' ? 'Execution Details page (job)' : 'Execution Details page (analysis)';
  if (/^\/executions\/[^/]+\/?$/.test(path)) return 'Execution page';
  return undefined;
}

/** Where sign-in returns to: only paths inside the app (no `//evil.example`, no other origins). */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value?.startsWith(`${BASE_PATH}/`) || value.startsWith('//') || value.includes('\\')) return HOME;
  const path = stripBase(value.split('?')[0] ?? '');
  if (path === '/login' || path?.startsWith('/login/')) return HOME;
  return value;
}

export function loginPath(returnTo: string, reason?: 'expired' | 'signed-out' | 'password-changed'): string {
  const params = new URLSearchParams({ returnTo: safeReturnTo(returnTo) });
  if (reason) params.set('reason', reason);
  return `${withBase('/login')}?${params.toString()}`;
}
