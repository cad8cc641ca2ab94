import path from 'node:path';
import {
  type UploadResult,
  type UploadShared,
  type UploadTarget,
  uploadFile as uploadWithClient,
  waitUntilClosed as waitWithClient,
} from '@panx/client/transfer';
import { configDir, type Context } from '../session.js';

/**
 * `px upload` on the shared multipart upload of @panx/client/transfer, made resumable by a state
 * file per upload under `<config dir>/uploads` (see that module for the protocol).
 */

export { choosePartSize, MiB, planParts, type UploadParameters, type UploadResult, type UploadShared, type UploadTarget } from '@panx/client/transfer';

export interface UploadSettings {
  partSizeBytes: number;
  wait: boolean;
  tags: string[];
  properties: Record<string, string>;
}

/** Parts uploaded by this process; the test hook PANX_TEST_ABORT_AFTER_PARTS kills it after that many. */
let partsUploaded = 0;

function afterPartUploaded(): void {
  partsUploaded++;
  const limit = Number(process.env.PANX_TEST_ABORT_AFTER_PARTS);
  if (limit > 0 && partsUploaded >= limit) {
    process.stderr.write(`px: PANX_TEST_ABORT_AFTER_PARTS=${limit}: killing the upload\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

/** Polls until the file is closed (closing assembles the parts on the server). */
export function waitUntilClosed(ctx: Context, id: string, project: string, timeoutMs?: number): Promise<void> {
  return waitWithClient(ctx.client, id, project, timeoutMs);
}

/** Uploads (or finishes uploading) one local file and closes it. */
export function uploadFile(ctx: Context, localPath: string, target: UploadTarget, settings: UploadSettings, shared: UploadShared): Promise<UploadResult> {
  return uploadWithClient(ctx.client, localPath, target, { ...settings, stateDir: path.join(configDir(), 'uploads'), onPartSent: afterPartUploaded }, shared);
}
