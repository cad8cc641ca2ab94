import { lazy, Suspense } from 'react';
import { useLocation } from 'react-router';
import { isProjectListPath } from '../../app/route-rules';
import { useRuntime } from '../../app/runtime';
import { legalTermsOf, shouldShowLegalTerms, shouldShowUserInfo } from './dialog-rules';
import { useCurrentUser } from './hooks';

const LegalTermsDialog = lazy(() => import('./AccountDialogModals').then((module) => ({ default: module.LegalTermsDialog })));
const UserInfoDialog = lazy(() => import('./AccountDialogModals').then((module) => ({ default: module.UserInfoDialog })));

/** The legal-terms dialog (SPEC §5) first, then the user-info dialog (SPEC §6): at most one at a time. */
export function AccountDialogs() {
  const { config } = useRuntime();
  const { pathname } = useLocation();
  const user = useCurrentUser();
  const terms = legalTermsOf(config as Record<string, unknown>);
  if (!user.data) return null;
  const dialogUser = { ...user.data, sessionData: (user.data.sessionData ?? {}) as Record<string, unknown> };
  let dialog = null;
  if (terms && shouldShowLegalTerms(dialogUser, terms)) dialog = <LegalTermsDialog terms={terms} />;
  else if (shouldShowUserInfo(dialogUser, { isProjectListPage: isProjectListPath(pathname) })) dialog = <UserInfoDialog user={user.data} />;
  return dialog && <Suspense fallback={null}>{dialog}</Suspense>;
}
