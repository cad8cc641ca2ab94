import { describe, expect, it } from 'vitest';
import {
  allowedAppVersions,
  appsToTools,
  categoryList,
  dataObjectsToTools,
  EMPTY_TOOL_FILTERS,
  favouriteKey,
  favouriteToolKeys,
  filterTools,
  filtersFromSearch,
  filtersToSearch,
  groupTools,
  isToolAllowed,
  OTHER_CATEGORY,
  offeredTools,
  type Tool,
  toggleFavouriteTool,
  toolClassOf,
  toolDetailsPath,
  toolRunPath,
} from './tool-catalog';

const app = (id: string, name: string, version: string, extra: Record<string, unknown> = {}) => ({
  id,
  describe: { name, version, title: `${name} title`, summary: `${name} summary`, categories: [], aliases: [], created: 1, published: 1, ...extra },
});

const tool = (id: string, title: string, extra: Partial<Tool> = {}): Tool => ({
  id,
  class: 'app',
  name: title.toLowerCase().replace(/\s+/g, '_'),
  title,
  summary: '',
  categories: [],
  versions: [],
  created: 1,
  modified: 1,
  ...extra,
});

describe('apps as tools', () => {
  it('makes one tool per app name, described by its default version, with every version listed', () => {
    const tools = appsToTools([
      app('app-a1', 'bwa', '1.0.0'),
      app('app-a2', 'bwa', '1.2.0', { title: 'BWA-MEM', aliases: ['default'], categories: ['Read Mapping'] }),
      app('app-a3', 'bwa', '2.0.0-beta', { published: 0 }),
      app('app-b1', 'fastp', '0.23.0'),
    ]);
    expect(tools).toHaveLength(2);
    const bwa = tools.find((t) => t.name === 'bwa');
    expect(bwa).toMatchObject({ id: 'app-a2', class: 'app', title: 'BWA-MEM', version: '1.2.0', categories: ['Read Mapping'] });
    expect(bwa?.versions.map((v) => v.version)).toEqual(['2.0.0-beta', '1.2.0', '1.0.0']);
  });

  it('without a default tag, the newest published version stands for the app', () => {
    const [only] = appsToTools([app('app-1', 'x', '1.0.0'), app('app-2', 'x', '1.1.0'), app('app-3', 'x', '2.0.0', { published: 0 })]);
    expect(only).toMatchObject({ id: 'app-2', version: '1.1.0' });
  });

  it('leaves out apps in the hidden_app category', () => {
    const tools = appsToTools([app('app-1', 'visible', '1.0.0'), app('app-2', 'secret', '1.0.0', { categories: ['hidden_app', 'Tools'] })]);
    expect(tools.map((t) => t.name)).toEqual(['visible']);
  });

  it('lists an applet or workflow copied to several projects once, tolerating missing fields', () => {
    const tools = dataObjectsToTools([
      { id: 'applet-1', project: 'project-a', describe: { class: 'applet', name: 'qc', title: 'Quality control', folder: '/apps' } },
      { id: 'applet-1', project: 'project-b', describe: { class: 'applet', name: 'qc' } },
      { id: 'workflow-9', project: 'project-a', describe: 'nonsense' },
      { id: 'file-1', project: 'project-a', describe: { class: 'file', name: 'x' } },
    ]);
    expect(tools.map((t) => [t.id, t.class, t.title, t.project])).toEqual([
      ['applet-1', 'applet', 'Quality control', 'project-a'],
      ['workflow-9', 'workflow', 'workflow-9', 'project-a'],
    ]);
  });
});

describe('favourites in sessionData.favorites.tools', () => {
  it('keys apps by name (every version) and data objects by id', () => {
    expect(favouriteKey({ class: 'app', id: 'app-123', name: 'bwa' })).toBe('app-bwa');
    expect(favouriteKey({ class: 'workflow', id: 'workflow-1', name: 'germline' })).toBe('workflow-1');
  });

  it('reads and toggles, keeping the projects list and ignoring malformed values', () => {
    expect(favouriteToolKeys({ favorites: { tools: ['app-bwa', 7] } })).toEqual(['app-bwa']);
    expect(favouriteToolKeys({ favorites: 'no' })).toEqual([]);
    expect(favouriteToolKeys(null)).toEqual([]);
    const data = { favorites: { projects: ['project-1'], tools: ['app-bwa'] } };
    expect(toggleFavouriteTool(data, 'workflow-1')).toEqual({ projects: ['project-1'], tools: ['app-bwa', 'workflow-1'] });
    expect(toggleFavouriteTool(data, 'app-bwa')).toEqual({ projects: ['project-1'], tools: [] });
    expect(toggleFavouriteTool(undefined, 'app-bwa')).toEqual({ tools: ['app-bwa'] });
  });
});

