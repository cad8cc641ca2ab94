import { describe, expect, it } from 'vitest';
import type { Tool } from './tool-catalog';
import {
  initialToolSelectorState,
  selectedTool,
  type ToolSelectorAction,
  type ToolSelectorState,
  toolSelectorReducer,
  visibleTools,
} from './tool-selector-state';

const versions = [
  { id: 'app-v2', version: '2.0.0', aliases: [], created: 2, published: true },
  { id: 'app-v1', version: '1.0.0', aliases: ['default'], created: 1, published: true },
];
const tools: Tool[] = [
  { id: 'app-v1', class: 'app', name: 'bwa_mem', title: 'BWA-MEM', summary: 'align', categories: [], version: '1.0.0', versions, created: 1, modified: 1 },
  {
    id: 'applet-1',
    class: 'applet',
    name: 'qc',
    title: 'Quality control',
    summary: '',
    categories: [],
    versions: [],
    project: 'project-a',
    created: 1,
    modified: 1,
  },
  { id: 'workflow-1', class: 'workflow', name: 'germline', title: 'Germline variants', summary: '', categories: [], versions: [], created: 1, modified: 1 },
];

const run = (...actions: ToolSelectorAction[]): ToolSelectorState => actions.reduce(toolSelectorReducer, initialToolSelectorState);

describe('tool selector state (SPEC §3)', () => {
  it('opens with an empty filter and no selection, and closes', () => {
    const open = run({ type: 'setTools', tools }, { type: 'setTitleFilter', value: 'x' }, { type: 'select', toolID: 'applet-1' }, { type: 'open' });
    expect(open).toMatchObject({ modal: 'open', titleFilter: '', selectedToolID: null, redirect: null });
    expect(toolSelectorReducer(open, { type: 'close' }).modal).toBe('closed');
  });

  it('lists the tools by title, narrowed to the classes asked for', () => {
    expect(run({ type: 'setTools', tools }).tools.map((t) => t.title)).toEqual(['BWA-MEM', 'Germline variants', 'Quality control']);
    expect(run({ type: 'setTools', tools, classes: ['app', 'applet'] }).tools.map((t) => t.id)).toEqual(['app-v1', 'applet-1']);
  });

  it('filters by title and class, dropping a selection the filter hides', () => {
    let state = run({ type: 'open' }, { type: 'setTools', tools }, { type: 'select', toolID: 'applet-1' });
    state = toolSelectorReducer(state, { type: 'setTitleFilter', value: 'germ' });
    expect(visibleTools(state).map((t) => t.id)).toEqual(['workflow-1']);
    expect(state.selectedToolID).toBeNull();
    state = run({ type: 'setTools', tools }, { type: 'setClassFilter', value: 'app' });
    expect(visibleTools(state).map((t) => t.id)).toEqual(['app-v1']);
  });

  it('selecting an app offers its versions with the default chosen; another version can be picked', () => {
    let state = run({ type: 'setTools', tools }, { type: 'select', toolID: 'app-v1' });
    expect(state.appVersions.map((v) => v.id)).toEqual(['app-v2', 'app-v1']);
    expect(selectedTool(state)).toEqual({ id: 'app-v1', class: 'app', name: 'bwa_mem', title: 'BWA-MEM', version: '1.0.0' });
    state = toolSelectorReducer(state, { type: 'selectVersion', versionID: 'app-v2' });
    expect(selectedTool(state)).toMatchObject({ id: 'app-v2', version: '2.0.0' });
    expect(toolSelectorReducer(state, { type: 'selectVersion', versionID: 'app-nope' })).toBe(state);
  });

  it('applies the allowed executables: unlisted tools are never offered, the first allowed version is selected', () => {
    const state = run({ type: 'setTools', tools, allowed: ['app-v2', 'workflow-1'] }, { type: 'select', toolID: 'app-v2' });
    expect(state.tools.map((t) => t.id)).toEqual(['app-v2', 'workflow-1']);
    expect(state.appVersions.map((v) => v.id)).toEqual(['app-v2']);
    expect(selectedTool(state)).toMatchObject({ id: 'app-v2', version: '2.0.0' });
    expect(toolSelectorReducer(state, { type: 'select', toolID: 'applet-1' }).selectedToolID).toBeNull();
  });

  it('keeps the selected app across a tools refresh that changes its id, drops a tool that disappeared', () => {
    let state = run({ type: 'setTools', tools }, { type: 'select', toolID: 'app-v1' });
    state = toolSelectorReducer(state, { type: 'setTools', tools, allowed: ['app-v2'] });
    expect(state.selectedToolID).toBe('app-v2');
    state = toolSelectorReducer(state, { type: 'setTools', tools: tools.filter((t) => t.class !== 'app') });
    expect(state.selectedToolID).toBeNull();
  });

  it('moves through the visible tools with the arrow keys, wrapping', () => {
    let state = run({ type: 'setTools', tools }, { type: 'move', delta: 1 });
    expect(state.selectedToolID).toBe('app-v1');
    state = toolSelectorReducer(state, { type: 'move', delta: -1 });
    expect(state.selectedToolID).toBe('applet-1');
    expect(toolSelectorReducer(run({ type: 'setTools', tools: [] }), { type: 'move', delta: 1 }).selectedToolID).toBeNull();
  });

  it('confirming closes and, when asked, sets the runner redirect (project-scoped with a project)', () => {
    const picked = run({ type: 'open' }, { type: 'setTools', tools }, { type: 'select', toolID: 'workflow-1' });
    expect(toolSelectorReducer(picked, { type: 'confirm' })).toMatchObject({ modal: 'closed', redirect: null });
    expect(toolSelectorReducer(picked, { type: 'confirm', redirect: {} }).redirect).toBe('/panx/tools/run/workflow-1');
    const inProject = toolSelectorReducer(picked, { type: 'confirm', redirect: { project: 'project-a' } });
    expect(inProject.redirect).toBe('/panx/projects/project-a/run/workflow-1');
    expect(toolSelectorReducer(inProject, { type: 'redirected' }).redirect).toBeNull();
    const nothing = run({ type: 'open' }, { type: 'setTools', tools });
    expect(toolSelectorReducer(nothing, { type: 'confirm', redirect: {} })).toBe(nothing);
  });
});
