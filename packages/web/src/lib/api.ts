import { createClient, type PanxClient } from '@panx/client';

/**
 * The one API client of the web app. Its base URL comes from the runtime configuration (SPEC §7), so it
 * is created once the start-up sequence has finished; the session store keeps its token current.
 * Pages never call fetch: they use hooks built on this client.
 */
let client: PanxClient | undefined;

export function initApi(baseUrl: string, token: string | undefined): PanxClient {
  client = createClient({ baseUrl, token, retries: 0 });
  return client;
}

export function api(): PanxClient {
  if (!client) throw new Error('The API client is used before the start-up sequence finished');
  return client;
}

export function setApiToken(token: string | undefined): void {
  if (client) client.token = token;
}
