import type { Command } from 'commander';
import { parseLevel } from '../contract.js';
import { CliError, UsageError } from '../errors.js';
import { formatTime, note, print, printJson, printTable, withJson } from '../output.js';
import { collectPages, resolveProject } from '../paths.js';
import { askSecret } from '../prompt.js';
import { connect } from '../session.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `alice` → `user-alice`. */
function userId(value: string): string {
  return value.startsWith('user-') ? value : `user-${value}`;
}

async function newPassword(): Promise<string> {
  const password = await askSecret('Password for the new user: ');
  if (process.stdin.isTTY && (await askSecret('Repeat the password: ')) !== password) throw new CliError('the passwords differ');
  return password;
}

interface NewUserOptions {
  username: string;
  email: string;
  first: string;
  middle?: string;
  last: string;
  password?: string;
  admin?: boolean;
  json?: boolean;
}

function registerUserCommands(admin: Command): void {
  const user = admin.command('user').description('create, list, disable and enable user accounts (administrators only)');

  withJson(
    user
      .command('new')
      .description('create a user account and print its ID')
      .requiredOption('--username <name>', 'handle: 3-64 lower-case letters, digits, "." and "_"')
      .requiredOption('--email <email>', 'e-mail address')
      .requiredOption('--first <name>', 'first name')
      .option('--middle <name>', 'middle name')
      .requiredOption('--last <name>', 'last name')
      .option('--password <password>', 'initial password, at least 8 characters (prompted for without echo when omitted)')
      .option('--admin', 'make the user an administrator')
      .action(async (options: NewUserOptions) => {
        const { client } = connect();
        const password = options.password ?? (await newPassword());
        const { id } = await client.call('user/new', {
          username: options.username,
          email: options.email,
          first: options.first,
          ...(options.middle ? { middle: options.middle } : {}),
          last: options.last,
          password,
          ...(options.admin ? { admin: true } : {}),
        });
        if (options.json) printJson({ id });
        else print(id);
      }),
  );

  withJson(
    user
      .command('list')
      .description('list user accounts')
      .option('--all', 'include disabled accounts')
      .action(async (options: { all?: boolean; json?: boolean }) => {
        const { client } = connect();
        const users = await collectPages((starting) =>
          client.call('system/findUsers', { describe: true, includeDisabled: Boolean(options.all), limit: 1000, ...(starting ? { starting } : {}) }),
        );
        if (options.json) return printJson(users.map((entry) => entry.describe ?? { id: entry.id }));
        printTable(
          ['ID', 'NAME', 'EMAIL', 'ADMIN', 'DISABLED'],
          users.map(({ id, describe }) => [
            id,
            describe?.fullName ?? [describe?.first, describe?.last].filter(Boolean).join(' '),
            describe?.email ?? '',
            describe?.admin ? 'yes' : 'no',
            describe?.disabled ? 'yes' : 'no',
          ]),
        );
      }),
  );

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    user
      .command(`${name} <user>`)
      .description(disabled ? 'disable an account: it can no longer sign in, and its tokens stop working' : 'enable a disabled account again')
      .action(async (value: string) => {
        const { client } = connect();
        const id = userId(value);
        await client.call('user-xxxx/update', id, { disabled });
        print(`${disabled ? 'Disabled' : 'Enabled'} ${id}`);
      });
  }
}

interface NewTokenOptions {
  label?: string;
  project: string[];
  level?: string;
  expires?: string;
  json?: boolean;
}

function registerTokenCommands(admin: Command): void {
  const token = admin.command('token').description('create, list and revoke your API tokens');

  withJson(
    token
      .command('new')
      .description('create an API token and print it (it is shown only once)')
      .option('--label <label>', 'what the token is for')
      .option('--project <project>', 'restrict the token to this project (repeatable)', collect, [])
      .option('--level <level>', 'with --project: the highest level the token gets there (VIEW, UPLOAD, CONTRIBUTE, ADMINISTER)')
      .option('--expires <days>', 'expire after this many days (default: never)')
      .action(async (options: NewTokenOptions) => {
        const { client } = connect();
        if (options.level && !options.project.length) throw new UsageError('--level needs --project');
        const level = (await parseLevel(options.level ?? 'VIEW', { grantable: true })) as 'VIEW' | 'UPLOAD' | 'CONTRIBUTE' | 'ADMINISTER';
        const projects: Record<string, typeof level> = {};
        for (const spec of options.project) projects[(await resolveProject(client, spec.replace(/:$/, ''))).id] = level;
        let expires: number | undefined;
        if (options.expires !== undefined) {
          const days = Number(options.expires);
          if (!(days > 0)) throw new UsageError('--expires is a positive number of days');
          expires = Date.now() + Math.round(days * 86_400_000);
        }
        const issued = await client.call('system/newAuthToken', {
          ...(options.label ? { label: options.label } : {}),
          ...(options.project.length ? { scope: { projects } } : {}),
          ...(expires ? { expires } : {}),
        });
        if (options.json) return printJson({ token: issued.access_token, id: issued.token_id, expires: issued.expires, user: issued.user_id });
        print(issued.access_token);
        note(`Created ${issued.token_id}; keep the token safe, it is not shown again`);
      }),
  );

  withJson(
    token
      .command('list')
      .description('list your tokens (never their secrets)')
      .option('--all', 'include expired tokens')
      .action(async (options: { all?: boolean; json?: boolean }) => {
        const { client } = connect();
        const { results } = await client.call('system/findAuthTokens', { includeExpired: Boolean(options.all) });
        if (options.json) return printJson(results);
        printTable(
          ['ID', 'KIND', 'LABEL', 'CREATED', 'EXPIRES', 'LAST USED', 'SCOPE'],
          results.map((entry) => [
            entry.id,
            entry.kind,
            entry.label,
            formatTime(entry.created),
            entry.expires - Date.now() > 50 * 365 * 86_400_000 ? 'never' : formatTime(entry.expires),
            formatTime(entry.lastUsed) || '-',
            entry.scope
              ? Object.entries(entry.scope.projects)
                  .map(([project, level]) => `${project}:${level}`)
                  .join(', ')
              : 'all',
          ]),
        );
      }),
  );

  token
    .command('revoke <tokenIds...>')
    .description('revoke tokens by ID (token-xxxx, see px admin token list)')
    .action(async (ids: string[]) => {
      const { client } = connect();
      for (const id of ids) {
        await client.call('system/destroyAuthToken', { tokenId: id });
        print(`Revoked ${id}`);
      }
    });
}

export function registerAdminCommands(program: Command): void {
  const admin = program.command('admin').description('administration: user accounts and API tokens');
  registerUserCommands(admin);
  registerTokenCommands(admin);
}
