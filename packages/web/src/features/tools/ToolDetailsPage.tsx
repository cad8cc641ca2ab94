import { Anchor, Badge, Button, Code, Grid, Group, Paper, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { Link, useParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { isExecutableAllowed } from '../../lib/allowed-executables';
import { api } from '../../lib/api';
import { formatDate, formatDateTime } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { FavouriteButton } from '../../ui/FavouriteButton';
import { ErrorState, LoadingState } from '../../ui/states';
import { useNarrow } from '../../ui/use-narrow';
import { useCurrentUser } from '../auth/hooks';
import { executionPath, toExecutionSummary } from '../home/executions';
import { useAllowedExecutables, useProjectName, useToggleToolFavourite, useToolCatalog } from './hooks';
import { appsToTools, CLASS_LABEL, favouriteKey, favouriteToolKeys, type ToolClass, toolClassOf, toolDetailsPath, toolRunPath } from './tool-catalog';
import { executableLabel, executionStateColor, groupFields, type IoField, type ToolDetails, toToolDetails } from './tool-details';
import classes from './tools.module.css';

const CLASS_COLOR: Record<ToolClass, string> = { app: 'blue', applet: 'teal', workflow: 'grape' };
const RECENT_RUNS = 10;

/** Markdown links: inside the app through the router, elsewhere in a new tab without the opener. Raw HTML is never rendered (react-markdown escapes it). */
const markdownComponents: Components = {
  a: ({ href, children }) =>
    href?.startsWith('/panx/') ? (
      <Anchor component={Link} to={href}>
        {children}
      </Anchor>
    ) : (
      <Anchor href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </Anchor>
    ),
};

function useToolDescription(toolClass: ToolClass | undefined, toolID: string, project: string | undefined) {
  return useQuery({
    queryKey: ['tool', toolClass ?? 'unknown', toolID, project ?? ''],
    enabled: toolClass !== undefined,
    queryFn: async () => {
      const options = project ? { project } : {};
      const described =
        toolClass === 'app'
          ? await api().call('app-xxxx/describe', toolID, {})
          : toolClass === 'applet'
            ? await api().call('applet-xxxx/describe', toolID, options)
            : await api().call('workflow-xxxx/describe', toolID, options);
      return toToolDetails(described as Record<string, unknown> & { id: string });
    },
    throwOnError: false,
  });
}

function useAppVersions(name: string | undefined) {
  return useQuery({
    queryKey: ['tool', 'app-versions', name ?? ''],
    enabled: name !== undefined,
    queryFn: async () => {
      const page = await api().call('system/findApps', {
        name: name ?? '',
        allVersions: true,
        describe: { fields: { name: true, version: true, title: true, aliases: true, created: true, published: true, categories: true } },
        limit: 1000,
      });
      // hidden_app versions are still this app's history: describe them as visible for the list.
      const [tool] = appsToTools(page.results.map((r) => ({ ...r, describe: { ...(r.describe as object), categories: [] } })));
      return tool?.versions ?? [];
    },
    throwOnError: false,
  });
}

function useDevelopers(appId: string | undefined) {
  return useQuery({
    queryKey: ['tool', 'developers', appId ?? ''],
    enabled: appId !== undefined,
    queryFn: async () => (await api().call('app-xxxx/listDevelopers', appId ?? '', {})).developers,
    throwOnError: false,
  });
}

function useRecentRuns(executable: string | undefined) {
  return useQuery({
    queryKey: ['tool', 'runs', executable ?? ''],
    enabled: executable !== undefined,
    queryFn: async () => {
      const page = await api().call('system/findExecutions', {
        executable: executable ?? '',
        includeSubjobs: false,
        describe: { fields: { name: true, state: true, project: true, created: true, launchedBy: true } },
        limit: RECENT_RUNS,
      });
      return page.results
        .map((result) => {
          const d = (result.describe ?? {}) as Record<string, unknown>;
          return { ...toExecutionSummary(result), launchedBy: typeof d.launchedBy === 'string' ? d.launchedBy : undefined };
        })
        .sort((a, b) => (b.created ?? 0) - (a.created ?? 0));
    },
    throwOnError: false,
  });
}

/** `/panx/tool/{toolClass}/{toolID}` and `/panx/projects/{projectID}/{toolID}`: everything about one tool, and Run. */
export function ToolDetailsPage() {
  const params = useParams();
  const toolID = params.toolID ?? '';
  const project = params.projectID;
  const toolClass = params.toolClass ? (toolClassOf(`${params.toolClass}-`) ?? toolClassOf(toolID)) : toolClassOf(toolID);
  const tool = useToolDescription(toolClass, toolID, project);
  const back = project ? `/panx/projects/${encodeURIComponent(project)}/data/` : '/panx/tools';

  if (!toolClass) {
    return (
      <Stack>
        <BackLink to={back} project={project} />
        <ErrorState error={new Error(`${toolID} is not an app, applet or workflow id`)} title="Not a tool" />
      </Stack>
    );
  }
  return (
    <Stack gap="md" data-testid="tool-details">
      <BackLink to={back} project={project} />
      {tool.error ? (
        <ErrorState error={tool.error} title="Could not load this tool" onRetry={() => void tool.refetch()} />
      ) : !tool.data ? (
        <LoadingState rows={8} label="Loading the tool" />
      ) : (
        <ToolDetailsView tool={tool.data} project={project} />
      )}
    </Stack>
  );
}

function BackLink({ to, project }: { to: string; project: string | undefined }) {
  return (
    <Anchor component={Link} to={to} size="sm">
      ← {project ? 'Back to the project' : 'All tools'}
    </Anchor>
  );
}

function ToolDetailsView({ tool, project }: { tool: ToolDetails; project: string | undefined }) {
  const { language } = useRuntime();
  const user = useCurrentUser();
  const favourites = favouriteToolKeys(user.data?.sessionData);
  const toggle = useToggleToolFavourite(user.data?.sessionData);
  const versions = useAppVersions(tool.class === 'app' ? tool.name : undefined);
  const developers = useDevelopers(tool.class === 'app' ? tool.id : undefined);
  const runs = useRecentRuns(tool.id);
  // Stage executables by name and version rather than by id (the catalogue is shared with the library).
  const catalog = useToolCatalog({ enabled: tool.class === 'workflow' });
  const projectName = useProjectName(tool.project);
  const allowed = useAllowedExecutables(project);
  const runBlocked =
    project !== undefined &&
    allowed.data !== undefined &&
    !isExecutableAllowed(allowed.data, { id: tool.id, class: tool.class, name: tool.name, ...(tool.version ? { version: tool.version } : {}) });
  const starred = favourites.includes(favouriteKey(tool));

  const star = () =>
    toggle.mutate(favouriteKey(tool), {
      onError: (error) => notifications.show({ color: 'red', title: 'Could not update favourites', message: describeError(error) }),
    });

  return (
    <Stack gap="lg">
      <Paper withBorder radius="md" p="lg">
        <Group justify="space-between" align="flex-start" wrap="wrap" gap="md">
          <Stack gap={6} style={{ flex: '1 1 320px', minWidth: 0 }}>
            <Group gap="xs" wrap="wrap">
              <Badge variant="light" color={CLASS_COLOR[tool.class]}>
                {CLASS_LABEL[tool.class]}
              </Badge>
              {tool.version && (
                <Badge variant="outline" color="gray" tt="none">
                  v{tool.version}
                </Badge>
              )}
              {tool.categories.map((category) => (
                <Badge key={category} variant="outline" color="gray" tt="none">
                  {category}
                </Badge>
              ))}
            </Group>
            <Title order={1} size="h2" style={{ overflowWrap: 'anywhere' }}>
              {tool.title}
            </Title>
            <Text c="dimmed">{tool.summary || 'No summary.'}</Text>
            {runBlocked && (
              <Text size="sm" c="orange.8" id="run-blocked">
                This project does not allow this tool, so it cannot be run here.
              </Text>
            )}
            <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
              {tool.name} · {tool.id}
            </Text>
          </Stack>
          <Group gap="sm">
            <FavouriteButton name={tool.title} starred={starred} disabled={toggle.isPending || user.isPending} onToggle={star} size="lg" variant="default" />
            {runBlocked ? (
              <Tooltip
                label="This project only allows other executables (project settings: allowed executables)"
                withArrow
                multiline
                w={260}
                events={{ hover: true, focus: true, touch: true }}
              >
                {/* Not `disabled`: a disabled button gets no pointer or focus events, so its reason would never show. */}
                <Button size="md" data-disabled aria-disabled="true" onClick={(event) => event.preventDefault()} aria-describedby="run-blocked">
                  Run
                </Button>
              </Tooltip>
            ) : (
              <Button component={Link} to={toolRunPath(tool.id, project)} size="md">
                Run
              </Button>
            )}
          </Group>
        </Group>
      </Paper>

      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack gap="lg">
            <Section title="Description">
              {tool.description.trim() ? (
                <div className={classes.markdown} data-testid="tool-description">
                  <Markdown components={markdownComponents}>{tool.description}</Markdown>
                </div>
              ) : (
                <Text c="dimmed" size="sm">
                  No description.
                </Text>
              )}
            </Section>
            {tool.class === 'workflow' && (
              <Section title={`Stages (${tool.stages.length})`}>
                {tool.stages.length === 0 ? (
                  <Text c="dimmed" size="sm">
                    This workflow has no stages yet.
                  </Text>
                ) : (
                  <Stack gap={6}>
                    {tool.stages.map((stage, index) => (
                      <Group key={stage.id} gap="sm" wrap="nowrap">
                        <Badge variant="filled" color="gray" circle>
                          {index + 1}
                        </Badge>
                        <Text size="sm" fw={500}>
                          {stage.name}
                        </Text>
                        {stage.executable && (
                          <Anchor
                            component={Link}
                            to={toolDetailsPath({ class: toolClassOf(stage.executable) ?? 'app', id: stage.executable })}
                            size="xs"
                            title={stage.executable}
                          >
                            {executableLabel(catalog.data, stage.executable)}
                          </Anchor>
                        )}
                      </Group>
                    ))}
                  </Stack>
                )}
              </Section>
            )}
            <Section title={`Inputs (${tool.inputs.length})`}>
              <IoTable fields={tool.inputs} kind="inputs" />
            </Section>
            <Section title={`Outputs (${tool.outputs.length})`}>
              <IoTable fields={tool.outputs} kind="outputs" />
            </Section>
            {tool.developerNotes.trim() && (
              <Section title="Developer notes">
                <div className={classes.markdown}>
                  <Markdown components={markdownComponents}>{tool.developerNotes}</Markdown>
                </div>
              </Section>
            )}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack gap="lg">
            <Section title="About">
              <Stack gap={8}>
                <Fact label="Name">{tool.name}</Fact>
                {tool.version && <Fact label="Version">{tool.version}</Fact>}
                <Fact label="Categories">{tool.categories.length ? tool.categories.join(', ') : '--'}</Fact>
                {tool.class === 'app' ? (
                  <Fact label="Developers">{developers.data ? developers.data.join(', ') || '--' : developers.error ? 'Not available' : '…'}</Fact>
                ) : (
                  <Fact label="Created by">{tool.createdBy ?? '--'}</Fact>
                )}
                {tool.project && (
                  <Fact label="Project">
                    <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(tool.project)}/data${tool.folder ?? '/'}`} size="sm">
                      {projectName.data ?? tool.project}
                      {tool.folder && tool.folder !== '/' ? `:${tool.folder}` : ''}
                    </Anchor>
                  </Fact>
                )}
                <Fact label="Created">{formatDate(tool.created, language)}</Fact>
                <Fact label="Modified">{formatDate(tool.modified, language)}</Fact>
              </Stack>
            </Section>
            {tool.class === 'app' && (
              <Section title="Version history">
                {versions.error ? (
                  <ErrorState error={versions.error} title="Could not load the versions" onRetry={() => void versions.refetch()} />
                ) : !versions.data ? (
                  <LoadingState rows={2} label="Loading versions" />
                ) : (
                  <Stack gap={4} data-testid="tool-versions">
                    {versions.data.map((version) => (
                      <Group key={version.id} justify="space-between" wrap="nowrap" gap="xs">
                        <Group gap={6} wrap="nowrap">
                          {version.id === tool.id ? (
                            <Text size="sm" fw={600}>
                              {version.version}
                            </Text>
                          ) : (
                            <Anchor
                              component={Link}
                              to={project ? toolDetailsPath({ class: 'app', id: version.id }, project) : toolDetailsPath({ class: 'app', id: version.id })}
                              size="sm"
                            >
                              {version.version}
                            </Anchor>
                          )}
                          {version.aliases.includes('default') && (
                            <Badge size="xs" variant="light">
                              default
                            </Badge>
                          )}
                          {!version.published && (
                            <Badge size="xs" variant="light" color="orange">
                              unpublished
                            </Badge>
                          )}
                        </Group>
                        <Text size="xs" c="dimmed">
                          {formatDate(version.created, language)}
                        </Text>
                      </Group>
                    ))}
                  </Stack>
                )}
              </Section>
            )}
            <Section title="Recent runs">
              {runs.error ? (
                <ErrorState error={runs.error} title="Could not load the runs" onRetry={() => void runs.refetch()} />
              ) : !runs.data ? (
                <LoadingState rows={2} label="Loading runs" />
              ) : runs.data.length === 0 ? (
                <Text size="sm" c="dimmed">
                  No runs you can see yet.
                </Text>
              ) : (
                <Stack gap={6} data-testid="tool-runs">
                  {runs.data.map((run) => (
                    <Group key={run.id} justify="space-between" wrap="nowrap" gap="xs">
                      <Stack gap={0} style={{ minWidth: 0 }}>
                        <Anchor component={Link} to={executionPath(run)} size="sm" truncate>
                          {run.name}
                        </Anchor>
                        <Text size="xs" c="dimmed">
                          {formatDateTime(run.created, language)}
                          {run.launchedBy ? ` · ${run.launchedBy.replace(/^user-/, '')}` : ''}
                        </Text>
                      </Stack>
                      <Badge size="sm" variant="light" color={executionStateColor(run.state)}>
                        {run.state.replace(/_/g, ' ')}
                      </Badge>
                    </Group>
                  ))}
                </Stack>
              )}
            </Section>
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label={title}>
      <Title order={2} size="h5" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600} style={{ letterSpacing: '0.03em' }}>
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }} component="div">
        {children}
      </Text>
    </div>
  );
}

function FieldDetails({ field }: { field: IoField }) {
  return (
    <Stack gap={2}>
      {field.help && <Text size="sm">{field.help}</Text>}
      {field.defaultText !== undefined && (
        <Text size="xs" c="dimmed">
          Default: <Code fz="xs">{field.defaultText}</Code>
        </Text>
      )}
      {field.patterns.length > 0 && (
        <Text size="xs" c="dimmed">
          Patterns: {field.patterns.join(', ')}
        </Text>
      )}
      {field.choices.length > 0 && (
        <Text size="xs" c="dimmed">
          Choices: {field.choices.join(', ')}
        </Text>
      )}
      {!field.help && field.defaultText === undefined && field.patterns.length === 0 && field.choices.length === 0 && (
        <Text size="xs" c="dimmed">
          --
        </Text>
      )}
    </Stack>
  );
}

function requirement(field: IoField): string {
  return field.optional ? 'optional' : field.defaultText !== undefined ? 'has default' : 'required';
}

function IoTable({ fields, kind }: { fields: IoField[]; kind: 'inputs' | 'outputs' }) {
  const narrow = useNarrow();
  if (fields.length === 0)
    return (
      <Text size="sm" c="dimmed" data-testid={`tool-${kind}`}>
        {kind === 'inputs' ? 'No inputs: this tool runs without any.' : 'No outputs.'}
      </Text>
    );
  return (
    <Stack gap="md" data-testid={`tool-${kind}`}>
      {groupFields(fields).map((group) => (
        <div key={group.group || 'main'}>
          {group.group && (
            <Text size="sm" fw={600} mb={4}>
              {group.group}
            </Text>
          )}
          {narrow ? (
            <Stack gap="xs">
              {group.fields.map((field) => (
                <Paper key={field.name} withBorder radius="sm" p="sm" data-field={field.name}>
                  <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
                    <div style={{ minWidth: 0 }}>
                      <Text size="sm" fw={500}>
                        {field.label || field.name}
                      </Text>
                      <Code fz="xs">{field.name}</Code>
                    </div>
                    <Stack gap={0} align="flex-end">
                      <Text size="sm">{field.class}</Text>
                      {kind === 'inputs' && (
                        <Text size="xs" c={requirement(field) === 'required' ? 'red.7' : 'dimmed'}>
                          {requirement(field)}
                        </Text>
                      )}
                    </Stack>
                  </Group>
                  <div style={{ marginTop: 6 }}>
                    <FieldDetails field={field} />
                  </div>
                </Paper>
              ))}
            </Stack>
          ) : (
            <Table.ScrollContainer minWidth={560}>
              <Table verticalSpacing="xs" striped withTableBorder>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th w="32%">Name</Table.Th>
                    <Table.Th w="14%">Class</Table.Th>
                    <Table.Th>Details</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {group.fields.map((field) => (
                    <Table.Tr key={field.name} data-field={field.name}>
                      <Table.Td>
                        <Text size="sm" fw={500}>
                          {field.label || field.name}
                        </Text>
                        <Code fz="xs">{field.name}</Code>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{field.class}</Text>
                        {kind === 'inputs' && (
                          <Text size="xs" c={requirement(field) === 'required' ? 'red.7' : 'dimmed'}>
                            {requirement(field)}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <FieldDetails field={field} />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </div>
      ))}
    </Stack>
  );
}
