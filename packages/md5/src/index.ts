export { WorkerMd5 } from './hasher.js';
export { type Md5Lane, md5Engine, md5Lanes } from './lanes.js';
