import { Anchor, Badge, Button, Card, Group, Modal, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { formatDate } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { FavouriteButton } from '../../ui/FavouriteButton';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useCurrentUser } from '../auth/hooks';
import { MarkAllRead, NotificationList } from '../notifications/NotificationList';
import { favoriteProjectIds, favoriteProjects, type ProjectSummary, recentProjects } from './home-lists';
import classes from './HomePage.module.css';
import { executionPath, stateColor, stateLabel } from './executions';
import { useCreateProject, useRunningExecutions, useToggleFavorite, useVisibleProjects } from './hooks';

const RECENT_COUNT = 6;
/** The home page shows the latest few; the header bell has the 25 of SPEC §9. */
const HOME_NOTIFICATIONS = 6;

/** The home page: what a returning user needs first (recent and favourite projects, quick actions). */
export function HomePage() {
  const user = useCurrentUser();
  const projects = useVisibleProjects();
  const [creating, setCreating] = useState(false);
  const favoriteIds = favoriteProjectIds(user.data?.sessionData);
  const toggleFavorite = useToggleFavorite(user.data?.sessionData);
  const first = user.data?.first?.trim();

  const onToggle = (project: ProjectSummary) =>
    toggleFavorite.mutate(project.id, {
      onError: (error) => notifications.show({ color: 'red', title: 'Could not update favourites', message: describeError(error) }),
    });

  return (
    <Stack gap="lg">
      <div>
        <Title order={1} size="h2">
          {first ? `Welcome back, ${first}` : 'Welcome to Panx'}
        </Title>
        <Text c="dimmed">Your projects, and where to start.</Text>
      </div>

      <section aria-labelledby="quick-actions">
        <Title order={2} size="h4" id="quick-actions" mb="xs">
          Quick actions
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <Card withBorder padding="md" className={classes.action}>
            <Text fw={600}>New project</Text>
            <Text size="sm" c="dimmed" mb="sm">
              A place for data, tools and results, shared with whom you choose.
            </Text>
            <Button onClick={() => setCreating(true)} mt="auto">
              New project
            </Button>
          </Card>
          <Card withBorder padding="md" className={classes.action}>
            <Text fw={600}>Upload data</Text>
            <Text size="sm" c="dimmed" mb="sm">
              Open a project and drop files or folders on its data page, or use <code>px upload</code>.
            </Text>
            <Button variant="default" component={Link} to="/panx/projects" mt="auto">
              Projects
            </Button>
          </Card>
          <Card withBorder padding="md" className={classes.action}>
            <Group gap="xs">
              <Text fw={600}>Run a tool</Text>
              <Badge size="xs" color="gray" variant="light">
                Not available yet
              </Badge>
            </Group>
            <Text size="sm" c="dimmed" mb="sm">
              The tool library and runner come in a later version.
            </Text>
            <Button variant="default" component={Link} to="/panx/tools" mt="auto">
              Tools
            </Button>
          </Card>
        </SimpleGrid>
      </section>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Card withBorder padding="md" component="section" aria-labelledby="recent-projects">
          <Title order={2} size="h4" id="recent-projects" mb="sm">
            Recent projects
          </Title>
          {projects.isPending ? (
            <LoadingState rows={4} label="Loading projects" />
          ) : projects.isError ? (
            <ErrorState error={projects.error} onRetry={() => void projects.refetch()} title="Could not load your projects" />
          ) : projects.data.length === 0 ? (
            <EmptyState title="No projects yet">Create your first project to start adding data and running analyses.</EmptyState>
          ) : (
            <ProjectTable
              projects={recentProjects(projects.data, RECENT_COUNT)}
              favoriteIds={favoriteIds}
              onToggle={onToggle}
              busy={toggleFavorite.isPending}
            />
          )}
        </Card>

        <Card withBorder padding="md" component="section" aria-labelledby="favourite-projects">
          <Title order={2} size="h4" id="favourite-projects" mb="sm">
            Favourite projects
          </Title>
          {projects.isPending || user.isPending ? (
            <LoadingState rows={2} label="Loading favourites" />
          ) : projects.isError ? (
            <ErrorState error={projects.error} onRetry={() => void projects.refetch()} title="Could not load your projects" />
          ) : favoriteProjects(projects.data, favoriteIds).length === 0 ? (
            <EmptyState title="No favourites yet">Star a project (☆) to keep it here.</EmptyState>
          ) : (
            <ProjectTable
              projects={favoriteProjects(projects.data, favoriteIds)}
              favoriteIds={favoriteIds}
              onToggle={onToggle}
              busy={toggleFavorite.isPending}
            />
          )}
        </Card>

        <Card withBorder padding="md" component="section" aria-labelledby="running-executions">
          <Title order={2} size="h4" id="running-executions" mb="sm">
            Running executions
          </Title>
          <RunningExecutions />
        </Card>

        <Card withBorder padding="md" component="section" aria-labelledby="notifications">
          <Group justify="space-between" mb="xs">
            <Title order={2} size="h4" id="notifications">
              Notifications
            </Title>
            <MarkAllRead />
          </Group>
          <NotificationList limit={HOME_NOTIFICATIONS} />
        </Card>
      </SimpleGrid>

      <NewProjectModal opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function ProjectTable({
  projects,
  favoriteIds,
  onToggle,
  busy,
}: {
  projects: ProjectSummary[];
  favoriteIds: string[];
  onToggle: (project: ProjectSummary) => void;
  busy: boolean;
}) {
  const { language } = useRuntime();
  return (
    <Table.ScrollContainer minWidth={300}>
      <Table verticalSpacing={6} highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={36} aria-label="Favourite" />
            <Table.Th>Name</Table.Th>
            <Table.Th visibleFrom="sm">Access</Table.Th>
            <Table.Th>Modified</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {projects.map((project) => {
            const starred = favoriteIds.includes(project.id);
            return (
              <Table.Tr key={project.id}>
                <Table.Td>
                  <FavouriteButton name={project.name} starred={starred} disabled={busy} onToggle={() => onToggle(project)} />
                </Table.Td>
                <Table.Td className={classes.name}>
                  <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(project.id)}/data/`} title={project.name}>
                    {project.name}
                  </Anchor>
                </Table.Td>
                <Table.Td visibleFrom="sm">
                  <Badge size="sm" variant="light" color={project.level === 'ADMINISTER' ? 'blue' : 'gray'}>
                    {project.level}
                  </Badge>
                </Table.Td>
                <Table.Td className={classes.date}>{formatDate(project.modified, language)}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function NewProjectModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateProject();
  const [name, setName] = useState('');
  const close = () => {
    setName('');
    create.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return;
    create.mutate(name, {
      onSuccess: () => {
        notifications.show({ color: 'green', title: 'Project created', message: name.trim() });
        close();
      },
    });
  };
  return (
    <Modal opened={opened} onClose={close} title="New project" centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Project name" required data-autofocus value={name} maxLength={256} onChange={(event) => setName(event.currentTarget.value)} />
          {create.isError && (
            <Text c="red" size="sm" role="alert">
              {describeError(create.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
              Create project
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** The user's jobs and analyses that have not ended (at most 8), with their state. */
function RunningExecutions() {
  const executions = useRunningExecutions(8);
  const { language } = useRuntime();
  if (executions.isPending) return <LoadingState rows={2} label="Loading running executions" />;
  if (executions.isError) return <ErrorState error={executions.error} onRetry={() => void executions.refetch()} title="Could not load your executions" />;
  if (executions.data.length === 0) return <EmptyState title="Nothing running">Jobs and analyses you start appear here until they end.</EmptyState>;
  return (
    <Stack gap={6} component="ul" className={classes.executions}>
      {executions.data.map((execution) => (
        <li key={execution.id} className={classes.execution}>
          <Anchor component={Link} to={executionPath(execution)} className={classes.name} title={execution.name}>
            {execution.name}
          </Anchor>
          <Group gap={6} wrap="nowrap">
            <Badge size="sm" variant="light" color={stateColor(execution.state)}>
              {stateLabel(execution.state)}
            </Badge>
            <Text size="xs" c="dimmed" className={classes.date}>
              {formatDate(execution.created, language)}
            </Text>
          </Group>
        </li>
      ))}
    </Stack>
  );
}
