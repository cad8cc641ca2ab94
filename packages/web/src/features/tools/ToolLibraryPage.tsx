import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { formatDate } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { FavouriteButton } from '../../ui/FavouriteButton';
import { EmptyState, ErrorState } from '../../ui/states';
import { useCurrentUser } from '../auth/hooks';
import { useAllowedExecutables, useProjectName, useToggleToolFavourite, useToolCatalog } from './hooks';
import {
  CLASS_LABEL,
  categoryList,
  EMPTY_TOOL_FILTERS,
  favouriteKey,
  favouriteToolKeys,
  filtersFromSearch,
  filtersToSearch,
  filterTools,
  groupTools,
  OTHER_CATEGORY,
  sortTools,
  type Tool,
  type ToolClass,
  type ToolFilters,
  toolDetailsPath,
  toolRunPath,
  offeredTools,
} from './tool-catalog';
import { ToolSelector } from './ToolSelector';
import classes from './tools.module.css';

const CLASS_COLOR: Record<ToolClass, string> = { app: 'blue', applet: 'teal', workflow: 'grape' };

/** `/panx/tools`: the apps, applets and workflows the user can run, grouped by the configured tool categories. */
export function ToolLibraryPage() {
  const { config, language } = useRuntime();
  const catalog = useToolCatalog();
  const user = useCurrentUser();
  const sessionData = user.data?.sessionData;
  // Memoised, so that the filtered and grouped lists below are not recomputed at every render.
  const favourites = useMemo(() => favouriteToolKeys(sessionData), [sessionData]);
  const toggle = useToggleToolFavourite(sessionData);
  const [search, setSearch] = useSearchParams();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  // `?project=…`: choosing a tool to run in that project (its allowed executables apply, Run goes to the project's runner).
  const project = search.get('project') || undefined;
  const allowed = useAllowedExecutables(project);
  const projectName = useProjectName(project);
  const withProject = (next: URLSearchParams) => {
    if (project) next.set('project', project);
    return next;
  };
  const [selecting, setSelecting] = useState(false);

  const update = (patch: Partial<ToolFilters>) => setSearch(withProject(filtersToSearch({ ...filters, ...patch })), { replace: true });
  const configured = config.toolCategories;
  const restriction = project ? allowed.data : null;
  const tools = useMemo(() => offeredTools(catalog.data ?? [], restriction), [catalog.data, restriction]);
  const categories = useMemo(() => categoryList(configured, tools), [configured, tools]);
  const shown = useMemo(() => filterTools(tools, filters, favourites, categories), [tools, filters, favourites, categories]);
  const groups = useMemo(() => groupTools(shown, categories), [shown, categories]);
  const starred = useMemo(() => {
    const keys = new Set(favourites);
    return sortTools(shown.filter((tool) => keys.has(favouriteKey(tool))));
  }, [shown, favourites]);
  const counts = useMemo(() => {
    const byClass: Record<ToolClass, number> = { app: 0, applet: 0, workflow: 0 };
    for (const tool of tools) byClass[tool.class]++;
    return byClass;
  }, [tools]);
  const filtering = filters.text !== '' || filters.category !== null || filters.toolClass !== null || filters.favouritesOnly;
  const categoryOptions = [...categories, ...(tools.some((tool) => !tool.categories.some((c) => categories.includes(c))) ? [OTHER_CATEGORY] : [])];

  const onStar = (tool: Tool) =>
    toggle.mutate(favouriteKey(tool), {
      onError: (error) => notifications.show({ color: 'red', title: 'Could not update favourites', message: describeError(error) }),
    });
  const card = (tool: Tool) => (
    <ToolCard
      key={`${tool.id}`}
      tool={tool}
      starred={favourites.includes(favouriteKey(tool))}
      busy={toggle.isPending}
      onStar={onStar}
      language={language}
      project={project}
    />
  );

  return (
    <Stack gap="md" data-testid="tool-library">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div>
          <Title order={1} size="h2">
            Tools
          </Title>
          <Text c="dimmed" size="sm">
            Apps published to you, and the applets and workflows in your projects.
            {catalog.data &&
              ` ${counts.app} app${counts.app === 1 ? '' : 's'}, ${counts.applet} applet${counts.applet === 1 ? '' : 's'}, ${counts.workflow} workflow${counts.workflow === 1 ? '' : 's'}.`}
          </Text>
        </div>
        <Group gap="sm">
          <Button variant="default" component={Link} to="/panx/tools/import-workflow">
            Import a workflow
          </Button>
          <Button onClick={() => setSelecting(true)}>Run a tool</Button>
        </Group>
      </Group>

      {project && (
        <Alert variant="light" color="blue" title={`Run a tool in ${projectName.data ?? project}`} data-testid="tool-library-project">
          <Group justify="space-between" gap="sm" wrap="wrap">
            <Text size="sm">
              {Array.isArray(restriction)
                ? 'This project only allows some executables: only those are listed, and Run opens them in this project.'
                : 'Run opens the tool in this project.'}
            </Text>
            <Group gap="xs">
              <Button size="compact-sm" variant="default" component={Link} to={`/panx/projects/${encodeURIComponent(project)}/data/`}>
                Back to the project
              </Button>
              <Button size="compact-sm" variant="subtle" component={Link} to="/panx/tools">
                All tools
              </Button>
            </Group>
          </Group>
        </Alert>
      )}

      <Paper withBorder p="sm" radius="sm">
        <Group gap="sm" wrap="wrap" align="flex-end">
          <TextInput
            label="Search by title"
            placeholder="e.g. variant calling, BWA"
            value={filters.text}
            onChange={(event) => update({ text: event.currentTarget.value })}
            className={classes.grow}
            type="search"
          />
          <Select
            label="Category"
            placeholder="All categories"
            clearable
            data={categoryOptions}
            value={filters.category}
            onChange={(category) => update({ category })}
            w={{ base: '100%', sm: 220 }}
          />
          <SegmentedControl
            aria-label="Tool class"
            value={filters.toolClass ?? 'all'}
            onChange={(value) => update({ toolClass: value === 'all' ? null : (value as ToolClass) })}
            data={[
              { value: 'all', label: 'All' },
              { value: 'app', label: 'Apps' },
              { value: 'applet', label: 'Applets' },
              { value: 'workflow', label: 'Workflows' },
            ]}
          />
          <Switch
            label="Favourites only"
            checked={filters.favouritesOnly}
            onChange={(event) => update({ favouritesOnly: event.currentTarget.checked })}
            mb={8}
          />
          {filtering && (
            <Button variant="subtle" onClick={() => setSearch(withProject(filtersToSearch(EMPTY_TOOL_FILTERS)), { replace: true })}>
              Clear
            </Button>
          )}
        </Group>
      </Paper>

      {catalog.error ? (
        <ErrorState error={catalog.error} title="Could not load the tools" onRetry={() => void catalog.refetch()} />
      ) : allowed.error ? (
        <ErrorState error={allowed.error} title="Could not load the project's allowed executables" onRetry={() => void allowed.refetch()} />
      ) : catalog.isPending || (project !== undefined && allowed.isPending) ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md" role="status" aria-label="Loading tools">
          {Array.from({ length: 6 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <Skeleton key={index} height={150} radius="md" />
          ))}
        </SimpleGrid>
      ) : tools.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <EmptyState title="No tools yet">
            Apps published on this installation, and applets and workflows you build or import into your projects, are listed here. Import a workflow to get
            started.
          </EmptyState>
        </Paper>
      ) : shown.length === 0 ? (
        <Paper withBorder radius="md" p="xl">
          <EmptyState title={filters.favouritesOnly && favourites.length === 0 ? 'No favourites yet' : 'No tool matches these filters'}>
            {filters.favouritesOnly && favourites.length === 0 ? 'Star a tool to find it here quickly.' : 'Try other words, another category or another class.'}
          </EmptyState>
        </Paper>
      ) : (
        <Stack gap="xl">
          {!filters.favouritesOnly && starred.length > 0 && (
            <section aria-label="Favourites">
              <Group gap="xs" mb="sm">
                <Title order={2} size="h4">
                  Favourites
                </Title>
                <Badge variant="light" color="yellow">
                  {starred.length}
                </Badge>
              </Group>
              <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
                {starred.map(card)}
              </SimpleGrid>
            </section>
          )}
          {groups.map((group) => (
            <section key={group.category} aria-label={group.category} data-category={group.category}>
              <Group gap="xs" mb="sm">
                <Title order={2} size="h4">
                  {group.category}
                </Title>
                <Badge variant="light" color="gray">
                  {group.tools.length}
                </Badge>
              </Group>
              <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
                {group.tools.map(card)}
              </SimpleGrid>
            </section>
          ))}
        </Stack>
      )}

      <ToolSelector opened={selecting} onClose={() => setSelecting(false)} redirect title="Run a tool" {...(project ? { project } : {})} />
    </Stack>
  );
}

