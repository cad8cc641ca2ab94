// Node-only file transfer (multipart upload, resumable download), shared by the px CLI and the job
// helpers. Imported as `@panx/client/transfer`, so that the browser bundle never sees node:fs.
export * from './download.js';
export * from './limiter.js';
export * from './progress.js';
export * from './upload.js';