describe('allowed executables (SPEC §6)', () => {
  const versions = [
    { id: 'app-v3', version: '3.0.0', aliases: [], created: 3, published: true },
    { id: 'app-v2', version: '2.0.0', aliases: ['default'], created: 2, published: true },
    { id: 'app-v1', version: '1.0.0', aliases: [], created: 1, published: true },
  ];
  const bwa = tool('app-v2', 'bwa', { name: 'bwa', version: '2.0.0', versions });
  const applet = tool('applet-1', 'qc', { class: 'applet', name: 'qc' });

  it('offers everything without a restriction', () => {
    expect(isToolAllowed(bwa, null)).toBe(true);
    expect(isToolAllowed(applet, undefined)).toBe(true);
    expect(allowedAppVersions(bwa, null)).toHaveLength(3);
  });

  it('offers only listed ids or class-name combinations', () => {
    expect(isToolAllowed(applet, ['applet-1'])).toBe(true);
    expect(isToolAllowed(applet, ['applet-qc'])).toBe(true);
    expect(isToolAllowed(applet, ['applet-2', 'app-v1'])).toBe(false);
    expect(isToolAllowed(bwa, [])).toBe(false);
  });

  it('narrows an app to its listed versions, by id, name or name/version', () => {
    expect(allowedAppVersions(bwa, ['app-v1']).map((v) => v.id)).toEqual(['app-v1']);
    expect(allowedAppVersions(bwa, ['app-bwa/3.0.0', 'app-v1']).map((v) => v.id)).toEqual(['app-v3', 'app-v1']);
    expect(allowedAppVersions(bwa, ['app-bwa']).map((v) => v.id)).toEqual(['app-v3', 'app-v2', 'app-v1']);
  });

  it('moves an app to the first allowed version when its default is not allowed', () => {
    const [offered] = offeredTools([bwa, applet], ['app-v3', 'app-v1']);
    expect(offered).toMatchObject({ id: 'app-v3', version: '3.0.0' });
    expect(offered?.versions.map((v) => v.id)).toEqual(['app-v3', 'app-v1']);
    expect(offeredTools([bwa, applet], ['app-v2', 'applet-1']).map((t) => t.id)).toEqual(['app-v2', 'applet-1']);
  });
});

describe('filters and grouping', () => {
  const tools = [
    tool('app-1', 'BWA-MEM aligner', { categories: ['Read Mapping'], summary: 'Maps short reads' }),
    tool('app-2', 'BCFtools call', { categories: ['Variation Calling'] }),
    tool('workflow-1', 'Germline variants', { class: 'workflow', name: 'germline_variants' }),
    tool('applet-1', 'Mapping QC', { class: 'applet', categories: ['Read Mapping', 'QC'] }),
  ];
  const configured = ['Read Mapping', 'Variation Calling'];

  it('searches the title (and name) word by word, case-insensitively, not the summary', () => {
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, text: 'germline' }, [], configured).map((t) => t.id)).toEqual(['workflow-1']);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, text: 'bwa ALIGNER' }, [], configured).map((t) => t.id)).toEqual(['app-1']);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, text: 'short reads' }, [], configured)).toEqual([]);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, text: 'germline_variants' }, [], configured).map((t) => t.id)).toEqual(['workflow-1']);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, text: 'bwa nothing' }, [], configured)).toEqual([]);
  });

  it('filters by class, category (Other = in no configured category) and favourites', () => {
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, toolClass: 'applet' }, [], configured).map((t) => t.id)).toEqual(['applet-1']);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, category: 'Read Mapping' }, [], configured).map((t) => t.id)).toEqual(['app-1', 'applet-1']);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, category: OTHER_CATEGORY }, [], configured).map((t) => t.id)).toEqual(['workflow-1']);
    expect(filterTools(tools, { ...EMPTY_TOOL_FILTERS, favouritesOnly: true }, ['workflow-1', 'app-bwa-mem_aligner'], configured).map((t) => t.id)).toEqual([
      'app-1',
      'workflow-1',
    ]);
  });

  it('groups by the configured categories in order, then the others; empty groups left out', () => {
    const groups = groupTools(tools, configured);
    expect(groups.map((g) => [g.category, g.tools.map((t) => t.id)])).toEqual([
      ['Read Mapping', ['app-1', 'applet-1']],
      ['Variation Calling', ['app-2']],
      [OTHER_CATEGORY, ['workflow-1']],
    ]);
    expect(groupTools([], configured)).toEqual([]);
  });

  it('falls back to the tools’ own categories when none are configured, never hidden_app', () => {
    expect(categoryList([], tools)).toEqual(['QC', 'Read Mapping', 'Variation Calling']);
    expect(categoryList(['B', 'hidden_app', 'A'], tools)).toEqual(['B', 'A']);
  });
});

describe('paths', () => {
  it('builds the details and runner paths, in and out of a project', () => {
    expect(toolDetailsPath({ class: 'workflow', id: 'workflow-1' })).toBe('/panx/tool/workflow/workflow-1');
    expect(toolDetailsPath({ class: 'app', id: 'app-1' }, 'project-9')).toBe('/panx/projects/project-9/app-1');
    expect(toolRunPath('app-1')).toBe('/panx/tools/run/app-1');
    expect(toolRunPath('applet-1', 'project-9')).toBe('/panx/projects/project-9/run/applet-1');
    expect(toolClassOf('applet-xyz')).toBe('applet');
    expect(toolClassOf('file-xyz')).toBeUndefined();
  });
});

describe('library filters in the query string', () => {
  it('round-trips and ignores unknown classes', () => {
    const filters = { text: 'bwa mem', category: 'Read Mapping', toolClass: 'app' as const, favouritesOnly: true };
    expect(filtersFromSearch(filtersToSearch(filters))).toEqual(filters);
    expect(filtersToSearch(EMPTY_TOOL_FILTERS).toString()).toBe('');
    expect(filtersFromSearch(new URLSearchParams('class=file&favourites=yes'))).toEqual(EMPTY_TOOL_FILTERS);
  });
});
