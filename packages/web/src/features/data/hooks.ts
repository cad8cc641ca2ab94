import { type InfiniteData, useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RouteInput } from '@panx/contract';
import { useCallback } from 'react';
import { api } from '../../lib/api';
import type { DateRange, FilterValue, PageFilterState, PropertyCondition } from './filters';
import { type NameFilterMode, serverNameFilter } from './name-filter';
import type { BrowserRow } from './table-options';

/** Objects in the first listFolder / findDataObjects call (first rows fast), then in each later one. */
export const FIRST_PAGE_OBJECTS = 1000;
export const NEXT_PAGE_OBJECTS = 5000;

const DESCRIBE_FIELDS = {
  fields: {
    id: true,
    name: true,
    class: true,
    state: true,
    size: true,
    tags: true,
    created: true,
    modified: true,
    folder: true,
    hidden: true,
    media: true,
    project: true,
    types: true,
  },
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function toObjectRow(projectId: string, id: string, describe: unknown): BrowserRow {
  const d = isRecord(describe) ? describe : {};
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  return {
    id,
    kind: 'object',
    name: typeof d.name === 'string' ? d.name : id,
    class: typeof d.class === 'string' ? d.class : (id.split('-')[0] ?? 'file'),
    state: typeof d.state === 'string' ? d.state : undefined,
    size: num(d.size),
    tags: list(d.tags),
    created: num(d.created),
    modified: num(d.modified),
    folder: typeof d.folder === 'string' ? d.folder : '/',
    hidden: d.hidden === true,
    media: typeof d.media === 'string' ? d.media : undefined,
    project: typeof d.project === 'string' ? d.project : projectId,
    types: list(d.types),
  };
}

export function folderRow(projectId: string, path: string): BrowserRow {
  return {
    id: path,
    kind: 'folder',
    name: path.slice(path.lastIndexOf('/') + 1),
    class: 'folder',
    tags: [],
    folder: path,
    hidden: false,
    project: projectId,
    types: [],
  };
}

export const foldersKey = (projectId: string) => ['project', projectId, 'folders'] as const;
export const listingKey = (projectId: string) => ['project', projectId, 'listing'] as const;

/** Every folder path of the project (for the tree). */
export function useFolderPaths(projectId: string) {
  return useQuery({
    queryKey: foldersKey(projectId),
    queryFn: async () => {
      const describe = await api().call('project-xxxx/describe', projectId, { fields: { folders: true } });
      return Array.isArray(describe.folders) ? describe.folders.filter((f): f is string => typeof f === 'string') : ['/'];
    },
    throwOnError: false,
  });
}

interface ObjectPage {
  rows: BrowserRow[];
  folders: string[];
  next: unknown;
}

/** One folder's objects, paged through listFolder (`limit`/`starting`); its subfolders come with the first page. */
export function useFolderListing(projectId: string, folder: string, options: { includeHidden: boolean; enabled: boolean }) {
  return useInfiniteQuery({
    queryKey: [...listingKey(projectId), 'folder', folder, options.includeHidden],
    enabled: options.enabled,
    initialPageParam: undefined as unknown,
    queryFn: async ({ pageParam }): Promise<ObjectPage> => {
      const result = await api().call('project-xxxx/listFolder', projectId, {
        folder,
        describe: DESCRIBE_FIELDS,
        limit: pageParam === undefined ? FIRST_PAGE_OBJECTS : NEXT_PAGE_OBJECTS,
        includeHidden: options.includeHidden,
        only: pageParam === undefined ? 'all' : 'objects',
        ...(pageParam !== undefined ? { starting: pageParam } : {}),
      });
      const folders = result.folders.map((entry) => (typeof entry === 'string' ? entry : entry[0]));
      return { rows: result.objects.map((object) => toObjectRow(projectId, object.id, object.describe)), folders, next: result.next ?? undefined };
    },
    getNextPageParam: (last) => (last.next === null || last.next === undefined ? undefined : last.next),
    throwOnError: false,
  });
}

export interface SearchInput {
  scope: 'folder' | 'project';
  folder: string;
  name?: { regexp: string; flags: string };
  class?: string;
  state?: string;
  tags?: string[];
  properties?: PropertyCondition[];
  created?: DateRange;
  includeHidden: boolean;
}

/** The findDataObjects input of a search (filters or the whole-project scope). */
export function searchRequest(projectId: string, input: SearchInput) {
  const range = (value: DateRange | undefined) =>
    value && (value.after !== undefined || value.before !== undefined)
      ? { ...(value.after !== undefined ? { after: value.after } : {}), ...(value.before !== undefined ? { before: value.before } : {}) }
      : undefined;
  const properties = input.properties?.filter((condition) => condition.key.trim() !== '');
  return {
    scope: { project: projectId, ...(input.scope === 'folder' ? { folder: input.folder, recurse: false } : { folder: '/', recurse: true }) },
    ...(input.name ? { name: input.name } : {}),
    ...(input.class ? { class: input.class as 'file' } : {}),
    ...(input.state ? { state: input.state as 'closed' } : {}),
    ...(input.tags?.length ? { tags: input.tags.length === 1 ? (input.tags[0] ?? '') : { $and: input.tags } } : {}),
    ...(properties?.length ? { properties: properties.length === 1 ? propertyFilter(properties[0]) : { $and: properties.map(propertyFilter) } } : {}),
    ...(range(input.created) ? { created: range(input.created) } : {}),
    visibility: input.includeHidden ? ('either' as const) : ('visible' as const),
  };
}

function propertyFilter(condition: PropertyCondition | undefined): Record<string, string | boolean> {
  if (!condition) return {};
  return { [condition.key.trim()]: condition.value === '' ? true : condition.value };
}

export function useObjectSearch(projectId: string, input: SearchInput, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: [...listingKey(projectId), 'search', input],
    enabled,
    initialPageParam: undefined as unknown,
    queryFn: async ({ pageParam }): Promise<ObjectPage> => {
      const result = await api().call('system/findDataObjects', {
        ...searchRequest(projectId, input),
        describe: DESCRIBE_FIELDS,
        limit: 1000,
        ...(pageParam !== undefined ? { starting: pageParam } : {}),
      } as RouteInput<'system/findDataObjects'>);
      return { rows: result.results.map((r) => toObjectRow(projectId, r.id, r.describe)), folders: [], next: result.next ?? undefined };
    },
    getNextPageParam: (last) => (last.next === null || last.next === undefined ? undefined : last.next),
    throwOnError: false,
  });
}

