import type { z } from 'zod';
import type { RouteSpec } from './route.js';
import { authRoutes } from './routes/auth.js';
import { clientErrorRoutes } from './routes/client-errors.js';
import { communityRoutes } from './routes/communities.js';
import { dataObjectSystemRoutes, fileRoutes, recordRoutes } from './routes/data-objects.js';
import { executableRoutes } from './routes/executables.js';
import { executionRoutes } from './routes/jobs.js';
import { notificationRoutes } from './routes/notifications.js';
import { orgRoutes } from './routes/orgs.js';
import { projectRoutes } from './routes/projects.js';
import { supportRoutes } from './routes/support.js';
import { twoFactorRoutes } from './routes/two-factor.js';
import { uiConfigRoutes } from './routes/ui-config.js';
import { userRoutes } from './routes/users.js';
import { workflowAndAnalysisRoutes } from './routes/workflows.js';

/** THE route table: every implemented route, keyed by its path template. */
export const endpoints = {
  ...authRoutes,
  ...userRoutes,
  ...orgRoutes,
  ...projectRoutes,
  ...fileRoutes,
  ...recordRoutes,
  ...dataObjectSystemRoutes,
  ...executableRoutes,
  ...executionRoutes,
  ...workflowAndAnalysisRoutes,
  ...uiConfigRoutes,
  ...clientErrorRoutes,
  ...twoFactorRoutes,
  ...notificationRoutes,
  ...communityRoutes,
  ...supportRoutes,
} satisfies Record<string, RouteSpec>;

export type Endpoints = typeof endpoints;
export type RoutePath = keyof Endpoints;
export type RouteInput<P extends RoutePath> = z.input<Endpoints[P]['input']>;
export type RouteParsedInput<P extends RoutePath> = z.output<Endpoints[P]['input']>;
export type RouteOutput<P extends RoutePath> = z.output<Endpoints[P]['output']>;
export type InstanceRoutePath = { [P in RoutePath]: Endpoints[P]['kind'] extends 'instance' ? P : never }[RoutePath];

export function getRoute(path: string): RouteSpec | undefined {
  return (endpoints as Record<string, RouteSpec>)[path];
}