function ToolCard({
  tool,
  starred,
  busy,
  onStar,
  language,
  project,
}: {
  tool: Tool;
  starred: boolean;
  busy: boolean;
  onStar: (tool: Tool) => void;
  language: string;
  project: string | undefined;
}) {
  const details = toolDetailsPath(tool, project);
  return (
    <Paper withBorder radius="md" p="md" className={classes.card} data-tool-card={tool.id} data-tool-name={tool.name}>
      <Stack gap={6} h="100%">
        <Group justify="space-between" wrap="nowrap" align="flex-start" gap="xs">
          <Anchor component={Link} to={details} fw={600} className={classes.cardTitle}>
            {tool.title}
          </Anchor>
          <FavouriteButton name={tool.title} starred={starred} disabled={busy} onToggle={() => onStar(tool)} />
        </Group>
        <Group gap={6}>
          <Badge size="sm" variant="light" color={CLASS_COLOR[tool.class]}>
            {CLASS_LABEL[tool.class]}
          </Badge>
          {tool.version && (
            <Text size="xs" c="dimmed">
              v{tool.version}
              {tool.versions.length > 1 && ` · ${tool.versions.length} versions`}
            </Text>
          )}
          {!tool.version && tool.modified > 0 && (
            <Text size="xs" c="dimmed">
              Modified {formatDate(tool.modified, language)}
            </Text>
          )}
        </Group>
        <Text size="sm" c={tool.summary ? undefined : 'dimmed'} lineClamp={3} className={classes.summary}>
          {tool.summary || 'No summary.'}
        </Text>
        <Group justify="space-between" wrap="nowrap" gap="xs" mt="auto">
          <Group gap={4} className={classes.categories}>
            {tool.categories.slice(0, 3).map((category) => (
              <Badge key={category} size="xs" variant="outline" color="gray" tt="none">
                {category}
              </Badge>
            ))}
          </Group>
          <Group gap={6} wrap="nowrap">
            <Button size="compact-sm" variant="default" component={Link} to={details}>
              Details
            </Button>
            <Button size="compact-sm" component={Link} to={toolRunPath(tool.id, project)} aria-label={`Run ${tool.title}`}>
              Run
            </Button>
          </Group>
        </Group>
      </Stack>
    </Paper>
  );
}
