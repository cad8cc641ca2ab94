import { describe, expect, it } from 'vitest';
import {
  analyticsPageKind,
  classifyTryNumber,
  isInternalStaff,
  isProjectListPath,
  isSandboxHost,
  isViewerMode,
  matchPattern,
  matchRoute,
  ROUTES,
  type RouteContext,
  type RouteId,
  resolveRoute,
  safeReturnTo,
} from './route-rules';

const P = 'project-0123456789ABCDEFGHIJKLmn';
const F = 'file-0123456789ABCDEFGHIJKLmn';

const ctx: RouteContext = {
  hostname: 'panx.example.org',
  flags: {},
  userHandle: 'alice',
  isInternalStaff: false,
  communityOrgIds: ['org-acme', 'org-beta'],
  userOrgs: ['org-acme', 'org-other'],
};

describe('resolveRoute: redirects of SPEC §2', () => {
  it.each<[string, string, string, Partial<RouteContext>?]>([
    // unknown paths → /panx/home
    ['/panx', '', '/panx/home'],
    ['/panx/', '', '/panx/home'],
    ['/panx/nowhere', '', '/panx/home'],
    ['/panx/home/extra', '', '/panx/home'],
    ['/panx/projects/x/unknown/deeper/path', '', '/panx/home'],
    ['/elsewhere', '', '/panx/home'],
    // /projects/{id} → /data/, keeping the query
    [`/panx/projects/${P}`, '', `/panx/projects/${P}/data/`],
    [`/panx/projects/${P}/`, '?tab=1', `/panx/projects/${P}/data/?tab=1`],
    // /orgs/{org} → settings
    ['/panx/orgs/org-acme', '', '/panx/orgs/org-acme/settings'],
    // communities
    ['/panx/communities/acme', '', '/panx/communities/acme/home'],
    ['/panx/communities/acme/projects', '?q=1', '/panx/projects?q=1'],
    ['/panx/communities/acme/orgs/org-acme/members', '', '/panx/orgs/org-acme/members'],
    ['/panx/co/acme', '?x=y', '/panx/co/acme/home?x=y'],
    ['/panx/co/acme/projects/featured', '', '/panx/projects/featured'],
    ['/panx/co/acme/tools', '?a=b&c=d', '/panx/tools?a=b&c=d'],
    // cohort browser: legacy and current paths → the cohort application path
    [`/panx/projects/${P}/cohortBrowser/record-1/somatic`, '?v=2', `/panx/cohort-browser/${P}/record-1/somatic?v=2`],
    [`/panx/cohortBrowser/${P}/record-1`, '', `/panx/cohort-browser/${P}/record-1`],
    // billing return keeps the query
    ['/panx/returnFromBilling', '?session_id=cs_1', '/panx/profile/alice/settings/billing?session_id=cs_1'],
    ['/panx/returnFromBilling', '?x=1', '/panx/login?returnTo=%2Fpanx%2FreturnFromBilling%3Fx%3D1', { userHandle: undefined }],
    // data transfer requests
    ['/panx/datarequests/dtr-1', '', '/panx/datarequests/dtr-1/info'],
    ['/panx/datarequests/dtr-1', '?from=mail', '/panx/datarequests/dtr-1/info?from=mail'],
    // try numbers
    [`/panx/projects/${P}/monitor/job/job-1/try/01`, '', `/panx/projects/${P}/monitor/job/job-1/try/1`],
    [`/panx/projects/${P}/monitor/job/job-1/try/000`, '', `/panx/projects/${P}/monitor/job/job-1/try/0`],
    [`/panx/projects/${P}/monitor/job/job-1/try/007/log`, '?t=1', `/panx/projects/${P}/monitor/job/job-1/try/7/log?t=1`],
    [`/panx/projects/${P}/monitor/job/job-1/try/abc`, '', `/panx/projects/${P}/monitor/job/job-1`],
    [`/panx/projects/${P}/monitor/job/job-1/try/-1`, '', `/panx/projects/${P}/monitor/job/job-1`],
    [`/panx/projects/${P}/monitor/job/job-1/try/1.5/inputs`, '', `/panx/projects/${P}/monitor/job/job-1/inputs`],
    [`/panx/projects/${P}/monitor/job/job-1/try/99999999999999999999`, '', `/panx/projects/${P}/monitor/job/job-1`],
    // flags and environment
    ['/panx/search', '', '/panx/home'],
    ['/panx/sandbox/buttons', '', '/panx/home'],
    ['/panx/sandbox/buttons', '', '/panx/home', { hostname: 'localhost' }],
    ['/panx/sandbox/buttons', '', '/panx/home', { isInternalStaff: true }],
    ['/panx/orgs/acme/view', '', '/panx/home'],
    // maintenance
    ['/panx/projects', '', '/panx/maintenance', { maintenance: true }],
    ['/panx/login', '', '/panx/maintenance', { maintenance: true }],
    ['/panx/maintenance', '', '/panx/home'],
  ])('%s%s → %s', (path, search, expected, overrides) => {
    const decision = resolveRoute(path, search, { ...ctx, ...overrides });
    expect(decision.kind).toBe('redirect');
    if (decision.kind === 'redirect') expect(decision.to).toBe(expected);
  });

  it.each<[string, string, RouteId, Partial<RouteContext>?]>([
    ['/panx/home', '', 'home'],
    ['/panx/login', '?returnTo=/panx/home', 'login'],
    ['/panx/maintenance', '', 'maintenance', { maintenance: true }],
    ['/panx/setup/2fa', '', 'setup2fa'],
    ['/panx/projects', '', 'projects'],
    ['/panx/projects/featured', '', 'projectsFeatured'],
    ['/panx/projects/partner/org-acme', '', 'projectsPartner'],
    [`/panx/projects/${P}/data/`, '', 'projectData'],
    [`/panx/projects/${P}/data`, '', 'projectData'],
    [`/panx/projects/${P}/data/folder/sub`, '', 'projectData'],
    [`/panx/projects/${P}/settings`, '', 'projectSettings'],
    [`/panx/projects/${P}/monitor`, '', 'projectMonitor'],
    [`/panx/projects/${P}/monitor/job/job-1`, '', 'executionDetails'],
    [`/panx/projects/${P}/monitor/analysis/analysis-1/tree`, '', 'executionDetails'],
    [`/panx/projects/${P}/monitor/job/job-1/try/0`, '', 'executionTry'],
    [`/panx/projects/${P}/monitor/job/job-1/try/12/log`, '', 'executionTry'],
    [`/panx/projects/${P}/visualize`, '', 'projectVisualize'],
    [`/panx/projects/${P}/visualize/igv`, '', 'projectVisualize'],
    [`/panx/projects/${P}/workflows/workflow-1`, '', 'workflowEditor'],
    [`/panx/projects/${P}/run/app-bwa/inputs`, '', 'projectToolRun'],
    [`/panx/projects/${P}/app-bwa`, '', 'projectToolDetails'],
    [`/panx/${P}/${F}/view`, '', 'fileViewer'],
    ['/panx/search', '', 'search', { flags: { enablePanxOmicsDataDiscoverySearch: true } }],
    ['/panx/data', '?class=file', 'dataCatalog'],
    ['/panx/data/datasets', '', 'datasetsCatalog'],
    ['/panx/orgs', '', 'orgs'],
    ['/panx/orgs/org-acme/settings', '', 'orgSettings'],
    ['/panx/orgs/org-acme/settings/policies', '', 'orgSettings'],
    ['/panx/orgs/org-acme/billing', '', 'orgBilling'],
    ['/panx/orgs/org-acme/billing/usage', '', 'orgBillingUsage'],
    ['/panx/orgs/org-acme/billing/usage/compute', '', 'orgBillingUsageType'],
    ['/panx/orgs/org-acme/projects', '', 'orgProjects'],
    ['/panx/orgs/org-acme/members', '', 'orgMembers'],
    ['/panx/orgs/org-acme/cloudIntegration', '', 'orgCloudIntegration'],
    ['/panx/orgs/org-acme/cloudIntegration/storageDrives', '', 'orgStorageDrives'],
    ['/panx/orgs/org-acme/tre', '', 'orgTreList'],
    ['/panx/orgs/org-acme/tre/tre-1', '', 'orgTre'],
    ['/panx/communities/acme/home', '', 'communityHome'],
    ['/panx/co/acme/home', '', 'coHome'],
    ['/panx/tools', '', 'tools'],
    ['/panx/tools/run/app-bwa', '', 'toolRun'],
    ['/panx/tools/workers/worker-1/logs', '', 'toolWorkers'],
    ['/panx/tools/import-workflow/step2', '', 'importWorkflow'],
    ['/panx/tool/app/app-bwa', '', 'toolDetails'],
    ['/panx/terminal', '', 'terminal'],
    ['/panx/terminal/session-1', '', 'terminal'],
    ['/panx/stencil/data/d1/x', '', 'stencilData'],
    ['/panx/stencil/session/s1', '', 'stencilSession'],
    ['/panx/stencil/other', '', 'stencil'],
    [`/panx/cohort-browser/${P}/record-1`, '', 'cohortBrowser'],
    ['/panx/associate', '', 'associate'],
    ['/panx/profile/alice/settings/accountSecurity', '', 'profileAccountSecurity'],
    ['/panx/profile/alice/settings/accountSecurity/apiTokens', '', 'profileAccountSecurity'],
    ['/panx/profile/alice/settings/billing', '', 'profileBilling'],
    ['/panx/profile/alice/settings/userAccount', '', 'profileUserAccount'],
    ['/panx/profile/alice/settings/userAccount/preferences/x', '', 'profileUserAccountSection'],
    ['/panx/datarequests', '', 'dataRequests'],
    ['/panx/datarequests/new', '', 'dataRequestNew'],
    ['/panx/datarequests/dtr-1/info', '', 'dataRequestInfo'],
    ['/panx/datarequests/dtr-1/data', '', 'dataRequestData'],
    ['/panx/executions/job-1', '', 'execution'],
    ['/panx/dataResources', '', 'dataResources'],
    ['/panx/dataResources/tre-1', '', 'dataResource'],
    ['/panx/dataResources/tre-1/description', '', 'dataResourceDescription'],
    ['/panx/dataResources/tre-1/showcase/record-1', '', 'dataResourceShowcase'],
    ['/panx/accessRequests', '', 'accessRequests'],
    ['/panx/accessRequests/reviews', '', 'accessRequestReviews'],
    ['/panx/accessRequests/ar-1', '', 'accessRequest'],
    ['/panx/accessRequests/ar-1/messages', '', 'accessRequestMessages'],
    ['/panx/accessRequests/ar-1/showcase/record-1', '', 'accessRequestShowcase'],
    ['/panx/sandbox/buttons', '', 'sandbox', { hostname: 'localhost', isInternalStaff: true }],
    ['/panx/sandbox', '', 'sandbox', { hostname: 'panx-staging.example.org', isInternalStaff: true }],
  ])('%s%s renders %s', (path, search, id, overrides) => {
    const decision = resolveRoute(path, search, { ...ctx, ...overrides });
    expect(decision.kind).toBe('render');
    if (decision.kind === 'render') expect(decision.route.id).toBe(id);
  });

  it('sets the community context only when the org is a community org and one of the user’s orgs', () => {
    const entitled = resolveRoute('/panx/communities/acme/projects', '', ctx);
    expect(entitled).toMatchObject({ kind: 'redirect', to: '/panx/projects', community: 'org-acme' });
    const notMember = resolveRoute('/panx/communities/beta/projects', '', ctx);
    expect(notMember).toMatchObject({ kind: 'redirect', to: '/panx/projects' });
    expect(notMember.kind === 'redirect' && notMember.community).toBeFalsy();
    const notCommunity = resolveRoute('/panx/co/org-other/projects', '', ctx);
    expect(notCommunity.kind === 'redirect' && notCommunity.community).toBeFalsy();
  });

  it('keeps parameters decoded', () => {
    const decision = resolveRoute('/panx/orgs/org-a%20b/members', '', ctx);
    expect(decision.kind === 'render' && decision.params.org).toBe('org-a b');
  });

  it('gives every route a unique id and a title', () => {
    expect(new Set(ROUTES.map((route) => route.id)).size).toBe(ROUTES.length);
    for (const route of ROUTES) expect(route.title.length).toBeGreaterThan(0);
  });

  it('hides the header on the association page only', () => {
    expect(ROUTES.filter((route) => route.hideHeader).map((route) => route.id)).toEqual(['associate']);
  });
});

