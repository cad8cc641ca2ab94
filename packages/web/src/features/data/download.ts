import { api } from '../../lib/api';
import { DOWNLOAD_URL_DURATION_S, ONE_TIME_URL_DURATION_S } from '../../lib/constants';

/**
 * Downloads one file in the browser. The URL is used at once, so it is a one-time URL of SPEC §9
 * (valid 90 s): one that leaks through the browser's history or a proxy log is soon worthless.
 */
export async function downloadInBrowser(fileId: string, project: string, name: string): Promise<void> {
  const { url } = await api().call('file-xxxx/download', fileId, { project, filename: name, duration: ONE_TIME_URL_DURATION_S });
  saveFromUrl(url, name);
}

/** Has the browser save what `url` answers (a download URL, or an object URL of generated text) as `name`. */
export function saveFromUrl(url: string, name: string): void {
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = name;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
}

/** A URL to copy into a script or hand on: the shared download duration of SPEC §9 (86,400 s). */
export async function sharedDownloadUrl(fileId: string, project: string, name: string): Promise<string> {
  const { url } = await api().call('file-xxxx/download', fileId, { project, filename: name, duration: DOWNLOAD_URL_DURATION_S });
  return url;
}
