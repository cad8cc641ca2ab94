import { Alert, Anchor, Badge, Breadcrumbs, Group, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useRef } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { ErrorState, LoadingState } from '../../ui/states';
import { useProjectRows } from '../projects/hooks';
import { levelAtLeast } from '../projects/project-rules';
import { isExecutableAllowed } from '../../lib/allowed-executables';
import { allowedAppVersions, selectAppVersion } from './allowed';
import { useAppVersions, useEarlierRun, useRunnerProject, useRunnerTool, type RunnerTool, toolClassOf } from './hooks';
import { type Prefill, prefillFromState, type RunnerDraft, VERSION_SWITCH_SOURCE, versionSwitchState } from './prefill';
import { RunnerForm } from './RunnerForm';

/**
 * The tool runner (`/panx/tools/run/{toolID}/*`, `/panx/projects/{projectID}/run/{toolID}/*`): an app
 * (`app-<name>`, `app-<name>/<version>` or `app-xxxx`), an applet or a workflow, its form, and Run.
 * Inputs can be handed over with `?from=job-…|analysis-…` (that execution's runInput) or navigation
 * state `{ runInput, name?, folder?, tags?, project? }` (see prefill.ts).
 */
export function ToolRunnerPage() {
  const { toolID = '', projectID, '*': rest = '' } = useParams();
  const [search] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const cls = toolClassOf(toolID);
  const version = cls === 'app' && rest && !rest.includes('/') ? rest : undefined;
  const describeId = version ? `${toolID}/${version}` : toolID;
  const from = search.get('from') ?? undefined;

  const routeProject = useRunnerProject(projectID);
  const tool = useRunnerTool(describeId, projectID);
  const earlier = useEarlierRun(from);
  const versions = useAppVersions(cls === 'app' ? tool.data?.name : undefined);
  const projects = useProjectRows();

  // What the form holds, carried along when the user picks another version (the form is rebuilt for it).
  const draftRef = useRef<RunnerDraft | undefined>(undefined);
  const stateFill = useMemo(() => prefillFromState(location.state), [location.state]);
  // The form carried from another version comes first: it already started from any earlier run.
  const prefill: Prefill | undefined =
    stateFill?.source === VERSION_SWITCH_SOURCE
      ? stateFill
      : earlier.data
        ? {
            source: earlier.data.id,
            runInput: earlier.data.runInput,
            name: earlier.data.name,
            folder: earlier.data.folder,
            tags: earlier.data.tags,
            project: earlier.data.project,
          }
        : stateFill;

  // The output project: the route's, else the earlier run's, else the tool's own, else the first the user can run in.
  const runnable = (projects.data ?? []).filter((row) => levelAtLeast(row.level, 'CONTRIBUTE'));
  const initialProject =
    projectID ??
    (prefill?.project && runnable.some((row) => row.id === prefill.project) ? prefill.project : undefined) ??
    (tool.data?.project && runnable.some((row) => row.id === tool.data?.project) ? tool.data.project : undefined) ??
    runnable[0]?.id;
  const outputProjectId = search.get('project') ?? initialProject;
  const outputProject = useRunnerProject(outputProjectId);

  const setOutputProject = (id: string) => {
    const next = new URLSearchParams(search);
    next.set('project', id);
    navigate({ search: `?${next.toString()}` }, { replace: true, state: location.state });
  };

  // SPEC §6: only allowed app versions are offered; a version that is not allowed gives way to the first allowed one.
  const allowed = outputProject.data?.allowedExecutables ?? null;
  const versionList = versions.data ?? [];
  const offered = allowedAppVersions(allowed, versionList);
  const chosenVersion = tool.data && cls === 'app' ? selectAppVersion(allowed, versionList, tool.data.id) : undefined;
  const base = projectID ? `/panx/projects/${projectID}/run` : '/panx/tools/run';
  const versionPath = (id: string) => `${base}/${id}${location.search}`;
  const switchedFrom = tool.data && chosenVersion && chosenVersion.id !== tool.data.id ? tool.data : undefined;
  const redirectTo = switchedFrom && chosenVersion ? versionPath(chosenVersion.id) : undefined;
  const redirectFrom = switchedFrom ? (switchedFrom.version ?? switchedFrom.id) : undefined;
  const navigationState: unknown = location.state;
  useEffect(() => {
    if (!redirectTo || !redirectFrom) return;
    const carried = typeof navigationState === 'object' && navigationState !== null ? navigationState : {};
    navigate(redirectTo, { replace: true, state: { ...carried, switchedFrom: redirectFrom } });
  }, [redirectTo, redirectFrom, navigationState, navigate]);
  const switchedNotice =
    typeof (location.state as { switchedFrom?: unknown } | null)?.switchedFrom === 'string'
      ? (location.state as { switchedFrom: string }).switchedFrom
      : undefined;

  if (!cls) {
    return (
      <Stack p="md" maw={900} mx="auto">
        <ErrorState error={new Error(`"${toolID}" is not a tool ID: expected app-…, applet-… or workflow-…`)} title="No such tool" />
      </Stack>
    );
  }

  const toolAllowed = tool.data
    ? isExecutableAllowed(allowed, { id: tool.data.id, class: cls, name: tool.data.name, ...(tool.data.version ? { version: tool.data.version } : {}) })
    : true;

  return (
    <Stack p="md" gap="md" maw={1280} mx="auto" w="100%" data-testid="tool-runner">
      <Header tool={tool.data} toolId={toolID} projectName={routeProject.data?.name} projectId={projectID} />
      {tool.isPending ? (
        <LoadingState rows={6} label="Loading the tool" />
      ) : tool.isError ? (
        <ErrorState error={tool.error} onRetry={() => void tool.refetch()} title="Could not load the tool" />
      ) : (
        <>
          {cls === 'app' && versionList.length > 1 && (
            <Group gap="sm">
              <Select
                label="Version"
                w={220}
                data={offered.map((v) => ({ value: v.id, label: v.version }))}
                value={tool.data.id}
                onChange={(id) => id && id !== tool.data.id && navigate(versionPath(id), { state: versionSwitchState(location.state, draftRef.current) })}
                allowDeselect={false}
                aria-label="Version"
              />
              {allowed && (
                <Text size="xs" c="dimmed" mt={22}>
                  Only the versions that {outputProject.data?.name ?? 'the project'} allows are offered.
                </Text>
              )}
            </Group>
          )}
          {switchedNotice && (
            <Alert color="yellow" variant="light" title="Another version was selected">
              Version {switchedNotice} is not allowed in {outputProject.data?.name ?? 'this project'}; the first allowed version, {tool.data.version}, is
              selected.
            </Alert>
          )}
          {earlier.isError && <ErrorState error={earlier.error} title={`Could not read the inputs of ${from}`} />}
          {from && earlier.isPending ? (
            <LoadingState rows={4} label="Reading the earlier run's inputs" />
          ) : (
            <RunnerForm
              key={`${tool.data.id}:${prefill?.source ?? ''}`}
              tool={tool.data}
              prefill={prefill}
              projectId={outputProjectId}
              project={outputProject.data}
              projectLoading={outputProject.isPending && !!outputProjectId}
              routeProject={projectID}
              runnableProjects={runnable}
              projectsLoading={projects.isPending}
              onProjectChange={setOutputProject}
              toolAllowed={toolAllowed}
              draftRef={draftRef}
            />
          )}
        </>
      )}
    </Stack>
  );
}

