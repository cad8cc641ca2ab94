import { ERROR_STATUS, type ErrorType } from '@panx/contract';

/** An error answered to the client with the DNAnexus envelope. Services throw these; nothing else reaches clients. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details?: unknown,
    /** Overrides the type's usual status where HTTP has a more precise one (413 for an oversized body). */
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_STATUS[type];
  }
}

export const invalidInput = (message: string, details?: unknown) => new ApiError('InvalidInput', message, details);
export const invalidState = (message: string) => new ApiError('InvalidState', message);
export const notFound = (message: string) => new ApiError('ResourceNotFound', message);
export const permissionDenied = (message: string) => new ApiError('PermissionDenied', message);
export const invalidAuthentication = (message: string) => new ApiError('InvalidAuthentication', message);
