import type { ComponentType } from 'react';
import { type RouteObject, useRouteError } from 'react-router';
import { ErrorView } from '../ui/ErrorView';
import { reportClientError } from './error-reporting';
import { type PageKey, ROUTES, routerPath } from './route-rules';
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
  communityHome: () => import('../features/communities/CommunityHomePage').then((module) => ({ Component: module.CommunityHomePage })),
  setup2fa: () => import('../features/two-factor/SetupTwoFactorPage').then((module) => ({ Component: module.SetupTwoFactorPage })),
  notAvailable: () => import('../features/placeholder/NotAvailablePage').then((module) => ({ Component: module.NotAvailablePage })),
};

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
