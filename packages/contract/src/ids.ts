import { z } from 'zod';

/** The 32 characters DNAnexus draws object ids from (no vowels, so ids never spell words). */
export const ID_ALPHABET = '0123456789BFGJKPQVXYZbfgjkpqvxyz';
export const ID_LENGTH = 24;

/** Classes whose ids are `<class>-` + 24 hash characters. */
export const HASH_ID_CLASSES = ['project', 'container', 'file', 'record', 'applet', 'workflow', 'analysis', 'job', 'database', 'dbcluster', 'stage'] as const;
export type HashIdClass = (typeof HASH_ID_CLASSES)[number];

/** Data object classes (live in projects and containers, have per-container metadata). */
export const DATA_OBJECT_CLASSES = ['file', 'record', 'applet', 'workflow', 'database'] as const;
export type DataObjectClass = (typeof DATA_OBJECT_CLASSES)[number];

/** Handle-named classes: `user-alice`, `org-acme`, `app-bwa_mem`. */
export const HANDLE_PATTERN = /^[a-z0-9][a-z0-9._]{2,63}$/;

const hashBody = '[0-9A-Za-z]{24}';

export function hashIdPattern(cls: HashIdClass): RegExp {
  return new RegExp(`^${cls}-${hashBody}$`);
}

export function isHashId(value: string, cls?: HashIdClass): boolean {
  if (cls) return hashIdPattern(cls).test(value);
  const dash = value.indexOf('-');
  if (dash < 0) return false;
  const prefix = value.slice(0, dash);
  return (HASH_ID_CLASSES as readonly string[]).includes(prefix) && new RegExp(`^${hashBody}$`).test(value.slice(dash + 1));
}

/** The class part of an id (`file-xxxx` → `file`), or undefined for something that is not an id. */
export function classOfId(value: string): string | undefined {
  const match = /^([a-z]+)-/.exec(value);
  return match?.[1];
}

export const projectIdSchema = z.string().regex(hashIdPattern('project'), 'expected a project ID (project-xxxx)');
export const containerIdSchema = z.string().regex(/^(project|container)-[0-9A-Za-z]{24}$/, 'expected a project or container ID');
export const userIdSchema = z.string().regex(/^user-[a-z0-9][a-z0-9._]*$/, 'expected a user ID (user-xxxx)');
export const orgIdSchema = z.string().regex(/^org-[a-z0-9][a-z0-9._]*$/, 'expected an org ID (org-xxxx)');
export const billToSchema = z.string().regex(/^(user|org)-[a-z0-9][a-z0-9._]*$/, 'expected a user or org ID');
export const dataObjectIdSchema = z.string().regex(/^(file|record|applet|workflow|database)-[0-9A-Za-z]{24}$/, 'expected a data object ID');