describe('classifyTryNumber', () => {
  it.each([
    ['0', 'canonical'],
    ['1', 'canonical'],
    ['42', 'canonical'],
    ['00', 'non-canonical'],
    ['010', 'non-canonical'],
    ['', 'invalid'],
    ['-0', 'invalid'],
    ['+1', 'invalid'],
    ['1e3', 'invalid'],
    [' 1', 'invalid'],
    ['0x1', 'invalid'],
  ])('%j is %s', (value, kind) => {
    expect(classifyTryNumber(value).kind).toBe(kind);
  });
});

describe('matchPattern', () => {
  it.each<[string, string, Record<string, string> | undefined]>([
    ['/a/:b', '/a/x', { b: 'x' }],
    ['/a/:b', '/a', undefined],
    ['/a/:b?', '/a', {}],
    ['/a/:b?', '/a/x/y', undefined],
    ['/a/*', '/a', { '*': '' }],
    ['/a/*', '/a/x/y', { '*': 'x/y' }],
    ['/a', '/a/', {}],
  ])('%s ~ %s', (pattern, path, expected) => {
    expect(matchPattern(pattern, path)).toEqual(expected);
  });

  it('leaves file viewer matches to project ids', () => {
    expect(matchRoute(`/${P}/${F}/view`)?.route.id).toBe('fileViewer');
    expect(matchRoute('/orgs/acme/view')).toBeUndefined();
  });
});

