import fs from 'node:fs';
import { io } from '../io.js';
import os from 'node:os';
import path from 'node:path';
import { allOrFirstError, downloadFile, type FileDescribe, Limiter, silentProgress } from '@panx/client/transfer';
import { parseArgs } from '../args.js';
import { connect, readEnvironment } from '../environment.js';
import { describeInputFiles, inputDir, planInputFiles, readJobInput, unixFileName } from '../job-files.js';

const USAGE = `usage: dx-download-all-inputs [-h] [--except EXCLUDE] [--parallel] [--sequential]

Downloads all files that were supplied as inputs to the app. By convention, if an input parameter
"FOO" has value {"$dnanexus_link": "file-xxxx"} and filename INPUT.TXT, then the linked file will be
downloaded into the path $HOME/in/FOO/INPUT.TXT.

If an input is an array of files, then all files will be placed into numbered subdirectories under a
parent directory named for the input: $HOME/in/FOO/0/A.vcf, 1/B.vcf, ... Zero padding is used to
ensure argument order (00/ ... 11/ for 12 files).

  --except NAME   Do not download the input with this name (may be used multiple times)
  --parallel      Download the files in parallel
  --sequential    Download the files sequentially (the default)
`;

/** dxpy's choice: at most 8, one per core, and ~1.2 GB of memory each. */
export function parallelDownloads(max = 8): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(max, cores, Math.max(Math.floor(os.totalmem() / 2 ** 20 / 1200), 1)));
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, [
    { names: ['-h', '--help'], key: 'help', kind: 'flag' },
    { names: ['--except'], key: 'except', kind: 'list' },
    { names: ['--parallel'], key: 'parallel', kind: 'flag' },
    { names: ['--sequential'], key: 'parallel', kind: 'flag', negates: true },
  ]);
  if (args.flag('help')) {
    io().stdout.write(USAGE);
    return 0;
  }
  const environment = readEnvironment();
  const exclude = new Set(args.list('except'));
  const input = readJobInput(environment.home);
  const plan = planInputFiles(input);
  const idir = inputDir(environment.home);
  fs.mkdirSync(idir, { recursive: true });
  for (const dir of plan.dirs) if (!exclude.has(dir.split('/')[0] as string)) fs.mkdirSync(path.join(idir, dir), { recursive: true });
  const files = plan.files.filter((file) => !exclude.has(file.input));
  if (!files.length) return 0;

  const client = connect(environment, 'dx-download-all-inputs');
  const threads = args.flag('parallel') ? parallelDownloads() : 1;
  if (args.flag('parallel')) io().stderr.write(`Downloading files using ${threads} threads\n`);
  const limiter = new Limiter(threads);
  const describedFiles = await describeInputFiles(client, files, environment.defaultContainer);
  await allOrFirstError(
    files.map((file) =>
      limiter.run(async () => {
        const described = describedFiles.get(file.id) as FileDescribe & { project?: string };
        const target = path.join(idir, file.dir, unixFileName(described.name));
        io().stdout.write(`downloading file: ${file.id} to filesystem: ${target}\n`);
        await downloadFile(client, { id: file.id, project: described.project }, target, {
          overwrite: true,
          progress: silentProgress,
          described,
          signal: io().signal,
        });
      }),
    ),
  );
  return 0;
}
