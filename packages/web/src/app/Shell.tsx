import { Loader } from '@mantine/core';
import { useEffect, useMemo } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useCurrentUser } from '../features/auth/hooks';
import { useSession } from '../features/auth/session';
import { handleOf } from '../features/auth/session-store';
import { AccountDialogs } from '../features/auth/AccountDialogs';
import { SessionTimeout } from '../features/auth/SessionTimeout';
import { useStore } from '../lib/store';
import { ErrorView } from '../ui/ErrorView';
import { appState, setCommunity } from './app-state';
import { configureErrorReporting } from './error-reporting';
import { Footer } from './Footer';
import { Header } from './Header';
import { analyticsPageKind, isInternalStaff, isViewerMode, loginPath, type RouteContext, type RouteDecision, resolveRoute } from './route-rules';
import { useRuntime } from './runtime';
import classes from './Shell.module.css';

/**
 * The page wrapper (SPEC §2): applies the route rules on every navigation, guards pages that need a
 * signed-in user, and lays out header (45 + 3 px), page, footer (56 px) and page-level modals.
 */
export function Shell() {
  const location = useLocation();
  const { config } = useRuntime();
  const { session, endReason } = useSession();
  const user = useCurrentUser();
  const { rootError } = useStore(appState);

  const staffDomains = (config as { staffEmailDomains?: unknown }).staffEmailDomains;
  const ctx: RouteContext = useMemo(
    () => ({
      hostname: window.location.hostname,
      flags: config.flags,
      userHandle: session ? handleOf(session.userId) : undefined,
      isInternalStaff: isInternalStaff(user.data, Array.isArray(staffDomains) ? staffDomains.filter((d): d is string => typeof d === 'string') : []),
      communityOrgIds: config.communityPortalOrgIds,
      userOrgs: user.data?.orgs ?? [],
      maintenance: config.maintenanceWindow.active,
    }),
    [config, session, user.data, staffDomains],
  );

  useEffect(() => {
    const data = user.data;
    configureErrorReporting({
      signedIn: session !== null,
      names: data ? [data.first, data.middle, data.last, data.fullName, data.handle].filter((name): name is string => typeof name === 'string') : [],
    });
  }, [session, user.data]);

  const maintenance = config.maintenanceWindow.active;
  // Rules that depend on the user (sandbox, community context) wait for the user's description.
  if (session && user.isPending && !maintenance) return <FullPageLoader />;

  const decision = resolveRoute(location.pathname, location.search, ctx);
  if (decision.kind === 'redirect') return <Redirect decision={decision} />;

  const { route } = decision;
  if (!route.public && !session) {
    return <Navigate to={loginPath(location.pathname + location.search, endReason ?? undefined)} replace />;
  }

  const viewer = isViewerMode(location.search);
  const showHeader = !viewer && !route.hideHeader;
  const showFooter = !viewer;
  return (
    <div
      className={classes.shell}
      data-page-id={route.pageId}
      data-route-id={route.id}
      data-analytics-kind={analyticsPageKind(location.pathname, location.search)}
    >
      {showHeader && <Header />}
      <main className={classes.main} id="main">
        {rootError ? <ErrorView error={new Error(rootError.message)} /> : <Outlet />}
      </main>
      {showFooter && <Footer />}
      {/* Page-level modals */}
      {session && !maintenance && <SessionTimeout />}
      {session && !maintenance && <AccountDialogs />}
    </div>
  );
}

function Redirect({ decision }: { decision: Extract<RouteDecision, { kind: 'redirect' }> }) {
  const navigate = useNavigate();
  useEffect(() => {
    if (decision.community) setCommunity(decision.community);
    navigate(decision.to, { replace: true });
  }, [decision, navigate]);
  return <FullPageLoader />;
}

export function FullPageLoader() {
  return (
    <div className={classes.loader} role="status" aria-label="Loading">
      <Loader size="md" />
    </div>
  );
}
