import fs from 'node:fs';
import { io } from '../io.js';
import path from 'node:path';
import type { PanxClient } from '@panx/client';
import { allOrFirstError, Limiter, MiB, silentProgress, type UploadShared, uploadFile } from '@panx/client/transfer';
import { parseArgs } from '../args.js';
import { connect, readEnvironment, requireContainer } from '../environment.js';
import { ToolError } from '../errors.js';
import { writeFileAtomic } from '../file-lock.js';
import { type IoSpecItem, jobErrorPath, jobOutputPath, outputDir } from '../job-files.js';
import { dxLink, type JsonObject } from '../links.js';
import { updateOutputJson } from '../output-json.js';
import { pythonJson } from '../python-format.js';
import { executableSpec } from '../io-spec.js';

const USAGE = `usage: dx-upload-all-outputs [-h] [--except EXCLUDE] [--parallel] [--sequential] [--clearJSON CLEARJSON] [--output-spec FILE]

Uploads all files and subdirectories in the directory $HOME/out to the job's workspace, and adds
their links to $HOME/job_output.json. Only directories named after output fields are expected in
$HOME/out; the files in $HOME/out/FOO become the output FOO: one link for class file, a list for
array:file (and, for fields not in the outputSpec, one link or a list depending on the count).
Subdirectories of $HOME/out/FOO are uploaded whole: $HOME/out/FOO/BAR/XXX.TXT goes to /BAR/XXX.TXT.

  --except NAME        Do not upload the output with this name (may be used multiple times)
  --parallel           Upload the files in parallel
  --sequential         Upload the files sequentially (the default)
  --clearJSON VALUE    Clear job_output.json before adding the links
  --output-spec FILE   Read the outputSpec from FILE (a dxapp.json or a JSON list) instead of
                       describing the job and its applet (Panx testing aid)
`;

const MAX_PARALLEL_UPLOADS = 8;

interface OutputField {
  key: string;
  path: string;
  /** Files directly in out/<key>. */
  files: string[];
  /** Files under subfolders of out/<key>, relative to it. */
  deepFiles: string[];
  class?: string;
  links: JsonObject[];
}

/** Regular files and folders of a folder, leaving out hidden entries and symbolic links (as dxpy), sorted by name. */
function listFilesAndFolders(dir: string): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.') || entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) folders.push(entry.name);
    else if (entry.isFile()) files.push(entry.name);
  }
  return { files, folders };
}

function deepList(base: string, relative: string): string[] {
  const { files, folders } = listFilesAndFolders(path.join(base, relative));
  return [...files.map((file) => path.posix.join(relative, file)), ...folders.flatMap((folder) => deepList(base, path.posix.join(relative, folder)))];
}

function outputFields(odir: string): Map<string, OutputField> {
  const fields = new Map<string, OutputField>();
  if (!fs.existsSync(odir) || !fs.statSync(odir).isDirectory()) return fields;
  for (const key of listFilesAndFolders(odir).folders) {
    const dir = path.join(odir, key);
    const { files, folders } = listFilesAndFolders(dir);
    fields.set(key, { key, path: dir, files, deepFiles: folders.flatMap((folder) => deepList(dir, folder)), links: [] });
  }
  return fields;
}

/** As dxpy: report the error in job_error.json (AppInternalError) and exit 1. */
function reportError(home: string, message: string): ToolError {
  writeFileAtomic(jobErrorPath(home), `${pythonJson({ error: { type: 'AppInternalError', message } }, { indent: 4 })}\n`);
  return new ToolError(`AppError: ${message}`);
}

