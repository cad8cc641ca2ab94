import { isApiError } from '@panx/client';

/**
 * A readable sentence for any error (never a blank page): the API's own message for API errors, an
 * explanation for network failures.
 */
export function describeError(error: unknown): string {
  if (isApiError(error)) {
    if (error.type === 'PermissionDenied') return `Permission denied: ${error.message}`;
    if (error.type === 'ResourceNotFound') return `Not found: ${error.message}`;
    return error.message || `The server answered ${error.status} (${error.type})`;
  }
  if (error instanceof TypeError && /fetch|network/i.test(error.message)) {
    return 'The server could not be reached. Check your connection and try again.';
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
