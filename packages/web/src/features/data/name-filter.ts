/**
 * Name filters of SPEC §5: plain text or a regular expression, matched case-insensitively. An invalid
 * regular expression logs an error and matches nothing.
 */
export type NameFilterMode = 'text' | 'regex';

export type NameMatcher = (name: string) => boolean;

export const matchNothing: NameMatcher = () => false;
export const matchEverything: NameMatcher = () => true;

/** A RegExp for the filter, or an Error for an invalid regular expression; undefined when empty. */
export function compileNameFilter(query: string, mode: NameFilterMode): RegExp | Error | undefined {
  if (query === '') return undefined;
  if (mode === 'text') return new RegExp(escapeRegExp(query), 'i');
  try {
    return new RegExp(query, 'i');
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

export function nameMatcher(query: string, mode: NameFilterMode, log: (message: string) => void = console.error): NameMatcher {
  const compiled = compileNameFilter(query, mode);
  if (compiled === undefined) return matchEverything;
  if (compiled instanceof Error) {
    log(`Invalid regular expression in the name filter: ${compiled.message}`);
    return matchNothing;
  }
  if (mode === 'text') {
    const needle = query.toLocaleLowerCase();
    return (name) => name.toLocaleLowerCase().includes(needle);
  }
  return (name) => compiled.test(name);
}

/** The `name` input of findDataObjects/findProjects for the filter; 'invalid' when nothing can match. */
export function serverNameFilter(query: string, mode: NameFilterMode): { regexp: string; flags: string } | 'invalid' | undefined {
  const compiled = compileNameFilter(query, mode);
  if (compiled === undefined) return undefined;
  if (compiled instanceof Error) return 'invalid';
  return { regexp: compiled.source, flags: 'i' };
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
