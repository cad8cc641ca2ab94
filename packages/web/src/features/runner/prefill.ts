/**
 * How other pages hand inputs to the runner. Two ways, both documented in the README:
 * - `?from=job-xxxx` or `?from=analysis-xxxx`: the runner describes that execution and starts from its
 *   `runInput` (and its name, folder, tags and project);
 * - navigation state `{ runInput, name?, folder?, tags?, project? }` (React Router's `state`), for a
 *   page that already holds the inputs (the monitor's "open the inputs in the runner").
 */

export interface Prefill {
  /** Where the values come from: an execution ID, or `state` for navigation state. */
  source: string;
  runInput: unknown;
  name?: string;
  folder?: string;
  tags?: string[];
  project?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The prefill carried by navigation state, if it carries one. */
export function prefillFromState(state: unknown): Prefill | undefined {
  if (!isRecord(state) || !isRecord(state.runInput)) return undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const tags = Array.isArray(state.tags) ? state.tags.filter((tag): tag is string => typeof tag === 'string') : undefined;
  const name = text(state.name);
  const folder = text(state.folder);
  const project = text(state.project);
  return {
    source: text(state.source) ?? 'state',
    runInput: state.runInput,
    ...(name ? { name } : {}),
    ...(folder ? { folder } : {}),
    ...(tags ? { tags } : {}),
    ...(project ? { project } : {}),
  };
}

/** The `source` of inputs carried over from the same tool's form at another version. */
export const VERSION_SWITCH_SOURCE = 'version-switch';

/** What the form holds, carried to another version of the tool so that nothing typed is lost. */
export interface RunnerDraft {
  runInput: Record<string, unknown>;
  name: string;
  folder: string;
  tags: string[];
}

/**
 * The navigation state for switching to another version: the page's state with the form's inputs and
 * settings (read back by prefillFromState), without the notice of an earlier automatic switch.
 */
export function versionSwitchState(current: unknown, draft: RunnerDraft | undefined): Record<string, unknown> {
  const { switchedFrom: _notice, ...kept } = isRecord(current) ? current : {};
  return draft ? { ...kept, ...draft, source: VERSION_SWITCH_SOURCE } : kept;
}

/** The runner's path for a tool, with the inputs of an earlier execution (what "re-run" links to). */
export function runnerPath(toolId: string, options: { project?: string; from?: string } = {}): string {
  const base = options.project ? `/panx/projects/${options.project}/run/${toolId}` : `/panx/tools/run/${toolId}`;
  return options.from ? `${base}?from=${encodeURIComponent(options.from)}` : base;
}

/** Where the new execution's page is (the monitor's route). */
export function executionPath(project: string, id: string): string {
  return `/panx/projects/${project}/monitor/${id.startsWith('analysis-') ? 'analysis' : 'job'}/${id}`;
}
