// @panx/worker-tools as a library, for the job runner: the bash variables of a job's input, the
// helpers' layout of $HOME, and the helper host that runs a job's helper calls without a Node start each. The commands themselves are the bins (see README.md).
export { type BashVar, type BashVarsOptions, bashVarsFor, filePrefix, fnmatch, formatBashVars, LONG_BASH_VAR, splitExtension } from './bash-vars.js';
export {
  describeInputFile,
  fileNamesFor,
  type InputFile,
  type InputFilePlan,
  type IoSpecItem,
  inputDir,
  type JobInput,
  jobErrorPath,
  jobInputPath,
  jobOutputPath,
  outputDir,
  planInputFiles,
  unixFileName,
} from './job-files.js';
export { pythonFloatRepr, pythonJson, shellQuote } from './python-format.js';
export { type JobEnvironment, readEnvironment } from './environment.js';
export { type HelperHost, startHelperHost } from './host.js';
