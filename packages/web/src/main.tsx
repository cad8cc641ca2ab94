import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app/global.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createAppQueryClient } from './app/App';
import { boot } from './app/boot';
import { configureErrorReporting, installGlobalErrorHandlers, reportClientError } from './app/error-reporting';
import { preloadPage } from './app/routes';
import { currentUserQuery } from './features/auth/hooks';
import { sessionStore } from './features/auth/session';
import { SESSION_KEY } from './features/auth/session-store';
import { initApi, setApiToken } from './lib/api';
import { resolveLanguage } from './lib/i18n';

/** Start-up (SPEC §7): boot sequence, then the app, the error page or the maintenance page. */
async function start(): Promise<void> {
  const language = resolveLanguage(navigator.languages);
  document.documentElement.lang = language;

  // The page's chunk downloads while the start-up calls run.
  preloadPage(window.location.pathname, sessionStore.getSnapshot().session !== null);

  const result = await boot({
    fetch: window.fetch.bind(window),
    origin: window.location.origin,
    host: window.location.host,
    token: sessionStore.getSnapshot().session?.token,
  });
  if (result.kind === 'error-page') {
    window.location.replace(result.url);
    return;
  }

  initApi(result.apiBaseUrl, sessionStore.getSnapshot().session?.token);
  sessionStore.subscribe(() => {
    const { session } = sessionStore.getSnapshot();
    setApiToken(session?.token);
    configureErrorReporting({ signedIn: session !== null });
  });
  window.addEventListener('storage', (event) => {
    if (event.key === SESSION_KEY || event.key === null) sessionStore.syncFromStorage();
  });
  configureErrorReporting({
    signedIn: sessionStore.getSnapshot().session !== null,
    release: result.manifest.version,
    development: import.meta.env.DEV,
  });
  installGlobalErrorHandlers();

  // The shell waits for the signed-in user's description; ask for it now, while the page's chunk loads.
  const queryClient = createAppQueryClient();
  const restored = sessionStore.getSnapshot().session;
  if (restored) void queryClient.prefetchQuery(currentUserQuery(restored.userId));

  const root = document.getElementById('root');
  if (!root) throw new Error('index.html has no #root element');
  createRoot(root, {
    onUncaughtError: (error) => reportClientError('render', error),
  }).render(
    <StrictMode>
      <App runtime={{ config: result.config, manifest: result.manifest, apiBaseUrl: result.apiBaseUrl, language }} queryClient={queryClient} />
    </StrictMode>,
  );
}

start().catch((error: unknown) => {
  // A loading screen with an error logs it and shows an error view (SPEC §8).
  console.error('[panx] start-up failed', error);
  const root = document.getElementById('root');
  if (root) root.textContent = `Panx could not start: ${error instanceof Error ? error.message : String(error)}`;
});
