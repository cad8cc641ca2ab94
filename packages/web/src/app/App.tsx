import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { QueryClientProvider } from '@tanstack/react-query';
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

/** Providers: runtime configuration, Mantine, TanStack Query, React Router. */
export function App({ runtime }: { runtime: Runtime }) {
  // An expired or revoked token on any call ends the session; the shell then sends the user to sign in.
  const [queryClient] = useState(() => createQueryClient(() => sessionStore.end('expired')));
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
