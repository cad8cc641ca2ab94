import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { newestFirst } from '../../lib/versions';
import type { AppVersion } from './allowed';
import type { InstanceTypeInfo } from './cost';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export type ToolClass = 'app' | 'applet' | 'workflow';

/** A workflow stage as the runner shows it. */
export interface RunnerStage {
  id: string;
  name?: string;
  executable: string;
  executableTitle?: string;
  folder?: string;
  accessible: boolean;
  /** The stage's own systemRequirements (workflow), then its executable's. */
  systemRequirements?: unknown;
  executableSystemRequirements?: unknown;
}

/** What the runner needs of an executable, whatever its class. */
export interface RunnerTool {
  id: string;
  class: ToolClass;
  /** Apps: the app's name; applets and workflows: the object's name. */
  name: string;
  title: string;
  summary?: string;
  version?: string;
  /** Applets and workflows: the project the copy was described in. */
  project?: string;
  inputSpec: unknown[] | null;
  systemRequirements?: unknown;
  stages: RunnerStage[];
  outputFolder?: string;
}

export function toolClassOf(toolId: string): ToolClass | undefined {
  if (toolId.startsWith('applet-')) return 'applet';
  if (toolId.startsWith('workflow-')) return 'workflow';
  if (toolId.startsWith('app-')) return 'app';
  return undefined;
}

function runSpecRequirements(describe: Record<string, unknown>): unknown {
  return isRecord(describe.runSpec) ? describe.runSpec.systemRequirements : undefined;
}

async function describeExecutable(id: string, project: string | undefined): Promise<Record<string, unknown>> {
  if (id.startsWith('applet-')) return (await api().call('applet-xxxx/describe', id, project ? { project } : {})) as Record<string, unknown>;
  if (id.startsWith('workflow-')) return (await api().call('workflow-xxxx/describe', id, project ? { project } : {})) as Record<string, unknown>;
  return (await api().call('app-xxxx/describe', id, {})) as Record<string, unknown>;
}

/** The executable (an app by ID, name or name/version; an applet; a workflow with its stages' executables). */
export function useRunnerTool(toolId: string, project: string | undefined) {
  return useQuery({
    queryKey: ['runner', 'tool', toolId, project ?? null],
    enabled: !!toolClassOf(toolId),
    queryFn: async (): Promise<RunnerTool> => {
      const cls = toolClassOf(toolId) as ToolClass;
      const d = await describeExecutable(toolId, project);
      const tool: RunnerTool = {
        id: str(d.id) ?? toolId,
        class: cls,
        name: str(d.name) ?? toolId,
        title: str(d.title) ?? str(d.name) ?? toolId,
        ...(str(d.summary) ? { summary: str(d.summary) } : {}),
        ...(str(d.version) ? { version: str(d.version) } : {}),
        ...(str(d.project) ? { project: str(d.project) } : {}),
        inputSpec: Array.isArray(d.inputSpec) ? d.inputSpec : null,
        systemRequirements: runSpecRequirements(d),
        stages: [],
        ...(str(d.outputFolder) ? { outputFolder: str(d.outputFolder) } : {}),
      };
      if (cls === 'workflow' && Array.isArray(d.stages)) {
        tool.stages = await Promise.all(
          d.stages.filter(isRecord).map(async (stage): Promise<RunnerStage> => {
            const executable = str(stage.executable) ?? '';
            const base: RunnerStage = {
              id: str(stage.id) ?? '',
              ...(str(stage.name) ? { name: str(stage.name) } : {}),
              executable,
              ...(str(stage.folder) ? { folder: str(stage.folder) } : {}),
              accessible: stage.accessible !== false,
              systemRequirements: stage.systemRequirements,
            };
            if (!base.accessible || !executable) return base;
            try {
              const e = await describeExecutable(executable, tool.project);
              return { ...base, executableTitle: str(e.title) ?? str(e.name), executableSystemRequirements: runSpecRequirements(e) };
            } catch {
              return base;
            }
          }),
        );
      }
      return tool;
    },
    throwOnError: false,
  });
}

/** Every version of an app (newest first), for the version selector. */
export function useAppVersions(name: string | undefined) {
  return useQuery({
    queryKey: ['runner', 'appVersions', name ?? null],
    enabled: !!name,
    queryFn: async (): Promise<AppVersion[]> => {
      const page = await api().call('system/findApps', {
        name: name ?? '',
        allVersions: true,
        describe: { fields: { name: true, version: true, created: true } },
        limit: 1000,
      });
      const versions = page.results.map((result) => {
        const d = isRecord(result.describe) ? result.describe : {};
        return { id: result.id, name: str(d.name) ?? name ?? '', version: str(d.version) ?? result.id, created: typeof d.created === 'number' ? d.created : 0 };
      });
      // The library's order (semantic version, then creation), so both offer the same "first allowed" version.
      return newestFirst(versions).map(({ id, name: appName, version }) => ({ id, name: appName, version }));
    },
    throwOnError: false,
  });
}

