export * from './create-client.js';
export * from './errors.js';