describe('environment rules', () => {
  it.each([
    ['localhost', true],
    ['127.0.0.1', true],
    ['staging.panx.example.org', true],
    ['panx-staging.example.org', true],
    ['panx.example.org', false],
    ['notstaging.example.org', false],
  ])('sandbox host %s: %s', (host, expected) => {
    expect(isSandboxHost(host)).toBe(expected);
  });

  it('recognises internal staff by e-mail domain or administrator rights', () => {
    expect(isInternalStaff({ email: 'a@panx.dev' }, ['panx.dev'])).toBe(true);
    expect(isInternalStaff({ email: 'a@PANX.dev' }, ['panx.dev'])).toBe(true);
    expect(isInternalStaff({ email: 'a@example.org' }, ['panx.dev'])).toBe(false);
    expect(isInternalStaff({ admin: true }, [])).toBe(true);
    expect(isInternalStaff(undefined, ['panx.dev'])).toBe(false);
  });
});

describe('page helpers', () => {
  it.each([
    ['?viewer', true],
    ['?viewer=1&x=2', true],
    ['?x=viewer', false],
    ['', false],
  ])('viewer mode for %j: %s', (search, expected) => {
    expect(isViewerMode(search)).toBe(expected);
  });

  it.each([
    ['/panx/projects', true],
    ['/panx/projects/featured', true],
    ['/panx/projects/partner/org-x', true],
    [`/panx/projects/${P}/data/`, false],
    ['/panx/home', false],
  ])('project list path %s: %s', (path, expected) => {
    expect(isProjectListPath(path)).toBe(expected);
  });

  it.each([
    [`/panx/projects/${P}/data/`, '', 'Project Data page'],
    [`/panx/projects/${P}/data`, '', 'Project Data page'],
    [`/panx/projects/${P}/data/reads/raw`, '', 'Project Data page with params'],
    [`/panx/projects/${P}/data/`, '?scope=all', 'Project Data page with params'],
    [`/panx/projects/${P}/monitor`, '', 'Project Monitor page'],
    [`/panx/projects/${P}/monitor/job/job-1`, '', 'Execution Details page (job)'],
    [`/panx/projects/${P}/monitor/analysis/analysis-1/try/0`, '', 'Execution Details page (analysis)'],
    ['/panx/executions/job-1', '', 'Execution page'],
    ['/panx/home', '', undefined],
  ])('analytics kind of %s%s: %s', (path, search, expected) => {
    expect(analyticsPageKind(path, search)).toBe(expected);
  });

  it.each([
    ['/panx/projects?x=1', '/panx/projects?x=1'],
    [null, '/panx/home'],
    ['https://evil.example/panx/home', '/panx/home'],
    ['//evil.example', '/panx/home'],
    ['/panx/login?returnTo=/panx/home', '/panx/home'],
    ['/other', '/panx/home'],
  ])('return-to %j is %s', (value, expected) => {
    expect(safeReturnTo(value)).toBe(expected);
  });
});