/** A project as the runner needs it: name, the caller's level, region, allowed executables. */
export interface RunnerProject {
  id: string;
  name: string;
  level: string;
  region?: string;
  allowedExecutables: string[] | null;
}

export function useRunnerProject(projectId: string | undefined) {
  return useQuery({
    queryKey: ['runner', 'project', projectId ?? null],
    enabled: !!projectId,
    queryFn: async (): Promise<RunnerProject> => {
      const d = (await api().call('project-xxxx/describe', projectId ?? '', {
        fields: { name: true, level: true, region: true, allowedExecutables: true },
      })) as Record<string, unknown>;
      return {
        id: projectId ?? '',
        name: str(d.name) ?? projectId ?? '',
        level: str(d.level) ?? 'NONE',
        ...(str(d.region) ? { region: str(d.region) } : {}),
        allowedExecutables: Array.isArray(d.allowedExecutables) ? d.allowedExecutables.filter((v): v is string => typeof v === 'string') : null,
      };
    },
    throwOnError: false,
  });
}

/** The project's region's instance types with prices (system/describeInstanceTypes, a Panx extension). */
export function useInstanceTypes(projectId: string | undefined) {
  return useQuery({
    queryKey: ['runner', 'instanceTypes', projectId ?? null],
    enabled: !!projectId,
    staleTime: 300_000,
    queryFn: async (): Promise<{ defaultInstanceType: string; instanceTypes: InstanceTypeInfo[]; region: string }> =>
      api().call('system/describeInstanceTypes', projectId ? { project: projectId } : {}),
    throwOnError: false,
  });
}

/** An earlier execution whose inputs the form starts from (`?from=job-…|analysis-…`). */
export interface EarlierRun {
  id: string;
  runInput: unknown;
  name?: string;
  project?: string;
  folder?: string;
  tags: string[];
  executable?: string;
}

export function useEarlierRun(executionId: string | undefined) {
  return useQuery({
    queryKey: ['runner', 'from', executionId ?? null],
    enabled: !!executionId && /^(job|analysis)-/.test(executionId),
    queryFn: async (): Promise<EarlierRun> => {
      const id = executionId ?? '';
      const d = (id.startsWith('analysis-') ? await api().call('analysis-xxxx/describe', id, {}) : await api().call('job-xxxx/describe', id, {})) as Record<
        string,
        unknown
      >;
      return {
        id,
        runInput: d.runInput ?? d.originalInput ?? d.input,
        ...(str(d.name) ? { name: str(d.name) } : {}),
        ...(str(d.project) ? { project: str(d.project) } : {}),
        ...(str(d.folder) ? { folder: str(d.folder) } : {}),
        tags: Array.isArray(d.tags) ? d.tags.filter((t): t is string => typeof t === 'string') : [],
        executable: str(d.executable) ?? str(d.workflow) ?? (isRecord(d.workflow) ? str(d.workflow.id) : undefined),
      };
    },
    throwOnError: false,
  });
}

/** Names, states and projects of data objects given by ID (prefilled inputs, bound workflow values). */
export interface ObjectInfo {
  id: string;
  name?: string;
  project?: string;
  state?: string;
  class?: string;
  folder?: string;
  /** Set when the object cannot be described (deleted, or not readable). */
  missing?: boolean;
}

export function useObjectInfos(refs: readonly { id: string; project?: string }[]) {
  const key = refs.map((ref) => `${ref.project ?? ''}:${ref.id}`).sort();
  return useQuery({
    queryKey: ['runner', 'objects', key],
    enabled: refs.length > 0,
    staleTime: 60_000,
    // Names already known stay on screen while a newly picked object is described.
    placeholderData: keepPreviousData,
    queryFn: async (): Promise<Map<string, ObjectInfo>> => {
      const objects = refs.slice(0, 1000).map((ref) => (ref.project ? { id: ref.id, project: ref.project } : ref.id));
      const answer = await api().call('system/describeDataObjects', { objects });
      const infos = new Map<string, ObjectInfo>();
      answer.results.forEach((result, index) => {
        const ref = refs[index];
        if (!ref) return;
        const d = isRecord(result) && isRecord(result.describe) ? result.describe : isRecord(result) ? result : {};
        if (!str(d.id)) {
          infos.set(ref.id, { id: ref.id, missing: true });
          return;
        }
        infos.set(ref.id, {
          id: ref.id,
          name: str(d.name),
          project: str(d.project) ?? ref.project,
          state: str(d.state),
          class: str(d.class),
          folder: str(d.folder),
        });
      });
      return infos;
    },
    throwOnError: false,
  });
}
