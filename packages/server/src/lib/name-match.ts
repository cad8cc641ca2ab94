import type { NameFilter, PropertiesFilter, TagsFilter } from '@panx/contract';
import { invalidInput } from '../errors.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** DNAnexus globs know `*` and `?` only. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const char of glob) {
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`, 's');
}

/** The literal text before the first wildcard: lets the database narrow a glob with an index. */
export function globPrefix(glob: string): string {
  const cut = glob.search(/[*?]/);
  return cut < 0 ? glob : glob.slice(0, cut);
}

export interface NameMatcher {
  test(name: string): boolean;
  /** Exact name, when the filter is one (lets the database use equality). */
  exact?: string;
  /** Literal prefix every match starts with, for an index range. */
  prefix?: string;
  /** The glob, when the filter is one with wildcards (lets the database test it, db/sql-helpers.ts). */
  glob?: string;
}

export function nameMatcher(filter: NameFilter): NameMatcher {
  if (typeof filter === 'string') return { test: (name) => name === filter, exact: filter };
  if ('glob' in filter) {
    const regexp = globToRegExp(filter.glob);
    const prefix = globPrefix(filter.glob);
    if (prefix === filter.glob) return { test: (name) => name === prefix, exact: prefix };
    return { test: (name) => regexp.test(name), prefix, glob: filter.glob };
  }
  let regexp: RegExp;
  try {
    regexp = new RegExp(filter.regexp, filter.flags ?? '');
  } catch (error) {
    throw invalidInput(`Invalid regular expression in "name.regexp": ${(error as Error).message}`);
  }
  return { test: (name) => regexp.test(name) };
}

export function matchesTags(tags: readonly string[], filter: TagsFilter): boolean {
  if (typeof filter === 'string') return tags.includes(filter);
  if ('$and' in filter) return filter.$and.every((part) => matchesTags(tags, part));
  return filter.$or.some((part) => matchesTags(tags, part));
}

/** `{k: "v"}` needs the value; `{k: true}` needs the key; `$and`/`$or` compose. */
export function matchesProperties(properties: Record<string, string>, filter: PropertiesFilter): boolean {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value)) throw invalidInput(`"properties.${key}" must be an array of property filters`);
      const results = value.map((part) => matchesProperties(properties, part));
      if (key === '$and' ? !results.every(Boolean) : !results.some(Boolean)) return false;
      continue;
    }
    if (value === true) {
      if (!(key in properties)) return false;
    } else if (value === false) {
      if (key in properties) return false;
    } else if (typeof value === 'string') {
      if (properties[key] !== value) return false;
    } else {
      throw invalidInput(`"properties.${key}" must be a string or a boolean`);
    }
  }
  return true;
}
