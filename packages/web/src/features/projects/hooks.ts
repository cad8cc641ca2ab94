import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { projectsKey as homeProjectsKey } from '../home/hooks';
import { type ProjectRow, toProjectRow } from './project-list';

export const projectListKey = (scope: string) => ['projects', 'list', scope] as const;
export const projectKey = (id: string) => ['project', id] as const;

const LIST_FIELDS = {
  name: true,
  tags: true,
  permissions: true,
  created: true,
  modified: true,
  billTo: true,
  region: true,
  summary: true,
  containsPHI: true,
  dataUsage: true,
};

/** Every project the user can see (optionally billed to one org), paging through findProjects. */
export function useProjectRows(options: { billTo?: string; ids?: readonly string[]; enabled?: boolean } = {}) {
  const scope = options.ids ? `ids:${options.ids.join(',')}` : options.billTo ? `billTo:${options.billTo}` : 'all';
  return useQuery({
    queryKey: projectListKey(scope),
    enabled: options.enabled ?? true,
    queryFn: async () => {
      if (options.ids && options.ids.length === 0) return [];
      const rows: ProjectRow[] = [];
      let starting: unknown;
      do {
        const page = await api().call('system/findProjects', {
          describe: { fields: LIST_FIELDS },
          limit: 1000,
          ...(options.billTo ? { billTo: options.billTo } : {}),
          ...(options.ids ? { id: [...options.ids] } : {}),
          ...(starting !== undefined ? { starting } : {}),
        });
        rows.push(...page.results.map(toProjectRow));
        starting = page.next ?? undefined;
      } while (starting !== undefined && rows.length < 100_000);
      return rows;
    },
    throwOnError: false,
  });
}

export interface OrgSummary {
  id: string;
  name: string;
  level: string;
  billable: boolean;
  phiFeaturesEnabled: boolean;
  permittedRegions: string[];
  defaultRegion: string | undefined;
  restrictProjectTransfer: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function toOrgSummary(result: { id: string; level: string; describe?: unknown }): OrgSummary {
  const d = isRecord(result.describe) ? result.describe : {};
  const policies = isRecord(d.policies) ? d.policies : {};
  return {
    id: result.id,
    name: typeof d.name === 'string' && d.name ? d.name : result.id,
    level: result.level,
    billable: d.allowBillableActivities === true || result.level === 'ADMIN',
    phiFeaturesEnabled: d.phiFeaturesEnabled === true,
    permittedRegions: Array.isArray(d.permittedRegions) ? d.permittedRegions.filter((r): r is string => typeof r === 'string') : [],
    defaultRegion: typeof d.defaultRegion === 'string' ? d.defaultRegion : undefined,
    restrictProjectTransfer: typeof policies.restrictProjectTransfer === 'string' ? policies.restrictProjectTransfer : undefined,
  };
}

/** The user's orgs, described (billing rights, PHI features, permitted regions, transfer policy). */
export function useMyOrgs() {
  return useQuery({
    queryKey: ['orgs', 'mine'],
    queryFn: async () => {
      const page = await api().call('system/findOrgs', { describe: true, limit: 1000 });
      return page.results.map(toOrgSummary);
    },
    throwOnError: false,
  });
}

export type ProjectDescription = Record<string, unknown> & { id: string };

/** The whole project description (SPEC §3), with folders when asked. */
export function useProject(id: string, options: { folders?: boolean } = {}) {
  return useQuery({
    queryKey: [...projectKey(id), options.folders ? 'folders' : 'plain'],
    queryFn: async () =>
      (await api().call('project-xxxx/describe', id, options.folders ? { defaultFields: true, fields: { folders: true } } : {})) as ProjectDescription,
    throwOnError: false,
  });
}

export interface NewProjectInput {
  name: string;
  billTo?: string;
  region?: string;
  containsPHI?: boolean;
  restricted?: boolean;
  protected?: boolean;
  downloadRestricted?: boolean;
  externalUploadRestricted?: boolean;
}

export function useCreateProject() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: NewProjectInput) => api().call('project/new', { ...input, name: input.name.trim() }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      void queryClient.invalidateQueries({ queryKey: homeProjectsKey });
    },
  });
}

/** Project fields as typed values, tolerating missing ones. */
export const field = {
  str: (d: ProjectDescription | undefined, key: string): string | undefined => (typeof d?.[key] === 'string' ? (d[key] as string) : undefined),
  num: (d: ProjectDescription | undefined, key: string): number | undefined =>
    typeof d?.[key] === 'number' && Number.isFinite(d[key]) ? (d[key] as number) : undefined,
  bool: (d: ProjectDescription | undefined, key: string): boolean => d?.[key] === true,
  list: (d: ProjectDescription | undefined, key: string): string[] =>
    Array.isArray(d?.[key]) ? (d[key] as unknown[]).filter((v): v is string => typeof v === 'string') : [],
  record: (d: ProjectDescription | undefined, key: string): Record<string, unknown> => (isRecord(d?.[key]) ? (d[key] as Record<string, unknown>) : {}),
};
