import { Anchor, Badge, Button, Card, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { CommunityDescribe, CommunityWidget } from '@panx/contract';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { formatDate } from '../../lib/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { recentProjects } from '../home/home-lists';
import { useVisibleProjects } from '../home/hooks';
import { NotificationList } from '../notifications/NotificationList';
import classes from './Community.module.css';
import { classifyHref, initialsOf, safeLogo } from './community-rules';
import { useCommunity } from './hooks';

/** `/panx/communities/{id}/home` and `/panx/co/{id}/home`: a community's landing page with its branding. */
export function CommunityHomePage() {
  const { id = '' } = useParams();
  const community = useCommunity(id);

  if (community.isPending) return <LoadingState rows={6} label="Loading the community" />;
  if (community.isError) {
    return (
      <Stack maw={720} mx="auto">
        <ErrorState error={community.error} onRetry={() => void community.refetch()} title="Could not load this community" />
        <Anchor component={Link} to="/panx/home">
          Back to the home page
        </Anchor>
      </Stack>
    );
  }
  const data = community.data;
  const { assets } = data;
  const home = assets.home;
  return (
    <Stack gap="lg" data-testid="community-home">
      <Paper withBorder radius="md" p={{ base: 'md', sm: 'xl' }} className={classes.hero}>
        <Group align="flex-start" wrap="nowrap" gap="lg" className={classes.heroRow}>
          <CommunityLogo community={data} />
          <Stack gap={6} className={classes.heroText}>
            <Group gap="xs">
              <Title order={1} size="h2" className={classes.name}>
                {data.name}
              </Title>
              {data.isDefault ? (
                <Badge variant="light" color="gray">
                  Platform
                </Badge>
              ) : data.level ? (
                <Badge variant="light">{data.level === 'ADMIN' ? 'Admin' : 'Member'}</Badge>
              ) : null}
            </Group>
            {assets.description && <Text className={classes.description}>{assets.description}</Text>}
          </Stack>
        </Group>
        {assets.navigation.length > 0 && (
          <nav aria-label={`${data.name} links`} className={classes.navigation}>
            {assets.navigation.map((link) => (
              <CommunityLink key={`${link.label}-${link.href}`} href={link.href} variant="button">
                {link.label}
              </CommunityLink>
            ))}
          </nav>
        )}
      </Paper>

      {(home.headline || home.intro) && (
        <div>
          {home.headline && (
            <Title order={2} size="h3">
              {home.headline}
            </Title>
          )}
          {home.intro && (
            <Text c="dimmed" className={classes.description}>
              {home.intro}
            </Text>
          )}
        </div>
      )}

      {home.sections && home.sections.length > 0 && (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {home.sections.map((section) => (
            <Card key={section.title} withBorder padding="md" component="section" aria-label={section.title}>
              <Title order={3} size="h5" mb={4}>
                {section.title}
              </Title>
              {section.body && (
                <Text size="sm" c="dimmed" className={classes.description}>
                  {section.body}
                </Text>
              )}
              {section.links && section.links.length > 0 && (
                <Stack gap={2} mt="sm">
                  {section.links.map((link) => (
                    <CommunityLink key={`${link.label}-${link.href}`} href={link.href}>
                      {link.label}
                    </CommunityLink>
                  ))}
                </Stack>
              )}
            </Card>
          ))}
        </SimpleGrid>
      )}

      {data.widgets.length > 0 && (
        <SimpleGrid cols={{ base: 1, md: Math.min(data.widgets.length, 2), lg: Math.min(data.widgets.length, 3) }} spacing="md">
          {data.widgets.map((widget) => (
            <Widget key={widget} widget={widget} community={data} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function CommunityLogo({ community }: { community: CommunityDescribe }) {
  const logo = safeLogo(community.assets.headerLogo);
  if (logo) return <img src={logo} alt={`${community.name} logo`} className={classes.logo} />;
  return (
    <span className={classes.initials} aria-hidden="true">
      {community.isDefault ? 'P' : initialsOf(community.name)}
    </span>
  );
}

/** App links go through the router; https:// links open apart without handing over this page. */
function CommunityLink({ href, children, variant }: { href: string; children: ReactNode; variant?: 'button' }) {
  const target = classifyHref(href);
  if (target.kind === 'invalid') return null;
  if (variant === 'button') {
    return target.kind === 'app' ? (
      <Button component={Link} to={target.to} variant="light" size="xs">
        {children}
      </Button>
    ) : (
      <Button component="a" href={target.href} target="_blank" rel="noopener noreferrer" variant="light" size="xs">
        {children} ↗
      </Button>
    );
  }
  return target.kind === 'app' ? (
    <Anchor component={Link} to={target.to} size="sm">
      {children}
    </Anchor>
  ) : (
    <Anchor href={target.href} target="_blank" rel="noopener noreferrer" size="sm">
      {children} ↗
    </Anchor>
  );
}

function Widget({ widget, community }: { widget: CommunityWidget; community: CommunityDescribe }) {
  if (widget === 'notifications') {
    return (
      <Card withBorder padding="md" component="section" aria-labelledby="community-notifications">
        <Title order={2} size="h4" id="community-notifications" mb="sm">
          Notifications
        </Title>
        <NotificationList limit={5} />
      </Card>
    );
  }
  if (widget === 'projects') return <ProjectsWidget community={community} />;
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="community-actions">
      <Title order={2} size="h4" id="community-actions" mb="sm">
        Quick actions
      </Title>
      <Group gap="xs">
        <Button component={Link} to="/panx/projects" size="xs">
          Projects
        </Button>
        <Button component={Link} to="/panx/tools" size="xs" variant="default">
          Tools
        </Button>
        <Button component={Link} to="/panx/data" size="xs" variant="default">
          Data
        </Button>
      </Group>
    </Card>
  );
}

/** The community's projects: those billed to its org (for the platform's own, the user's recent ones). */
function ProjectsWidget({ community }: { community: CommunityDescribe }) {
  const projects = useVisibleProjects();
  const { language } = useRuntime();
  const title = community.org ? `Projects of ${community.name}` : 'Recent projects';
  const list = projects.data ? recentProjects(community.org ? projects.data.filter((p) => p.billTo === community.org) : projects.data, 6) : [];
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="community-projects">
      <Title order={2} size="h4" id="community-projects" mb="sm">
        {title}
      </Title>
      {projects.isPending ? (
        <LoadingState rows={3} label="Loading projects" />
      ) : projects.isError ? (
        <ErrorState error={projects.error} onRetry={() => void projects.refetch()} title="Could not load projects" />
      ) : list.length === 0 ? (
        <EmptyState title="No projects here yet">{community.org ? `Projects billed to ${community.org} that you can see appear here.` : undefined}</EmptyState>
      ) : (
        <Stack gap={6} component="ul" className={classes.projects}>
          {list.map((project) => (
            <li key={project.id} className={classes.project}>
              <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(project.id)}/data/`} className={classes.projectName} title={project.name}>
                {project.name}
              </Anchor>
              <Text size="xs" c="dimmed" className={classes.projectDate}>
                {formatDate(project.modified, language)}
              </Text>
            </li>
          ))}
        </Stack>
      )}
    </Card>
  );
}
