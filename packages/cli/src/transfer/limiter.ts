// The transfer code lives in @panx/client/transfer (shared with the job helpers of @panx/worker-tools).
export { allOrFirstError, Limiter, sleep } from '@panx/client/transfer';
