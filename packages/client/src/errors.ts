/** An API call that the server answered with the DNAnexus error envelope. */
export class PanxApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: number,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = type;
  }
}

export function isApiError(error: unknown, type?: string): error is PanxApiError {
  return error instanceof PanxApiError && (type === undefined || error.type === type);
}
