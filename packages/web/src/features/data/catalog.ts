/**
 * The data catalogs (SPEC §2): `/panx/data` reads its filters from the query string; `/panx/data/datasets`
 * is fixed to records of type Dataset in state closed. Pure: query string ⇄ filters ⇄ findDataObjects input.
 */
import type { RouteInput } from '@panx/contract';
import { type NameFilterMode, serverNameFilter } from './name-filter';

export interface CatalogFilters {
  name: string;
  mode: NameFilterMode;
  class: string;
  project: string;
  tag: string;
  page: number;
}

export const CATALOG_PAGE_SIZE = 50;
/** One findDataObjects page: the catalog shows at most this many matches, in pages of 50. */
export const CATALOG_LIMIT = 1000;

export function catalogFilters(search: URLSearchParams): CatalogFilters {
  const page = Number(search.get('page') ?? '1');
  return {
    name: search.get('name') ?? '',
    mode: search.get('mode') === 'regex' ? 'regex' : 'text',
    class: search.get('class') ?? '',
    project: search.get('project') ?? '',
    tag: search.get('tag') ?? '',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The query string of the filters (empty values and page 1 left out, so URLs stay short). */
export function catalogSearch(filters: CatalogFilters): string {
  const params = new URLSearchParams();
  if (filters.name) params.set('name', filters.name);
  if (filters.mode === 'regex') params.set('mode', 'regex');
  if (filters.class) params.set('class', filters.class);
  if (filters.project) params.set('project', filters.project);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.page > 1) params.set('page', String(filters.page));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export type CatalogKind = 'data' | 'datasets';

/** The findDataObjects input; 'invalid' for an invalid regular expression (nothing matches). */
export function catalogRequest(kind: CatalogKind, filters: CatalogFilters): RouteInput<'system/findDataObjects'> | 'invalid' {
  const name = serverNameFilter(filters.name.trim(), filters.mode);
  if (name === 'invalid') return 'invalid';
  const base: RouteInput<'system/findDataObjects'> =
    kind === 'datasets' ? { class: 'record', type: 'Dataset', state: 'closed' } : filters.class ? { class: filters.class as 'file' } : {};
  return {
    ...base,
    ...(name ? { name } : {}),
    ...(filters.project ? { scope: { project: filters.project, folder: '/', recurse: true } } : {}),
    ...(filters.tag ? { tags: filters.tag } : {}),
    visibility: 'visible',
    limit: CATALOG_LIMIT,
  };
}
