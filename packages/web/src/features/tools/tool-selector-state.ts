/**
 * The tool selector's state (SPEC §3 "Tool selector: modal state, tools, titleFilter, selectedToolID,
 * appVersions, redirect") as a pure reducer, plus the selectors the component reads.
 */
import {
  type AppVersion,
  filterTools,
  offeredTools,
  pickAllowedVersion,
  type SelectedTool,
  sortTools,
  type Tool,
  type ToolClass,
  toolRunPath,
} from './tool-catalog';

export type SelectorModalState = 'closed' | 'open';

export interface ToolSelectorState {
  modal: SelectorModalState;
  /** The tools offered: the catalogue narrowed to the classes asked for and to the project's allowed executables. */
  tools: Tool[];
  titleFilter: string;
  /** A class filter inside the selector (null: every offered class). */
  classFilter: ToolClass | null;
  selectedToolID: string | null;
  /** The versions of the selected app that may be chosen (empty for applets and workflows). */
  appVersions: AppVersion[];
  /** The chosen version's id (apps). */
  selectedVersionID: string | null;
  /** Set on confirmation when the selector sends the user on (to the runner); the component navigates. */
  redirect: string | null;
}

export const initialToolSelectorState: ToolSelectorState = {
  modal: 'closed',
  tools: [],
  titleFilter: '',
  classFilter: null,
  selectedToolID: null,
  appVersions: [],
  selectedVersionID: null,
  redirect: null,
};

export type ToolSelectorAction =
  | { type: 'open' }
  | { type: 'close' }
  | {
      type: 'setTools';
      tools: readonly Tool[];
      /** The project's allowedExecutables (null/undefined: no restriction). */
      allowed?: readonly string[] | null;
      classes?: readonly ToolClass[];
    }
  | { type: 'setTitleFilter'; value: string }
  | { type: 'setClassFilter'; value: ToolClass | null }
  | { type: 'select'; toolID: string | null }
  | { type: 'move'; delta: 1 | -1 }
  | { type: 'selectVersion'; versionID: string }
  | { type: 'confirm'; redirect?: { project?: string } }
  | { type: 'redirected' };

function withSelection(state: ToolSelectorState, toolID: string | null): ToolSelectorState {
  const tool = toolID ? state.tools.find((t) => t.id === toolID) : undefined;
  if (!tool) return { ...state, selectedToolID: null, appVersions: [], selectedVersionID: null };
  if (tool.class !== 'app') return { ...state, selectedToolID: tool.id, appVersions: [], selectedVersionID: null };
  // Keep the chosen version when it is still offered; otherwise the tool's (allowed) default.
  const keep = state.selectedToolID === tool.id ? (state.selectedVersionID ?? undefined) : undefined;
  const version = pickAllowedVersion(tool.versions, keep ?? tool.version);
  return { ...state, selectedToolID: tool.id, appVersions: tool.versions, selectedVersionID: version?.id ?? null };
}

export function toolSelectorReducer(state: ToolSelectorState, action: ToolSelectorAction): ToolSelectorState {
  switch (action.type) {
    case 'open':
      return { ...state, modal: 'open', titleFilter: '', classFilter: null, redirect: null, selectedToolID: null, appVersions: [], selectedVersionID: null };
    case 'close':
      return { ...state, modal: 'closed' };
    case 'setTools': {
      const classes = action.classes && action.classes.length > 0 ? new Set(action.classes) : null;
      const tools = sortTools(offeredTools(action.tools, action.allowed).filter((tool) => classes === null || classes.has(tool.class)));
      // The selection follows the tool (by class and name for apps, whose id moves with the allowed version).
      const previous = state.tools.find((t) => t.id === state.selectedToolID);
      const same = previous
        ? tools.find((t) => t.class === previous.class && (t.class === 'app' ? t.name === previous.name : t.id === previous.id))
        : undefined;
      return withSelection({ ...state, tools }, same?.id ?? null);
    }
    case 'setTitleFilter': {
      const next = { ...state, titleFilter: action.value };
      // A selection hidden by the filter is dropped, so Enter never picks an invisible tool.
      return next.selectedToolID && !visibleTools(next).some((t) => t.id === next.selectedToolID) ? withSelection(next, null) : next;
    }
    case 'setClassFilter': {
      const next = { ...state, classFilter: action.value };
      return next.selectedToolID && !visibleTools(next).some((t) => t.id === next.selectedToolID) ? withSelection(next, null) : next;
    }
    case 'select':
      return withSelection(state, action.toolID);
    case 'move':
      return moveSelection(state, action.delta);
    case 'selectVersion':
      return state.appVersions.some((v) => v.id === action.versionID) ? { ...state, selectedVersionID: action.versionID } : state;
    case 'confirm': {
      const chosen = selectedTool(state);
      if (!chosen) return state;
      return { ...state, modal: 'closed', redirect: action.redirect ? toolRunPath(chosen.id, action.redirect.project) : null };
    }
    case 'redirected':
      return { ...state, redirect: null };
  }
}

/** The offered tools that match the title filter and class filter, by title. */
export function visibleTools(state: ToolSelectorState): Tool[] {
  return filterTools(state.tools, { text: state.titleFilter, category: null, toolClass: state.classFilter, favouritesOnly: false }, [], []);
}

/** What confirming would hand back: the selected tool at the selected version. */
export function selectedTool(state: ToolSelectorState): SelectedTool | null {
  const tool = state.tools.find((t) => t.id === state.selectedToolID);
  if (!tool) return null;
  if (tool.class !== 'app') return { id: tool.id, class: tool.class, name: tool.name, title: tool.title, ...(tool.project ? { project: tool.project } : {}) };
  const version = state.appVersions.find((v) => v.id === state.selectedVersionID);
  if (!version) return null;
  return { id: version.id, class: 'app', name: tool.name, title: tool.title, version: version.version };
}

/** Arrow-key movement through the visible tools (wraps around); selects the first one when none is. */
export function moveSelection(state: ToolSelectorState, delta: 1 | -1): ToolSelectorState {
  const visible = visibleTools(state);
  if (visible.length === 0) return state;
  const index = visible.findIndex((t) => t.id === state.selectedToolID);
  const next = index < 0 ? (delta > 0 ? 0 : visible.length - 1) : (index + delta + visible.length) % visible.length;
  return withSelection(state, visible[next]?.id ?? null);
}
