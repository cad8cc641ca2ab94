import { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.js';
import { registerApiCommand } from './commands/api.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerDataCommands } from './commands/data.js';
import { registerFindCommands } from './commands/find.js';
import { registerJobCommands } from './commands/jobs.js';
import { registerMetadataCommands } from './commands/metadata.js';
import { registerProjectCommands } from './commands/projects.js';
import { registerTransferCommands } from './commands/transfer.js';
import { registerWorkflowCommands } from './commands/workflows.js';
import { CLI_VERSION } from './session.js';

/** The `px` command tree. Parse errors throw a CommanderError instead of exiting (see main.ts). */
export function buildProgram(): Command {
  const program = new Command('px')
    .description('Panx command-line client: data, projects and administration on a Panx (DNAnexus API v1 compatible) server')
    .version(CLI_VERSION, '-V, --version')
    // px's own options only before the command: `px build --app --version 1.2.0` is the app's version, as in `dx build`.
    .enablePositionalOptions()
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .addHelpText(
      'after',
      `
Paths are [project:]/folder/name, relative to the current folder (px cd) unless they start with "/" or name a project.
Settings: ~/.panx/config.json (PANX_CONFIG_DIR moves it); PANX_SERVER, PANX_TOKEN and PANX_PROJECT override it.`,
    );
  registerAuthCommands(program);
  registerProjectCommands(program);
  registerDataCommands(program);
  registerMetadataCommands(program);
  registerFindCommands(program);
  registerTransferCommands(program);
  registerJobCommands(program);
  registerWorkflowCommands(program);
  registerAdminCommands(program);
  registerApiCommand(program);
  return program;
}