function Header({ tool, toolId, projectName, projectId }: { tool: RunnerTool | undefined; toolId: string; projectName?: string; projectId?: string }) {
  return (
    <Stack gap={4}>
      <Breadcrumbs separator="/" separatorMargin={4}>
        {projectId ? (
          [
            <Anchor key="projects" component={Link} to="/panx/projects" size="sm">
              Projects
            </Anchor>,
            <Anchor key="project" component={Link} to={`/panx/projects/${projectId}/data/`} size="sm">
              {projectName ?? projectId}
            </Anchor>,
          ]
        ) : (
          <Anchor component={Link} to="/panx/tools" size="sm">
            Tools
          </Anchor>
        )}
        <Text size="sm" c="dimmed">
          Run
        </Text>
      </Breadcrumbs>
      <Paper p={0} bg="transparent">
        <Group gap="sm" align="center">
          <Title order={1} size="h2">
            {tool?.title ?? toolId}
          </Title>
          {tool && (
            <Badge variant="light" tt="none">
              {tool.class}
              {tool.version ? ` ${tool.version}` : ''}
            </Badge>
          )}
        </Group>
        {tool?.summary && (
          <Text c="dimmed" size="sm" mt={4}>
            {tool.summary}
          </Text>
        )}
      </Paper>
    </Stack>
  );
}