/** Checks the folders against the outputSpec and notes each one's class (compare_to_output_spec_and_annotate). */
function annotate(fields: Map<string, OutputField>, spec: IoSpecItem[], home: string): void {
  const check = (item: IoSpecItem, field: OutputField) => {
    field.class = item.class;
    const count = field.files.length + field.deepFiles.length;
    if (item.class === 'file' && count !== 1) throw reportError(home, `key ${item.name} is of class ${item.class} but there are ${count} files`);
  };
  for (const item of spec) {
    const field = fields.get(item.name);
    if (item.class === 'file' || item.class === 'array:file') {
      if (!field) io().stderr.write(`Warning: output key ${item.name} not generated\n`);
      else check(item, field);
    } else if (item.optional) {
      if (field) check(item, field);
    } else if (field) throw reportError(home, `key ${item.name} is of class ${item.class} but it appears in the output directory`);
  }
}

function mergedValue(output: JsonObject, field: OutputField, home: string): unknown {
  const previous = output[field.key];
  const before = previous === undefined ? [] : Array.isArray(previous) ? previous : [previous];
  if (field.class === undefined) {
    const all = [...before, ...field.links];
    return all.length === 1 ? all[0] : all;
  }
  if (field.class === 'array:file') return [...before, ...field.links];
  if (field.class === 'file' && field.links.length === 1) return field.links[0];
  throw reportError(home, `Type mismatch, key ${field.key} is of type ${field.class}, num_dxlinks=${field.links.length}`);
}

export async function run(argv: string[]): Promise<number> {
  const args = parseArgs(argv, [
    { names: ['-h', '--help'], key: 'help', kind: 'flag' },
    { names: ['--except'], key: 'except', kind: 'list' },
    { names: ['--parallel'], key: 'parallel', kind: 'flag' },
    { names: ['--sequential'], key: 'parallel', kind: 'flag', negates: true },
    { names: ['--clearJSON'], key: 'clearJSON', kind: 'value' },
    { names: ['--output-spec'], key: 'outputSpec', kind: 'value' },
  ]);
  if (args.flag('help')) {
    io().stdout.write(USAGE);
    return 0;
  }
  const environment = readEnvironment();
  const { home } = environment;
  let client: PanxClient | undefined;
  const api = () => {
    client ??= connect(environment, 'dx-upload-all-outputs');
    return client;
  };
  const exclude = new Set(args.list('except'));
  const spec = (await executableSpec(api, environment, 'outputSpec', args.value('outputSpec')))?.filter((item) => !exclude.has(item.name));
  const fields = outputFields(outputDir(home));
  for (const key of exclude) fields.delete(key);
  if (spec) annotate(fields, spec, home);

  const uploads: { field: OutputField; local: string; folder: string; display: string }[] = [];
  for (const field of fields.values()) {
    for (const file of field.files) uploads.push({ field, local: path.join(field.path, file), folder: '/', display: `/${file}` });
    for (const file of field.deepFiles) {
      const folder = `/${path.posix.dirname(file)}`;
      uploads.push({ field, local: path.join(field.path, file), folder, display: `/${file}` });
    }
  }
  if (uploads.length) {
    const container = requireContainer(environment);
    const shared: UploadShared = { parts: new Limiter(MAX_PARALLEL_UPLOADS), progress: silentProgress, parameters: new Map() };
    const files = new Limiter(args.flag('parallel') ? MAX_PARALLEL_UPLOADS : 1);
    const ids = await allOrFirstError(
      uploads.map((upload) =>
        files.run(async () => {
          const { id } = await uploadFile(
            api(),
            upload.local,
            { project: container, folder: upload.folder, name: path.basename(upload.local), parents: upload.folder !== '/' },
            { partSizeBytes: 16 * MiB, wait: true, properties: {} },
            shared,
          );
          io().stdout.write(`uploaded file ${upload.local} -> ${upload.display}\n`);
          return id;
        }),
      ),
    );
    // Links are added in the listing's order, whatever order the uploads finished in.
    uploads.forEach((upload, i) => {
      upload.field.links.push(dxLink(ids[i] as string));
    });
  }

  const file = jobOutputPath(home);
  await updateOutputJson(
    file,
    (existing) => {
      const output = args.value('clearJSON') ? {} : { ...existing };
      for (const field of fields.values()) if (field.links.length) output[field.key] = mergedValue(output, field, home);
      return output;
    },
    { trailingNewline: false },
  );
  return 0;
}
