import { Alert, Button, Checkbox, Group, Modal, NumberInput, Paper, SimpleGrid, Stack, TagsInput, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { api } from '../../lib/api';
import { formatDate, orEmpty } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { ErrorState, LoadingState } from '../../ui/states';
import { useSession } from '../auth/session';
import { field, type ProjectDescription, projectKey, useMyOrgs, useProject } from './hooks';
import { ProjectHeader } from './ProjectHeader';
import { levelAtLeast, phiAllowed, showBillingAdminBanner, transferAllowed } from './project-rules';

type Field = string;

/** Project settings state of SPEC §3 (by project): delete modal, its request status, the field being updated. */
interface SettingsState {
  deleteProjectModalState: 'open' | 'closed';
  deleteProjectModalRequestStatus: 'none' | 'requesting' | 'failed';
  isDeleteProjectModalMessageDisplayed: boolean;
  updateProjectInfoSettingsLoading: boolean;
  fieldBeingUpdated: Field | undefined;
}

const INITIAL: SettingsState = {
  deleteProjectModalState: 'closed',
  deleteProjectModalRequestStatus: 'none',
  isDeleteProjectModalMessageDisplayed: false,
  updateProjectInfoSettingsLoading: false,
  fieldBeingUpdated: undefined,
};

/** `/panx/projects/{id}/settings`: every editable field of the project, the derived ones, delete, transfer, leave. */
export function ProjectSettingsPage() {
  const { id = '' } = useParams();
  const project = useProject(id);
  const orgs = useMyOrgs();
  const { language } = useRuntime();
  if (project.isPending) {
    return (
      <>
        <ProjectHeader projectId={id} active="settings" />
        <LoadingState rows={8} label="Loading the settings" />
      </>
    );
  }
  if (project.isError) {
    return (
      <>
        <ProjectHeader projectId={id} active="settings" />
        <ErrorState error={project.error} onRetry={() => void project.refetch()} title="Could not load the project" />
      </>
    );
  }
  // Keyed by the project only: a refetch after one section's save must not remount the form and wipe
  // what the user is typing in another section.
  return <Settings key={id} id={id} project={project.data} orgs={orgs.data ?? []} language={language} />;
}

function Section({ title, children, description }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title}>
      <Title order={2} size="h4">
        {title}
      </Title>
      {description && (
        <Text size="sm" c="dimmed" mb="sm">
          {description}
        </Text>
      )}
      <Stack gap="sm" mt={description ? 0 : 'sm'}>
        {children}
      </Stack>
    </Paper>
  );
}

