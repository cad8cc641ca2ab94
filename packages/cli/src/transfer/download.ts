import {
  type DownloadSource,
  describeFile as describeWithClient,
  downloadFile as downloadWithClient,
  downloadUrl as urlWithClient,
} from '@panx/client/transfer';
import type { Context } from '../session.js';
import type { Progress } from './progress.js';

/**
 * `px download` and `px cat` on the shared resumable download of @panx/client/transfer (see that
 * module for the protocol).
 */

export type { DownloadSource, FileDescribe } from '@panx/client/transfer';

/** Bytes written by this process; the test hook PANX_TEST_ABORT_AFTER_BYTES kills it after that many. */
let bytesWritten = 0;

function afterBytesWritten(count: number): void {
  bytesWritten += count;
  const limit = Number(process.env.PANX_TEST_ABORT_AFTER_BYTES);
  if (limit > 0 && bytesWritten >= limit) {
    process.stderr.write(`px: PANX_TEST_ABORT_AFTER_BYTES=${limit}: killing the download\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}

export function describeFile(ctx: Context, source: DownloadSource) {
  return describeWithClient(ctx.client, source);
}

/** A signed URL for the bytes; `Range` is added by the caller. */
export function downloadUrl(ctx: Context, source: DownloadSource) {
  return urlWithClient(ctx.client, source);
}

/** Downloads one closed file to `out` (resuming `<out>.part`), verifies it, then renames it into place. */
export function downloadFile(
  ctx: Context,
  source: DownloadSource,
  out: string,
  options: { overwrite: boolean; progress: Progress; directWrites?: boolean },
): Promise<void> {
  // px does nothing else meanwhile: synchronous writes are the cheapest.
  return downloadWithClient(ctx.client, source, out, { ...options, onBytesWritten: afterBytesWritten, syncWrites: true });
}
