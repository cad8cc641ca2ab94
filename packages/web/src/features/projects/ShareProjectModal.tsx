import { ActionIcon, Alert, Button, Group, Modal, Select, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { useSession } from '../auth/session';
import { field, type ProjectDescription, projectKey } from './hooks';
import { ACCESS_LEVELS, levelChange, removesLastAdmin, shareControls } from './project-rules';

/** The share-project modal (SPEC §2/§3, closed by default): members, their levels, invitations. */
export function ShareProjectModal({ opened, project, onClose }: { opened: boolean; project: ProjectDescription | undefined; onClose: () => void }) {
  const queryClient = useQueryClient();
  const { session } = useSession();
  const me = session?.userId ?? '';
  const id = project?.id ?? '';
  const myLevel = field.str(project, 'level');
  const permissions = field.record(project, 'permissions');
  const admin = myLevel === 'ADMINISTER';
  const [invitee, setInvitee] = useState('');
  const [level, setLevel] = useState<string>('VIEW');
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();

  const run = async (key: string, action: () => Promise<unknown>, message: string) => {
    setBusy(key);
    setError(undefined);
    try {
      await action();
      notifications.show({ color: 'green', message });
      await queryClient.invalidateQueries({ queryKey: projectKey(id) });
      return true;
    } catch (caught) {
      setError(caught);
      return false;
    } finally {
      setBusy(undefined);
    }
  };

  const invite = async (event: FormEvent) => {
    event.preventDefault();
    const who = invitee.trim();
    if (await run('invite', () => api().call('project-xxxx/invite', id, { invitee: who, level: level as 'VIEW' }), `Shared with ${who} (${level})`))
      setInvitee('');
  };

  const change = (member: string, current: string, next: string | null) => {
    if (next === null) {
      void run(member, () => api().call('project-xxxx/decreasePermissions', id, { [member]: null }), `${member} removed`);
      return;
    }
    const kind = levelChange(current, next);
    if (kind === 'invite')
      void run(member, () => api().call('project-xxxx/invite', id, { invitee: member, level: next as 'VIEW' }), `${member} is now ${next}`);
    if (kind === 'decrease')
      void run(member, () => api().call('project-xxxx/decreasePermissions', id, { [member]: next as 'VIEW' }), `${member} is now ${next}`);
  };

  const members = Object.entries(permissions).sort(([a], [b]) => (a < b ? -1 : 1));
  return (
    <Modal opened={opened} onClose={onClose} title={`Share ${field.str(project, 'name') ?? ''}`} size="lg" centered>
      <Stack gap="sm">
        {admin ? (
          <form onSubmit={(event) => void invite(event)}>
            <Group align="flex-end" gap="xs" wrap="wrap">
              <TextInput
                label="User or organisation"
                placeholder="user-bob or org-lab"
                value={invitee}
                onChange={(event) => setInvitee(event.currentTarget.value)}
                style={{ flex: '1 1 200px' }}
              />
              <Select label="Access" data={[...ACCESS_LEVELS]} value={level} onChange={(value) => value && setLevel(value)} allowDeselect={false} w={150} />
              <Button type="submit" loading={busy === 'invite'} disabled={!/^(user|org)-/.test(invitee.trim())}>
                Share
              </Button>
            </Group>
          </form>
        ) : (
          <Text size="sm" c="dimmed">
            Only project administrators share the project or change access. You have {myLevel} access.
          </Text>
        )}
        {error !== undefined && (
          <Alert color="red" role="alert" title="Could not change the sharing">
            {describeError(error)}
          </Alert>
        )}
        <Table aria-label="Members" verticalSpacing={4}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Member</Table.Th>
              <Table.Th w={170}>Access</Table.Th>
              <Table.Th w={48} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.map(([member, value]) => {
              const current = String(value);
              const controls = shareControls(myLevel, me, member);
              const lastAdmin = removesLastAdmin(permissions, member, null);
              return (
                <Table.Tr key={member}>
                  <Table.Td>
                    <Text size="sm">
                      {member}
                      {member === me ? ' (you)' : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Select
                      size="xs"
                      aria-label={`Access of ${member}`}
                      data={[...ACCESS_LEVELS]}
                      value={current}
                      disabled={!controls.canChange || busy === member}
                      onChange={(next) =>
                        next &&
                        (!removesLastAdmin(permissions, member, next)
                          ? change(member, current, next)
                          : setError(new Error('A project keeps at least one administrator.')))
                      }
                      allowDeselect={false}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={lastAdmin ? 'The last administrator cannot be removed' : member === me ? 'Leave' : 'Remove'} withinPortal>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={`Remove ${member}`}
                        disabled={!controls.canRemove || lastAdmin || busy === member}
                        onClick={() => change(member, current, null)}
                      >
                        ✕
                      </ActionIcon>
                    </Tooltip>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