function Settings({
  id,
  project,
  orgs,
  language,
}: {
  id: string;
  project: ProjectDescription;
  orgs: ReturnType<typeof useMyOrgs>['data'] & object;
  language: string;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { session } = useSession();
  const [state, setState] = useState<SettingsState>(INITIAL);
  const level = field.str(project, 'level');
  const isAdmin = level === 'ADMINISTER';
  const canEditInfo = levelAtLeast(level, 'CONTRIBUTE');
  const billTo = field.str(project, 'billTo');
  const billingOrg = orgs.find((org) => org.id === billTo);

  const [name, setName] = useState(field.str(project, 'name') ?? '');
  const [summary, setSummary] = useState(field.str(project, 'summary') ?? '');
  const [description, setDescription] = useState(field.str(project, 'description') ?? '');
  const [tags, setTags] = useState(field.list(project, 'tags'));
  const [properties, setProperties] = useState(
    Object.entries(field.record(project, 'properties'))
      .map(([key, value]) => `${key}=${String(value)}`)
      .join('\n'),
  );
  const [flags, setFlags] = useState({
    protected: field.bool(project, 'protected'),
    restricted: field.bool(project, 'restricted'),
    downloadRestricted: field.bool(project, 'downloadRestricted'),
    externalUploadRestricted: field.bool(project, 'externalUploadRestricted'),
    containsPHI: field.bool(project, 'containsPHI'),
    previewViewerRestricted: field.bool(project, 'previewViewerRestricted'),
  });
  const [computeLimit, setComputeLimit] = useState<number | string>(field.num(project, 'monthlyComputeLimit') ?? '');
  const [egressLimit, setEgressLimit] = useState<number | string>(
    field.num(project, 'monthlyEgressBytesLimit') !== undefined ? (field.num(project, 'monthlyEgressBytesLimit') ?? 0) / 1024 ** 3 : '',
  );
  const [allowed, setAllowed] = useState<string[]>(field.list(project, 'allowedExecutables'));
  const [instanceType, setInstanceType] = useState(field.str(project, 'defaultInstanceType') ?? '');
  const [transferring, setTransferring] = useState(false);
  const [leaving, setLeaving] = useState(false);

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: projectKey(id) });
    void queryClient.invalidateQueries({ queryKey: ['projects'] });
  };

  const save = async (fieldName: Field, action: () => Promise<unknown>) => {
    setState((s) => ({ ...s, updateProjectInfoSettingsLoading: true, fieldBeingUpdated: fieldName }));
    try {
      await action();
      notifications.show({ color: 'green', message: 'Saved' });
      refresh();
    } catch (error) {
      notifications.show({ color: 'red', title: 'Could not save', message: describeError(error) });
    } finally {
      setState((s) => ({ ...s, updateProjectInfoSettingsLoading: false, fieldBeingUpdated: undefined }));
    }
  };
  const busy = (fieldName: Field) => state.updateProjectInfoSettingsLoading && state.fieldBeingUpdated === fieldName;

  const saveInfo = (event: FormEvent) => {
    event.preventDefault();
    void save('info', async () => {
      await api().call('project-xxxx/update', id, { name: name.trim(), summary, description });
      const before = field.list(project, 'tags');
      const added = tags.filter((tag) => !before.includes(tag));
      const removed = before.filter((tag) => !tags.includes(tag));
      if (added.length) await api().call('project-xxxx/addTags', id, { tags: added });
      if (removed.length) await api().call('project-xxxx/removeTags', id, { tags: removed });
      const next = Object.fromEntries(
        properties
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean)
          .map((line) => {
            const [key = '', ...rest] = line.split('=');
            return [key.trim(), rest.join('=').trim()] as [string, string];
          })
          .filter(([key]) => key),
      );
      const old = field.record(project, 'properties');
      const change: Record<string, string | null> = {};
      for (const key of Object.keys(old)) if (!(key in next)) change[key] = null;
      for (const [key, value] of Object.entries(next)) if (old[key] !== value) change[key] = String(value ?? '');
      if (Object.keys(change).length) await api().call('project-xxxx/setProperties', id, { properties: change });
    });
  };

  const saveAccess = (event: FormEvent) => {
    event.preventDefault();
    void save('access', () =>
      api().call('project-xxxx/update', id, {
        protected: flags.protected,
        restricted: flags.restricted,
        downloadRestricted: flags.downloadRestricted,
        externalUploadRestricted: flags.externalUploadRestricted,
        previewViewerRestricted: flags.previewViewerRestricted,
        ...(flags.containsPHI && !field.bool(project, 'containsPHI') ? { containsPHI: true } : {}),
      }),
    );
  };

  const saveLimits = (event: FormEvent) => {
    event.preventDefault();
    void save('limits', () =>
      api().call('project-xxxx/update', id, {
        monthlyComputeLimit: computeLimit === '' ? null : Number(computeLimit),
        monthlyEgressBytesLimit: egressLimit === '' ? null : Math.round(Number(egressLimit) * 1024 ** 3),
        allowedExecutables: allowed.length ? allowed : null,
        ...(instanceType.trim() ? { defaultInstanceType: instanceType.trim() } : {}),
      }),
    );
  };

  const deleteProject = async () => {
    setState((s) => ({ ...s, deleteProjectModalRequestStatus: 'requesting' }));
    try {
      await api().call('project-xxxx/destroy', id, {});
      // SPEC §4: remove from the list, then redirect.
      queryClient.setQueriesData<{ id: string }[]>({ queryKey: ['projects', 'list'] }, (rows) => rows?.filter((row) => row.id !== id));
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      notifications.show({ color: 'green', message: `Project ${field.str(project, 'name') ?? id} deleted` });
      navigate('/panx/projects', { replace: true });
    } catch (error) {
      setState((s) => ({ ...s, deleteProjectModalRequestStatus: 'failed', isDeleteProjectModalMessageDisplayed: true }));
      notifications.show({ color: 'red', title: 'Could not delete the project', message: describeError(error) });
    }
  };

  const leave = async () => {
    try {
      await api().call('project-xxxx/leave', id, {});
      void queryClient.invalidateQueries({ queryKey: ['projects'] });
      navigate('/panx/projects', { replace: true });
    } catch (error) {
      notifications.show({ color: 'red', title: 'Could not leave the project', message: describeError(error) });
    }
  };

  const transfer = transferAllowed({ level, billTo, billingOrg });
  const phiPossible = phiAllowed(billTo ?? '', billingOrg);
  const createdBy = field.record(project, 'createdBy');
  const dataUsage = (field.num(project, 'dataUsage') ?? 0) + (field.num(project, 'sponsoredDataUsage') ?? 0);
  const permissions = field.record(project, 'permissions');
  const adminCount = Object.values(permissions).filter((value) => value === 'ADMINISTER').length;
  const myId = session?.userId ?? '';

  return (
    <Stack gap="md">
      <ProjectHeader projectId={id} active="settings" />
      {showBillingAdminBanner({ level, billTo, orgs }) && (
        <Alert color="blue" title="You administer the organisation that pays for this project">
          As an admin of {billTo} you see its bills, but you need ADMINISTER access on the project itself to change its settings.
        </Alert>
      )}
      {!canEditInfo && <Alert color="gray">You have {level} access: the settings are shown read-only.</Alert>}

      <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
        <Paper withBorder p="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Total data
          </Text>
          <Text size="xl" fw={700}>
            {dataUsage.toFixed(2)} GiB
          </Text>
          <Text size="xs" c="dimmed">
            Storage about {field.num(project, 'storageCost')?.toFixed(2) ?? '0.00'} USD a month
          </Text>
        </Paper>
        <Paper withBorder p="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Created
          </Text>
          <Text size="md" fw={600}>
            {formatDate(field.num(project, 'created'), language)}
          </Text>
          <Text size="xs" c="dimmed">
            by {orEmpty(typeof createdBy.user === 'string' ? createdBy.user : undefined)}
          </Text>
        </Paper>
        <Paper withBorder p="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Region and billing
          </Text>
          <Text size="md" fw={600}>
            {orEmpty(field.str(project, 'region'))}
          </Text>
          <Text size="xs" c="dimmed">
            Billed to {orEmpty(billTo)}
            {field.str(project, 'pendingTransfer') ? ` (transfer to ${field.str(project, 'pendingTransfer')} pending)` : ''}
          </Text>
        </Paper>
      </SimpleGrid>

      <form onSubmit={saveInfo}>
        <Section title="About this project">
          <TextInput label="Project name" value={name} onChange={(e) => setName(e.currentTarget.value)} disabled={!canEditInfo} required maxLength={2048} />
          <TextInput label="Summary" value={summary} onChange={(e) => setSummary(e.currentTarget.value)} disabled={!canEditInfo} maxLength={10_000} />
          <Textarea
            label="Description"
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            disabled={!canEditInfo}
            autosize
            minRows={3}
            maxRows={12}
          />
          <TagsInput label="Tags" value={tags} onChange={setTags} disabled={!canEditInfo} />
          <Textarea
            label="Properties"
            description="One key=value per line"
            value={properties}
            onChange={(e) => setProperties(e.currentTarget.value)}
            disabled={!canEditInfo}
            autosize
            minRows={2}
          />
          {canEditInfo && (
            <Group justify="flex-end">
              <Button type="submit" loading={busy('info')} disabled={!name.trim()}>
                Save
              </Button>
            </Group>
          )}
        </Section>
      </form>

      <form onSubmit={saveAccess}>
        <Section title="Access and restrictions" description={isAdmin ? undefined : 'Only project administrators change these.'}>
          <Checkbox
            label="Protected: only administrators delete data"
            checked={flags.protected}
            disabled={!isAdmin}
            onChange={(e) => setFlags({ ...flags, protected: e.currentTarget.checked })}
          />
          <Checkbox
            label="Restricted: shared only within the billing organisation, data cannot leave"
            checked={flags.restricted}
            disabled={!isAdmin}
            onChange={(e) => setFlags({ ...flags, restricted: e.currentTarget.checked })}
          />
          <Checkbox
            label="Downloads restricted"
            checked={flags.downloadRestricted}
            disabled={!isAdmin}
            onChange={(e) => setFlags({ ...flags, downloadRestricted: e.currentTarget.checked })}
          />
          <Checkbox
            label="Uploads from outside restricted"
            checked={flags.externalUploadRestricted}
            disabled={!isAdmin}
            onChange={(e) => setFlags({ ...flags, externalUploadRestricted: e.currentTarget.checked })}
          />
          <Checkbox
            label="File previews restricted"
            checked={flags.previewViewerRestricted}
            disabled={!isAdmin}
            onChange={(e) => setFlags({ ...flags, previewViewerRestricted: e.currentTarget.checked })}
          />
          {(phiPossible || field.bool(project, 'containsPHI')) && (
            <Checkbox
              label="Contains PHI (cannot be undone)"
              checked={flags.containsPHI}
              disabled={!isAdmin || field.bool(project, 'containsPHI')}
              onChange={(e) => setFlags({ ...flags, containsPHI: e.currentTarget.checked })}
            />
          )}
          {isAdmin && (
            <Group justify="flex-end">
              <Button type="submit" loading={busy('access')}>
                Save
              </Button>
            </Group>
          )}
        </Section>
      </form>

      <form onSubmit={saveLimits}>
        <Section title="Limits and execution" description="Monthly limits stop new work once reached. Leave empty for no limit.">
          <Group grow align="flex-start" wrap="wrap">
            <NumberInput label="Monthly compute limit (USD)" min={0} value={computeLimit} onChange={setComputeLimit} disabled={!isAdmin} />
            <NumberInput label="Monthly egress limit (GiB)" min={0} value={egressLimit} onChange={setEgressLimit} disabled={!isAdmin} />
          </Group>
          <TagsInput
            label="Allowed executables"
            description="app-, applet-, workflow- or globalworkflow- IDs; empty allows everything"
            value={allowed}
            onChange={setAllowed}
            disabled={!isAdmin}
          />
          <TextInput
            label="Default instance type"
            value={instanceType}
            onChange={(e) => setInstanceType(e.currentTarget.value)}
            disabled={!isAdmin}
            placeholder="mem2_hdd2_x2"
          />
          {isAdmin && (
            <Group justify="flex-end">
              <Button type="submit" loading={busy('limits')}>
                Save
              </Button>
            </Group>
          )}
        </Section>
      </form>

      <Section title="Danger zone">
        <Group justify="space-between" wrap="wrap">
          <div>
            <Text fw={500}>Transfer the project</Text>
            <Text size="sm" c="dimmed">
              {transfer.allowed ? 'Bill it to another organisation (at once) or user (once they accept).' : transfer.reason}
            </Text>
          </div>
          <Button variant="default" disabled={!transfer.allowed} onClick={() => setTransferring(true)}>
            Transfer…
          </Button>
        </Group>
        <Group justify="space-between" wrap="wrap">
          <div>
            <Text fw={500}>Leave the project</Text>
            <Text size="sm" c="dimmed">
              {isAdmin && adminCount <= 1 && permissions[myId] === 'ADMINISTER'
                ? 'You are its only administrator: make someone else one first.'
                : 'Give up your access.'}
            </Text>
          </div>
          <Button variant="default" color="red" disabled={isAdmin && adminCount <= 1 && permissions[myId] === 'ADMINISTER'} onClick={() => setLeaving(true)}>
            Leave…
          </Button>
        </Group>
        <Group justify="space-between" wrap="wrap">
          <div>
            <Text fw={500}>Delete the project</Text>
            <Text size="sm" c="dimmed">
              {isAdmin ? 'Deletes the project and all its data.' : 'Only administrators delete a project.'}
            </Text>
          </div>
          <Button
            color="red"
            disabled={!isAdmin}
            onClick={() => setState((s) => ({ ...s, deleteProjectModalState: 'open', deleteProjectModalRequestStatus: 'none' }))}
          >
            Delete project…
          </Button>
        </Group>
      </Section>

      <DeleteProjectModal
        opened={state.deleteProjectModalState === 'open'}
        name={field.str(project, 'name') ?? id}
        requesting={state.deleteProjectModalRequestStatus === 'requesting'}
        failed={state.isDeleteProjectModalMessageDisplayed}
        onClose={() => setState((s) => ({ ...s, deleteProjectModalState: 'closed', isDeleteProjectModalMessageDisplayed: false }))}
        onConfirm={() => void deleteProject()}
      />
      <TransferModal
        opened={transferring}
        id={id}
        orgs={orgs.filter((org) => org.billable).map((org) => org.id)}
        onClose={() => setTransferring(false)}
        onDone={refresh}
      />
      <Modal opened={leaving} onClose={() => setLeaving(false)} title="Leave the project" centered>
        <Stack>
          <Text size="sm">You will lose your access to {field.str(project, 'name') ?? id} unless someone shares it with you again.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setLeaving(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => void leave()}>
              Leave
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function DeleteProjectModal({
  opened,
  name,
  requesting,
  failed,
  onClose,
  onConfirm,
}: {
  opened: boolean;
  name: string;
  requesting: boolean;
  failed: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  const [typed, setTyped] = useState('');
  useEffect(() => {
    if (!opened) setTyped('');
  }, [opened]);
  return (
    <Modal opened={opened} onClose={onClose} title="Delete project" centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (typed === name) onConfirm();
        }}
      >
        <Stack gap="sm">
          <Text size="sm">
            This deletes the project and every file in it that no other project holds. It cannot be undone. Type the project's name to confirm.
          </Text>
          <TextInput label="Project name" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} data-autofocus />
          {failed && (
            <Alert color="red" role="alert">
              The project could not be deleted.
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" color="red" loading={requesting} disabled={typed !== name}>
              Delete project
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function TransferModal({ opened, id, orgs, onClose, onDone }: { opened: boolean; id: string; orgs: string[]; onClose: () => void; onDone: () => void }) {
  const [invitee, setInvitee] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const result = await api().call('project-xxxx/transfer', id, { invitee: invitee.trim() });
      notifications.show({
        color: 'green',
        message: result.state === 'PENDING' ? `Transfer offered to ${invitee}: it completes when they accept.` : `Now billed to ${invitee}`,
      });
      onDone();
      onClose();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Transfer the project" centered>
      <form onSubmit={(event) => void submit(event)}>
        <Stack gap="sm">
          <TextInput
            label="New billing account"
            description={orgs.length ? `An org where you may bill (${orgs.join(', ')}) or a user id` : 'A user id (user-…) or an org id (org-…)'}
            value={invitee}
            onChange={(e) => setInvitee(e.currentTarget.value)}
            data-autofocus
          />
          {error !== undefined && (
            <Alert color="red" role="alert">
              {describeError(error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy} disabled={!/^(user|org)-/.test(invitee.trim())}>
              Transfer
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
