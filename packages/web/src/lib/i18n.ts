/** Languages the UI has strings for. */
export const SUPPORTED_LANGUAGES = ['en'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

/**
 * SPEC §9: the UI language comes from the browser, falling back to `en`. `navigator.languages` is tried
 * in order, first as given (`en-GB`), then by its primary subtag (`en`).
 */
export function resolveLanguage(preferred: readonly string[] | undefined, supported: readonly string[] = SUPPORTED_LANGUAGES): string {
  for (const tag of preferred ?? []) {
    const lower = tag.toLowerCase();
    const exact = supported.find((language) => language.toLowerCase() === lower);
    if (exact) return exact;
    const primary = supported.find((language) => language.toLowerCase() === lower.split('-')[0]);
    if (primary) return primary;
  }
  return 'en';
}
