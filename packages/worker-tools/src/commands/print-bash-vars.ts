import type { PanxClient } from '@panx/client';
import { io } from '../io.js';
import { parseArgs } from '../args.js';
import { bashVarsFor, formatBashVars } from '../bash-vars.js';
import { connect, readEnvironment } from '../environment.js';
import { executableSpec } from '../io-spec.js';
import { fileNamesFor, planInputFiles, readJobInput } from '../job-files.js';

const USAGE = `usage: dx-print-bash-vars [-h] [--input-spec FILE]

Parses $HOME/job_input.json and prints the bash variables that would be available in the execution
environment (for a file input X: X, X_name, X_prefix, X_path).

  --input-spec FILE   Read the inputSpec (for the patterns that shape X_prefix) from FILE, a
                      dxapp.json or a JSON list, instead of describing the job (Panx testing aid)
`;

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, [
    { names: ['-h', '--help'], key: 'help', kind: 'flag' },
    { names: ['--input-spec'], key: 'inputSpec', kind: 'value' },
  ]);
  if (args.flag('help')) {
    io().stdout.write(USAGE);
    return 0;
  }
  const environment = readEnvironment();
  const input = readJobInput(environment.home);
  let client: PanxClient | undefined;
  const api = () => {
    client ??= connect(environment, 'dx-print-bash-vars');
    return client;
  };
  const fileNames = planInputFiles(input).files.length ? await fileNamesFor(api(), input, environment.defaultContainer) : new Map<string, string>();
  const inputSpec = await executableSpec(api, environment, 'inputSpec', args.value('inputSpec'));
  const vars = bashVarsFor(input, inputSpec, {
    home: environment.home,
    fileNames,
    environment: io().env,
    onCollision: (name) => io().stderr.write(`Creating environment variable (${name}) would cause a name collision\n`),
  });
  io().stdout.write(formatBashVars(vars));
  return 0;
}
