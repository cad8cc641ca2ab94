/**
 * The Node (V8) options the server is meant to run with: `npm start` (scripts/start.mjs) and the
 * benches pass them, docs/OPERATIONS.md gives the command line, and the server warns at start when
 * one is missing. They cannot be set from inside the process: V8 reads them when it sets up the heap.
 *
 * --initial-old-space-size: node:http copies every request body chunk into a new buffer, so a large
 * upload allocates about 32 MiB of short-lived external memory between two scavenges. V8 counts that
 * memory against the old generation's allocation limit, which it keeps only about 30 % above the
 * live heap (27 MB → 36 MB here) when little is allocated on the JS heap. With that little room, a
 * full marking started after nearly every scavenge: 50–60 markings per 2 GiB upload, 30–40 % more
 * time. A floor of 128 MB for the limit leaves room for the buffers; the heap itself stays as small
 * (the limit is when the collector runs, not memory taken).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

/** Which of SERVER_NODE_FLAGS (by option name, any value) `execArgv` lacks. */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(execArgv.map(optionName));
  return SERVER_NODE_FLAGS.filter((flag) => !given.has(optionName(flag)));
}

/** `--initial-old-space-size=64` and `--initial_old_space_size` both name `initial-old-space-size`. */
function optionName(argument: string): string {
  return argument.replace(/^--/, '').replace(/=.*/s, '').replaceAll('_', '-');
}