/** Filter values of the page → the search input (undefined when only the scope or nothing is set). */
export function searchFromFilters(page: PageFilterState, folder: string, includeHidden: boolean): SearchInput | 'invalid' {
  const values = page.filterValues;
  const text = (value: FilterValue) => (typeof value === 'string' ? value.trim() : '');
  const mode: NameFilterMode = values.nameMode === 'regex' ? 'regex' : 'text';
  const name = serverNameFilter(text(values.name), mode);
  if (name === 'invalid') return 'invalid';
  return {
    scope: page.scope.selectedScope,
    folder,
    ...(name ? { name } : {}),
    ...(text(values.class) ? { class: text(values.class) } : {}),
    ...(text(values.state) ? { state: text(values.state) } : {}),
    ...(Array.isArray(values.tags) && values.tags.length && typeof values.tags[0] === 'string' ? { tags: values.tags as string[] } : {}),
    ...(Array.isArray(values.properties) && values.properties.length && typeof values.properties[0] === 'object'
      ? { properties: values.properties as PropertyCondition[] }
      : {}),
    ...(isRecord(values.created) ? { created: values.created as DateRange } : {}),
    includeHidden,
  };
}

export function flattenPages(data: InfiniteData<ObjectPage> | undefined): { rows: BrowserRow[]; folders: string[] } {
  if (!data) return { rows: [], folders: [] };
  return { rows: data.pages.flatMap((page) => page.rows), folders: data.pages[0]?.folders ?? [] };
}

/** After a change: the listing and the folder tree of a project are fetched again. */
export function useRefreshProject() {
  const queryClient = useQueryClient();
  return useCallback(
    (projectId: string) =>
      Promise.all([queryClient.invalidateQueries({ queryKey: listingKey(projectId) }), queryClient.invalidateQueries({ queryKey: foldersKey(projectId) })]),
    [queryClient],
  );
}
