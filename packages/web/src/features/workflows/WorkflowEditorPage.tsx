import { Alert, Anchor, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { field, useProject } from '../projects/hooks';
import { folderProblem, normalizeFolder } from './import-status';
import { editBlockedReason } from './model';
import { WorkflowEditor } from './WorkflowEditor';

const WORKFLOW_ID = /^workflow-[0-9A-Za-z]{24}$/;

/** `/panx/projects/{id}/workflows/{workflow}`: the editor; `/workflows/new` makes an empty workflow first. */
export function WorkflowEditorPage() {
  const { id = '', workflow = '' } = useParams();
  if (workflow === 'new') return <NewWorkflow projectId={id} />;
  if (!WORKFLOW_ID.test(workflow)) {
    return (
      <Stack p="md" maw={640}>
        <Alert color="red" title="Not a workflow" role="alert">
          “{workflow}” is not a workflow ID (workflow-xxxx).{' '}
          <Anchor component={Link} to={`/panx/projects/${id}/workflows/new`}>
            Create a new workflow
          </Anchor>{' '}
          instead?
        </Alert>
      </Stack>
    );
  }
  return <WorkflowEditor key={workflow} projectId={id} workflowId={workflow} />;
}

function NewWorkflow({ projectId }: { projectId: string }) {
  const navigate = useNavigate();
  const project = useProject(projectId);
  const [name, setName] = useState('');
  // The data page's "New workflow" passes the folder on screen.
  const [searchParams] = useSearchParams();
  const [folder, setFolder] = useState(searchParams.get('folder') ?? '/');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const level = field.str(project.data, 'level');
  const blocked = level ? editBlockedReason('open', level) : undefined;
  const folderError = folderProblem(folder);
  const submit = async () => {
    if (!name.trim() || folderError) return;
    setSaving(true);
    setError(null);
    try {
      const { id } = await api().call('workflow/new', { project: projectId, name: name.trim(), folder: normalizeFolder(folder), parents: true, stages: [] });
      navigate(`/panx/projects/${projectId}/workflows/${id}`, { replace: true });
    } catch (problem) {
      setError(describeError(problem));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Stack p="md" maw={560} mx="auto" mt="lg">
      <Card
        withBorder
        padding="lg"
        component="form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Stack gap="sm">
          <Title order={1} size="h3">
            New workflow
          </Title>
          <Text size="sm" c="dimmed">
            In {field.str(project.data, 'name') ?? projectId}. An empty workflow opens in the editor, where you add its stages.
          </Text>
          {blocked && (
            <Alert color="gray" title="Cannot create workflows here">
              {blocked}
            </Alert>
          )}
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} data-autofocus placeholder="e.g. align-and-call" />
          <TextInput label="Folder" value={folder} onChange={(e) => setFolder(e.currentTarget.value)} error={folderError} description="Created when missing" />
          {error && (
            <Alert color="red" role="alert" title="Not created">
              {error}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button component={Link} to={`/panx/projects/${projectId}/data/`} variant="default">
              Cancel
            </Button>
            <Button type="submit" loading={saving} disabled={!name.trim() || Boolean(folderError) || Boolean(blocked)}>
              Create and edit
            </Button>
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
