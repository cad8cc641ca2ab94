/** Parse a JSON column; columns are written by this code, so a parse failure is a bug worth surfacing. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}
