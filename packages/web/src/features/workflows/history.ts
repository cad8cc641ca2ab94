/**
 * Undo and redo (pure). An entry holds what was done and how to undo it, both computed when it was
 * applied; undoing moves an entry to the redo stack, a new edit clears that stack. The caller applies
 * the entries' steps (on the server) and only then commits the move, so a failed undo changes nothing.
 */
export interface HistoryEntry<Step> {
  label: string;
  forward: Step[];
  inverse: Step[];
}

export interface History<Step> {
  past: HistoryEntry<Step>[];
  future: HistoryEntry<Step>[];
}

/** Entries kept for undo; older ones are dropped. */
export const HISTORY_LIMIT = 100;

export function emptyHistory<Step>(): History<Step> {
  return { past: [], future: [] };
}

export function record<Step>(history: History<Step>, entry: HistoryEntry<Step>, limit = HISTORY_LIMIT): History<Step> {
  const past = [...history.past, entry];
  return { past: past.length > limit ? past.slice(past.length - limit) : past, future: [] };
}

export const canUndo = <Step>(history: History<Step>): boolean => history.past.length > 0;
export const canRedo = <Step>(history: History<Step>): boolean => history.future.length > 0;

/** What an undo would apply (the last entry's inverse), without changing the history. */
export function peekUndo<Step>(history: History<Step>): HistoryEntry<Step> | undefined {
  return history.past[history.past.length - 1];
}

export function peekRedo<Step>(history: History<Step>): HistoryEntry<Step> | undefined {
  return history.future[history.future.length - 1];
}

/** The history once the last entry has been undone. */
export function undone<Step>(history: History<Step>): History<Step> {
  const entry = peekUndo(history);
  if (!entry) return history;
  return { past: history.past.slice(0, -1), future: [...history.future, entry] };
}

/**
 * The history once the next entry has been redone. `entry` replaces it when the redo was recomputed
 * (its inverse depends on the workflow it was applied to).
 */
export function redone<Step>(history: History<Step>, entry?: HistoryEntry<Step>): History<Step> {
  const next = peekRedo(history);
  if (!next) return history;
  return { past: [...history.past, entry ?? next], future: history.future.slice(0, -1) };
}

/** Which key press is undo or redo: Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z and Ctrl+Y. */
export function historyKey(event: { key: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }): 'undo' | 'redo' | undefined {
  if (event.altKey || !(event.ctrlKey || event.metaKey)) return undefined;
  const key = event.key.toLowerCase();
  if (key === 'z') return event.shiftKey ? 'redo' : 'undo';
  if (key === 'y' && event.ctrlKey && !event.shiftKey) return 'redo';
  return undefined;
}
