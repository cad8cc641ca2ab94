/**
 * The data picker's rules: which objects of a folder it shows (the input's class, its `patterns`
 * unless the user shows everything, a name filter), which of them can be picked (closed objects), and
 * the selection (one object, or several for arrays).
 */
import { type DataRef, matchesPatterns } from './form-state';

export interface PickerObject {
  id: string;
  name: string;
  class: string;
  state?: string;
  project: string;
  folder: string;
}

export interface PickerFilter {
  /** The input's class: `file`, `record`, `applet`, `workflow` or `database`. */
  class: string;
  patterns: readonly string[];
  /** false: show names that match none of the patterns too. */
  usePatterns: boolean;
  /** Case-insensitive part of the name. */
  text: string;
}

export function visibleObjects<T extends PickerObject>(objects: readonly T[], filter: PickerFilter): T[] {
  const text = filter.text.trim().toLowerCase();
  return objects.filter(
    (object) =>
      object.class === filter.class &&
      (!filter.usePatterns || matchesPatterns(filter.patterns, object.name)) &&
      (!text || object.name.toLowerCase().includes(text)),
  );
}

/** Why an object cannot be picked (undefined: it can). */
export function pickBlocker(object: PickerObject): string | undefined {
  if (object.state && object.state !== 'closed') return `${object.name} is ${object.state}: only closed objects can be inputs`;
  return undefined;
}

/** Selecting an object: toggles it among several, or replaces the single choice. */
export function toggleSelection(selected: readonly DataRef[], object: PickerObject, multiple: boolean): DataRef[] {
  const ref: DataRef = { id: object.id, project: object.project, name: object.name };
  if (selected.some((item) => item.id === object.id)) return selected.filter((item) => item.id !== object.id);
  return multiple ? [...selected, ref] : [ref];
}

/** Breadcrumbs of a folder path: `/a/b` → [['/', 'root'], ['/a', 'a'], ['/a/b', 'b']]. */
export function folderCrumbs(folder: string, rootLabel: string): { path: string; label: string }[] {
  const parts = folder.split('/').filter(Boolean);
  return [{ path: '/', label: rootLabel }, ...parts.map((part, index) => ({ path: `/${parts.slice(0, index + 1).join('/')}`, label: part }))];
}
