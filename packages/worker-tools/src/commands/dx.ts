import { UsageError } from '../errors.js';
import { io } from '../io.js';

/**
 * `dx`, the subset of the DNAnexus CLI that applet scripts call most. Inside a job (DX_JOB_ID set)
 * paths resolve in the workspace (DX_WORKSPACE_ID) and new objects go there; outside one, in
 * DX_PROJECT_CONTEXT_ID.
 */

const SUBCOMMANDS: Record<string, () => Promise<{ run: (argv: string[]) => Promise<number> }>> = {
  download: () => import('../dx/download.js'),
  upload: () => import('../dx/upload.js'),
  cat: () => import('../dx/cat.js'),
  describe: () => import('../dx/describe.js'),
  ls: () => import('../dx/ls.js'),
  mkdir: () => import('../dx/mkdir.js'),
  find: () => import('../dx/find.js'),
  api: () => import('../dx/api.js'),
};

const USAGE = `usage: dx <command> [args...]

The dx commands a Panx job can run (a subset of DNAnexus's dx):
  download <path|id>... [-o PATH] [-f] [-r] [-a]   download files (or folders with -r)
  upload <file>... [--brief] [--path PATH] [-p]    upload files (into the workspace inside a job)
  cat <path|id>...                                 print the contents of files
  describe <path|id> [--json]                      describe a data object, project, job...
  ls [-l] [--brief] [path]                         list a folder
  mkdir [-p] <path>...                             create folders
  find data [--name N] [--class C] [--json] ...    find data objects
  api <subject> <method> [JSON]                    call any API route
Run "dx <command> -h" for the options of a command.
`;

export async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io().stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  const load = SUBCOMMANDS[command];
  if (!load) throw new UsageError(`"dx ${command}" is not available in Panx jobs (available: ${Object.keys(SUBCOMMANDS).join(', ')})`);
  return (await load()).run(rest);
}
