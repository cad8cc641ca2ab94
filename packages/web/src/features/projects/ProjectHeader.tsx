import { Anchor, Badge, Button, Group, Skeleton, Tabs, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { field, useProject } from './hooks';
import classes from './ProjectHeader.module.css';
import { ShareProjectModal } from './ShareProjectModal';

/** The project widget destinations of SPEC §2. */
const WIDGETS = [
  { value: 'data', label: 'Data', path: 'data/' },
  { value: 'settings', label: 'Settings', path: 'settings' },
  { value: 'monitor', label: 'Monitor', path: 'monitor' },
  { value: 'samples', label: 'Samples', path: 'visualize/samples' },
  { value: 'visualize', label: 'Visualize', path: 'visualize' },
] as const;
export type ProjectWidget = (typeof WIDGETS)[number]['value'];

/** The project header (48 px, SPEC §2): name, access level, billing, and the widget tabs. */
export function ProjectHeader({ projectId, active }: { projectId: string; active: ProjectWidget }) {
  const project = useProject(projectId);
  const navigate = useNavigate();
  const name = field.str(project.data, 'name');
  const level = field.str(project.data, 'level');
  const billTo = field.str(project.data, 'billTo');
  const [sharing, setSharing] = useState(false);
  return (
    <div className={classes.header}>
      <div className={classes.title}>
        <Anchor component={Link} to="/panx/projects" size="sm" c="dimmed">
          Projects
        </Anchor>
        <Text c="dimmed" size="sm" aria-hidden>
          /
        </Text>
        {project.isPending ? (
          <Skeleton height={22} width={200} />
        ) : (
          <Title order={1} size="h3" className={classes.name} title={name ?? projectId}>
            {name ?? projectId}
          </Title>
        )}
        <Group gap={6} wrap="nowrap" className={classes.badges}>
          {level && (
            <Badge size="sm" variant="light" color={level === 'ADMINISTER' ? 'blue' : 'gray'} aria-label={`Your access: ${level}`}>
              {level}
            </Badge>
          )}
          {billTo && (
            <Text size="xs" c="dimmed" visibleFrom="sm">
              Billed to {billTo}
            </Text>
          )}
        </Group>
        <Button size="xs" variant="default" ml="auto" onClick={() => setSharing(true)} disabled={!project.data} className={classes.share}>
          Share
        </Button>
      </div>
      <ShareProjectModal opened={sharing} project={project.data} onClose={() => setSharing(false)} />
      <Tabs
        value={active}
        onChange={(value) => {
          const widget = WIDGETS.find((w) => w.value === value);
          if (widget) navigate(`/panx/projects/${encodeURIComponent(projectId)}/${widget.path}`);
        }}
        classNames={{ list: classes.tabs }}
      >
        <Tabs.List>
          {WIDGETS.map((widget) => (
            <Tabs.Tab key={widget.value} value={widget.value}>
              {widget.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
    </div>
  );
}
