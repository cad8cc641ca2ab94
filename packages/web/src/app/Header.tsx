import { Link, NavLink, useLocation, useNavigate, useNavigation } from 'react-router';
import { useCurrentUser, useSignOut } from '../features/auth/hooks';
import { useSession } from '../features/auth/session';
import { handleOf } from '../features/auth/session-store';
import { CommunityMark } from '../features/communities/CommunityMark';
import { NotificationBell } from '../features/notifications/NotificationBell';
import { useStore } from '../lib/store';
import { DropdownDivider, DropdownItem, DropdownLabel, DropdownMenu } from '../ui/DropdownMenu';
import { useNarrow } from '../ui/use-narrow';
import { appState } from './app-state';
import classes from './Header.module.css';
import { useRuntime } from './runtime';

const NAV = [
  { to: '/panx/home', label: 'Home' },
  { to: '/panx/projects', label: 'Projects' },
  { to: '/panx/tools', label: 'Tools' },
  { to: '/panx/data', label: 'Data' },
  { to: '/panx/orgs', label: 'Orgs' },
];

/** The main header (SPEC §2): 45 px plus a 3 px border; below 768 px the navigation folds into a menu. */
export function Header() {
  const narrow = useNarrow();
  const { config } = useRuntime();
  // No sign-in link on the sign-in page itself, nor during maintenance (nobody can sign in then).
  const hideSignIn = useLocation().pathname === '/panx/login' || config.maintenanceWindow.active;
  const { session } = useSession();
  const user = useCurrentUser();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const { community } = useStore(appState);
  const handle = session ? handleOf(session.userId) : undefined;
  const settings = handle ? `/panx/profile/${encodeURIComponent(handle)}/settings` : undefined;
  const displayName = user.data?.fullName?.trim() || handle || '';

  const onSignOut = async () => {
    await signOut();
    navigate('/panx/login?reason=signed-out', { replace: true });
  };

  return (
    <header className={classes.header} data-narrow={narrow || undefined}>
      {navigation.state === 'loading' && <div className={classes.progress} role="progressbar" aria-label="Loading page" />}
      <Link to="/panx/home" className={classes.brand} aria-label="Panx home">
        <span className={classes.logo} aria-hidden="true">
          P
        </span>
        <span>Panx</span>
      </Link>
      {community && session && <CommunityMark orgId={community} />}
      {session && !narrow && (
        <nav className={classes.nav} aria-label="Main">
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to} className={classes.navLink}>
              {item.label}
            </NavLink>
          ))}
        </nav>
      )}
      <div className={classes.spacer} />
      {session && narrow && (
        <DropdownMenu label="Navigation" align="right" size="s" trigger={<span className={classes.burger}>☰</span>}>
          {NAV.map((item) => (
            <DropdownItem key={item.to} to={item.to}>
              {item.label}
            </DropdownItem>
          ))}
        </DropdownMenu>
      )}
      {session && <NotificationBell />}
      {session && settings && (
        <DropdownMenu
          label="Account menu"
          align="right"
          size="m"
          trigger={
            <>
              <span className={classes.avatar} aria-hidden="true">
                {(displayName || '?').slice(0, 1).toUpperCase()}
              </span>
              {!narrow && <span className={classes.userName}>{displayName}</span>}
              <span aria-hidden="true">▾</span>
            </>
          }
        >
          <DropdownLabel>
            Signed in as <strong>{handle}</strong>
          </DropdownLabel>
          <DropdownDivider />
          <DropdownItem to={`${settings}/userAccount`}>Profile</DropdownItem>
          <DropdownItem to={`${settings}/accountSecurity`}>Account security</DropdownItem>
          <DropdownItem to={`${settings}/accountSecurity/apiTokens`}>API tokens</DropdownItem>
          <DropdownItem to={`${settings}/billing`}>Billing</DropdownItem>
          <DropdownDivider />
          <DropdownItem onClick={() => void onSignOut()} danger>
            Sign out
          </DropdownItem>
        </DropdownMenu>
      )}
      {!session && !hideSignIn && (
        <Link to="/panx/login" className={classes.navLink}>
          Sign in
        </Link>
      )}
    </header>
  );
}
