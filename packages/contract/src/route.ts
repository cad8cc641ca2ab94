import type { z } from 'zod';

/**
 * One API route. Every call is `POST /<subject>/<method>`; the subject is `system`, a class name
 * (`/file/new`) or an entity id (`/file-xxxx/describe`). `path` names the route the way the
 * DNAnexus route table does (`project-xxxx/describe`), and is the key of the endpoint table.
 */
export interface RouteSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  path: string;
  kind: 'system' | 'class' | 'instance';
  /** For class and instance routes: the id class (`project`, `file`, `user`, ...). */
  entityClass?: string;
  method: string;
  input: I;
  output: O;
  summary: string;
  /** Set when the route is a Panx extension with no DNAnexus counterpart, saying why. */
  extension?: string;
  /** dxpy sends a nonce; a repeated nonce with the same body returns the first answer. */
  nonce?: boolean;
}

export function systemRoute<I extends z.ZodType, O extends z.ZodType>(
  method: string,
  spec: Omit<RouteSpec<I, O>, 'path' | 'kind' | 'method' | 'entityClass'>,
): RouteSpec<I, O> {
  return { ...spec, path: `system/${method}`, kind: 'system', method };
}

export function classRoute<I extends z.ZodType, O extends z.ZodType>(
  entityClass: string,
  method: string,
  spec: Omit<RouteSpec<I, O>, 'path' | 'kind' | 'method' | 'entityClass'>,
): RouteSpec<I, O> {
  return { ...spec, path: `${entityClass}/${method}`, kind: 'class', entityClass, method };
}

export function instanceRoute<I extends z.ZodType, O extends z.ZodType>(
  entityClass: string,
  method: string,
  spec: Omit<RouteSpec<I, O>, 'path' | 'kind' | 'method' | 'entityClass'>,
): RouteSpec<I, O> {
  return { ...spec, path: `${entityClass}-xxxx/${method}`, kind: 'instance', entityClass, method };
}
