import { parseArgs } from '../args.js';
import { io } from '../io.js';
import { homeDir } from '../environment.js';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../file-lock.js';
import { jobErrorPath } from '../job-files.js';
import { pythonJson } from '../python-format.js';

const USAGE = `usage: dx-jobutil-report-error [-h] message [{AppInternalError,AppError}]

Creates job_error.json in your home directory, a JSON file to include the error type and message
for the running job, and exits with code 1. AppError (the default) is for recognized actionable
errors, AppInternalError for unexpected application errors.
`;

export function run(argv: string[]): number {
  const args = parseArgs(argv, [{ names: ['-h', '--help'], key: 'help', kind: 'flag' }]);
  if (args.flag('help')) {
    io().stdout.write(USAGE);
    return 0;
  }
  const [message, type = 'AppError', ...extra] = args.positionals;
  if (message === undefined || extra.length) throw new UsageError('usage: dx-jobutil-report-error [-h] message [{AppInternalError,AppError}]');
  if (type !== 'AppError' && type !== 'AppInternalError')
    throw new UsageError(`argument type: invalid choice: '${type}' (choose from 'AppInternalError', 'AppError')`);
  writeFileAtomic(jobErrorPath(homeDir()), `${pythonJson({ error: { type, message } }, { indent: 4 })}\n`);
  io().stderr.write('Exiting with nonzero exit code to report error\n');
  return 1;
}
