import { isApiError } from '@panx/client';
// The zod-free constants: the whole contract costs every px command about 90 ms to load.
import { OTP_REQUIRED } from '@panx/contract/two-factor';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { note, print, printFields, printJson, withJson } from '../output.js';
import { ask, askSecret } from '../prompt.js';
import { configPath, connect, loadConfig, loadSession, makeClient, type SavedConfig, saveConfig } from '../session.js';

export function normalizeServer(url: string): string {
  const trimmed = url.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(trimmed)) throw new UsageError(`"${url}" is not a server URL: expected http://host:port or https://host`);
  return trimmed;
}

function maskToken(token: string | undefined): string | undefined {
  if (!token) return undefined;
  return token.length <= 8 ? '****' : `${token.slice(0, 4)}…${token.slice(-4)}`;
}

async function handleOf(client: ReturnType<typeof makeClient>, userId: string): Promise<string> {
  if (!userId.startsWith('user-')) return userId;
  try {
    const user = await client.call('user-xxxx/describe', userId, { fields: { handle: true } });
    return user.handle ?? userId.slice(5);
  } catch {
    return userId.slice(5);
  }
}

interface LoginOptions {
  server?: string;
  token?: string;
  username?: string;
  password?: string;
  otp?: string;
}

export function registerAuthCommands(program: Command): void {
  program
    .command('login')
    .description('sign in to a Panx server and save the server and token in the config file (mode 600)')
    .option('--server <url>', 'API server, e.g. http://localhost:8080 (default: PANX_SERVER or the saved one)')
    .option('--token <token>', 'sign in with an API token (px admin token new, or the web app)')
    .option('--username <name>', 'sign in with a username and password')
    .option('--password <password>', 'the password (prompted for without echo when omitted)')
    .option('--otp <code>', 'the code of your authenticator app, or a backup code, for an account with two-factor authentication (prompted for when needed)')
    .action(async (options: LoginOptions) => {
      const saved = loadConfig();
      const serverOption = options.server ?? process.env.PANX_SERVER ?? saved.server;
      if (!serverOption) throw new UsageError('give the server: px login --server URL (--token T | --username U)');
      const server = normalizeServer(serverOption);
      if (options.token && options.username) throw new UsageError('give either --token or --username, not both');
      if (!options.token && !options.username) throw new UsageError('give --token TOKEN, or --username NAME to sign in with a password');

      let token: string;
      let tokenKind: SavedConfig['tokenKind'];
      let userId: string;
      if (options.token) {
        token = options.token;
        tokenKind = 'api';
        ({ id: userId } = await makeClient(server, token).call('system/whoami', {}));
      } else {
        const password = options.password ?? (await askSecret(`Password for ${options.username}: `));
        if (!password) throw new UsageError('no password given');
        const anonymous = makeClient(server, undefined);
        const signIn = (otp?: string) => anonymous.call('system/newAuthToken', { username: options.username as string, password, ...(otp ? { otp } : {}) });
        const issued = await signIn(options.otp).catch(async (error: unknown) => {
          // Two-factor accounts: the password was right and the server asks for the code; ask once.
          if (options.otp || !(isApiError(error, 'InvalidAuthentication') && (error.details as { reason?: string } | undefined)?.reason === OTP_REQUIRED)) {
            throw error;
          }
          const otp = (await ask('One-time code from your authenticator app (or a backup code): ')).trim();
          if (!otp) throw new UsageError('no one-time code given');
          return signIn(otp);
        });
        token = issued.access_token;
        tokenKind = 'session';
        userId = issued.user_id;
      }
      const handle = await handleOf(makeClient(server, token), userId);
      // Keep the selected project only when the same user signs in again to the same server.
      const sameAccount = saved.server === server && saved.userId === userId;
      saveConfig({
        server,
        token,
        tokenKind,
        userId,
        username: handle,
        ...(sameAccount ? { project: saved.project, projectName: saved.projectName, cwd: saved.cwd } : {}),
      });
      if (process.env.PANX_TOKEN) note('note: PANX_TOKEN is set and takes precedence over the saved token');
      print(`Logged in to ${server} as ${handle}`);
    });

  program
    .command('logout')
    .description('forget the saved token; a session token (from a password login) is also revoked on the server')
    .option('--revoke', 'revoke the token on the server even when it is an API token')
    .action(async (options: { revoke?: boolean }) => {
      const saved = loadConfig();
      if (!saved.token || !saved.server) {
        note('not logged in');
        return;
      }
      if (saved.tokenKind === 'session' || options.revoke) {
        try {
          await makeClient(saved.server, saved.token).call('system/destroyAuthToken', {});
        } catch (error) {
          // An expired or already revoked token is as logged out as it gets.
          if (!isApiError(error, 'InvalidAuthentication')) throw error;
        }
      }
      saveConfig({ server: saved.server });
      print(`Logged out of ${saved.server}`);
    });

  program
    .command('whoami')
    .description('print the username you are signed in as')
    .option('--id', 'print the user ID instead (user-xxxx)')
    .action(async (options: { id?: boolean }) => {
      const { client } = connect();
      const { id } = await client.call('system/whoami', {});
      print(options.id ? id : await handleOf(client, id));
    });

  withJson(
    program
      .command('env')
      .description('show the server, user, project and folder in use, and where each setting comes from')
      .action((options: { json?: boolean }) => {
        const session = loadSession();
        const values = {
          server: session.server,
          user: session.username,
          userId: session.userId,
          token: maskToken(session.token),
          tokenKind: session.token ? session.tokenKind : undefined,
          project: session.project,
          projectName: session.projectName,
          cwd: session.project ? session.cwd : undefined,
          configFile: configPath(),
          sources: session.sources,
        };
        if (options.json) return printJson(values);
        printFields([
          ['API server', session.server ? `${session.server}${session.sources.server === 'env' ? '  (PANX_SERVER)' : ''}` : '(none: run px login)'],
          ['User', session.username ?? session.userId],
          ['Token', values.token ? `${values.token}${session.sources.token === 'env' ? '  (PANX_TOKEN)' : ` (${session.tokenKind ?? 'api'})`}` : '(none)'],
          [
            'Project',
            session.project
              ? `${session.projectName ?? ''} (${session.project})${session.sources.project === 'env' ? '  (PANX_PROJECT)' : ''}`
              : '(none: run px select)',
          ],
          ['Current folder', values.cwd],
          ['Config file', values.configFile],
        ]);
      }),
  );
}
