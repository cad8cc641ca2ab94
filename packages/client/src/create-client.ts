import type { RouteInput, RouteOutput, RoutePath } from '@panx/contract';
import { PanxApiError } from './errors.js';

export interface ClientOptions {
  /** API server root, e.g. `http://localhost:8080`. */
  baseUrl: string;
  token?: string;
  /** Retries for 5xx answers and network errors (dxpy retries up to 6 times). */
  retries?: number;
  fetch?: typeof fetch;
  userAgent?: string;
}

// Instance routes are keyed `<class>-xxxx/<method>`; the key says it (the specs' `kind` is typed as the whole union).
type CallArgs<P extends RoutePath> = P extends `${string}-xxxx/${string}` ? [id: string, input?: RouteInput<P>] : [input?: RouteInput<P>];

export interface PanxClient {
  readonly baseUrl: string;
  token: string | undefined;
  /** Typed call of a route of the contract: `call('project-xxxx/describe', projectId, {fields})`. */
  call<P extends RoutePath>(path: P, ...args: CallArgs<P>): Promise<RouteOutput<P>>;
  /** Untyped call of any route, as `px api` does: `post('file-xxxx', 'describe', {})`. */
  post(subject: string, method: string, body?: unknown): Promise<unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createClient(options: ClientOptions): PanxClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 3;

  async function post(subject: string, method: string, body: unknown = {}): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'DNAnexus-API': '1.0.0' };
    if (client.token) headers.authorization = `Bearer ${client.token}`;
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    const url = `${baseUrl}/${subject}/${method}`;
    let attempt = 0;
    for (;;) {
      let response: Response;
      try {
        response = await doFetch(url, { method: 'POST', headers, body: JSON.stringify(body ?? {}) });
      } catch (error) {
        // Aborted by the caller: not a network failure to retry.
        if ((error as Error).name === 'AbortError' || attempt++ >= retries) throw error;
        await sleep(250 * 2 ** attempt);
        continue;
      }
      const text = await response.text();
      if (response.ok) return text.length ? JSON.parse(text) : {};
      if (response.status >= 500 && attempt++ < retries) {
        await sleep(250 * 2 ** attempt);
        continue;
      }
      let envelope: { error?: { type?: string; message?: string; details?: unknown } } = {};
      try {
        envelope = JSON.parse(text);
      } catch {
        // not JSON: reported below with the raw status
      }
      throw new PanxApiError(
        envelope.error?.type ?? 'InternalError',
        envelope.error?.message ?? `HTTP ${response.status} from ${subject}/${method}`,
        response.status,
        envelope.error?.details,
      );
    }
  }

  const client: PanxClient = {
    baseUrl,
    token: options.token,
    post,
    call(path, ...args) {
      const [subjectTemplate, method] = (path as string).split('/') as [string, string];
      if (subjectTemplate.endsWith('-xxxx')) {
        const [id, input] = args as [string, unknown];
        return post(id, method, input ?? {}) as never;
      }
      const [input] = args as [unknown];
      return post(subjectTemplate, method, input ?? {}) as never;
    },
  };
  return client;
}
