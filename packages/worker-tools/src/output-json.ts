import fs from 'node:fs';
import { ToolError } from './errors.js';
import { withFileLock, writeFileAtomic } from './file-lock.js';
import { isObject, type JsonObject } from './links.js';
import { pythonJson } from './python-format.js';

/**
 * Read-modify-write of job_output.json under the lock that dx-jobutil-add-output and
 * dx-upload-all-outputs share, so that helpers run in parallel (`&` in a bash script) never lose
 * each other's fields. Written as dxpy does: json.dumps(..., indent=4).
 */
export async function updateOutputJson(file: string, change: (output: JsonObject) => JsonObject, options: { trailingNewline: boolean }): Promise<JsonObject> {
  return withFileLock(file, () => {
    let output: JsonObject = {};
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text.trim()) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new ToolError(`${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!isObject(parsed)) throw new ToolError(`${file} does not hold a JSON object`);
      output = parsed;
    }
    const next = change(output);
    writeFileAtomic(file, `${pythonJson(next, { indent: 4 })}${options.trailingNewline ? '\n' : ''}`);
    return next;
  });
}
