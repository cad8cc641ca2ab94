import type { ComponentType } from 'react';
import { type RouteObject, useRouteError } from 'react-router';
import { ErrorView } from '../ui/ErrorView';
import { reportClientError } from './error-reporting';
import { matchRoute, type PageKey, ROUTES, routerPath, stripBase } from './route-rules';
import { FullPageLoader, Shell } from './Shell';

type PageModule = () => Promise<{ Component: ComponentType }>;

/** Every page is its own chunk, loaded when its route is first visited (SPEC §2: pages load on demand). */
const PAGES: Record<PageKey, PageModule> = {
  login: () => import('../features/auth/LoginPage').then((module) => ({ Component: module.LoginPage })),
  maintenance: () => import('./MaintenancePage').then((module) => ({ Component: module.MaintenancePage })),
  home: () => import('../features/home/HomePage').then((module) => ({ Component: module.HomePage })),
  profileSettings: () => import('../features/profile/ProfileSettingsPage').then((module) => ({ Component: module.ProfileSettingsPage })),
  projects: () => import('../features/projects/ProjectsPage').then((module) => ({ Component: module.ProjectsPage })),
  projectData: () => import('../features/data/DataPage').then((module) => ({ Component: module.DataPage })),
  projectSettings: () => import('../features/projects/ProjectSettingsPage').then((module) => ({ Component: module.ProjectSettingsPage })),
  fileViewer: () => import('../features/viewer/FileViewerPage').then((module) => ({ Component: module.FileViewerPage })),
  dataCatalog: () => import('../features/data/CatalogPage').then((module) => ({ Component: module.DataCatalogPage })),
  datasetsCatalog: () => import('../features/data/CatalogPage').then((module) => ({ Component: module.DatasetsCatalogPage })),
  communityHome: () => import('../features/communities/CommunityHomePage').then((module) => ({ Component: module.CommunityHomePage })),
  setup2fa: () => import('../features/two-factor/SetupTwoFactorPage').then((module) => ({ Component: module.SetupTwoFactorPage })),
  toolLibrary: () => import('../features/tools/ToolLibraryPage').then((module) => ({ Component: module.ToolLibraryPage })),
  toolDetails: () => import('../features/tools/ToolDetailsPage').then((module) => ({ Component: module.ToolDetailsPage })),
  toolRunner: () => import('../features/runner/ToolRunnerPage').then((module) => ({ Component: module.ToolRunnerPage })),
  workflowEditor: () => import('../features/workflows/WorkflowEditorPage').then((module) => ({ Component: module.WorkflowEditorPage })),
  importWorkflow: () => import('../features/workflows/ImportWorkflowPage').then((module) => ({ Component: module.ImportWorkflowPage })),
  executionsList: () => import('../features/monitor/ExecutionsPage').then((module) => ({ Component: module.ExecutionsPage })),
  executionDetails: () => import('../features/monitor/ExecutionDetailsPage').then((module) => ({ Component: module.ExecutionDetailsPage })),
  notAvailable: () => import('../features/placeholder/NotAvailablePage').then((module) => ({ Component: module.NotAvailablePage })),
};

/**
 * Starts loading the chunk of the page at `pathname` (with the /panx base) before the start-up sequence
 * ends, so that it downloads while the configuration is fetched; the router later finds it loaded.
 * Pages that need a signed-in user are preloaded only when a session is stored.
 */
export function preloadPage(pathname: string, signedIn: boolean): void {
  const matched = matchRoute(stripBase(pathname) ?? '');
  if (!matched || (!matched.route.public && !signedIn)) return;
  PAGES[matched.route.page]().catch(() => {
    // The router loads it again and reports a failure where it can show it.
  });
}

/** A page that failed to render: reported, and the error page shown inside the shell. */
function PageError() {
  const error = useRouteError();
  reportOnce(error);
  return <ErrorView error={error} />;
}

const reported = new WeakSet<object>();
function reportOnce(error: unknown) {
  if (typeof error === 'object' && error !== null) {
    if (reported.has(error)) return;
    reported.add(error);
  }
  reportClientError('render', error);
}

export function buildRoutes(): RouteObject[] {
  return [
    {
      id: 'root',
      path: '/',
      element: <Shell />,
      errorElement: <PageError />,
      HydrateFallback: FullPageLoader,
      children: [
        ...ROUTES.map(
          (route): RouteObject => ({
            id: route.id,
            path: routerPath(route),
            lazy: PAGES[route.page],
            errorElement: <PageError />,
          }),
        ),
        // Anything else: the shell's rules redirect it (unknown → /panx/home).
        { id: 'unknown', path: '*', element: null },
      ],
    },
  ];
}
