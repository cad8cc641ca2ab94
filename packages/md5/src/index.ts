export {
  holdMd5Slot,
  isPageAligned,
  lentMd5Slots,
  MD5_SLOT_ALIGNMENT,
  MD5_SLOT_BYTES,
  type Md5Slot,
  pageAlignedBuffer,
  returnMd5Slot,
  takeMd5Slot,
  WorkerMd5,
} from './hasher.js';
export { type Md5Lane, md5Engine, md5Lanes } from './lanes.js';
