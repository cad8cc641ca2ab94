import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { type QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { sessionStore } from '../features/auth/session';
import { createQueryClient } from './query-client';
import { buildRoutes } from './routes';
import { type Runtime, RuntimeProvider } from './runtime';

const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'sm',
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif",
  headings: { fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', 'Helvetica Neue', Arial, sans-serif" },
});

/** The app's query client: an expired or revoked token on any call ends the session; the shell then sends the user to sign in. */
export function createAppQueryClient(): QueryClient {
  return createQueryClient(() => sessionStore.end('expired'));
}

/** Providers: runtime configuration, Mantine, TanStack Query, React Router. */
export function App({ runtime, queryClient: given }: { runtime: Runtime; queryClient?: QueryClient }) {
  const [queryClient] = useState(() => given ?? createAppQueryClient());
  const [router] = useState(() => createBrowserRouter(buildRoutes()));
  return (
    <RuntimeProvider runtime={runtime}>
      <MantineProvider theme={theme} defaultColorScheme="light">
        <Notifications position="top-right" zIndex={9500} />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </MantineProvider>
    </RuntimeProvider>
  );
}
