import { Alert, Button, Checkbox, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { describeError } from '../../ui/describe-error';
import { useSession } from '../auth/session';
import { useCreateProject, useMyOrgs } from './hooks';
import { billingOptions, defaultRegionFor, permittedRegions, phiAllowed } from './project-rules';

/** New project (SPEC §4 creation start/success/fail): name, billing, region, PHI, restrictions. */
export function NewProjectDialog({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated?: (id: string) => void }) {
  const { session } = useSession();
  const userId = session?.userId ?? '';
  const orgs = useMyOrgs();
  const create = useCreateProject();
  const options = useMemo(() => billingOptions(userId, orgs.data ?? []), [userId, orgs.data]);
  const [name, setName] = useState('');
  const [billTo, setBillTo] = useState(userId);
  const billingOrg = options.find((option) => option.value === billTo)?.org;
  const regions = permittedRegions(billingOrg);
  const [region, setRegion] = useState(defaultRegionFor(billingOrg));
  const [containsPHI, setContainsPHI] = useState(false);
  const [restricted, setRestricted] = useState(false);
  const [protectedProject, setProtected] = useState(false);
  const [downloadRestricted, setDownloadRestricted] = useState(false);
  const [externalUploadRestricted, setExternalUploadRestricted] = useState(false);
  const canPhi = phiAllowed(billTo, billingOrg);

  useEffect(() => {
    if (!regions.includes(region)) setRegion(defaultRegionFor(billingOrg));
    if (!canPhi && containsPHI) setContainsPHI(false);
  }, [regions, region, billingOrg, canPhi, containsPHI]);
  useEffect(() => {
    if (!billTo && userId) setBillTo(userId);
  }, [billTo, userId]);

  const close = () => {
    setName('');
    create.reset();
    onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return;
    create.mutate(
      {
        name,
        billTo: billTo || undefined,
        region,
        ...(canPhi && containsPHI ? { containsPHI: true } : {}),
        restricted,
        protected: protectedProject,
        downloadRestricted,
        externalUploadRestricted,
      },
      {
        onSuccess: ({ id }) => {
          notifications.show({ color: 'green', title: 'Project created', message: name.trim() });
          close();
          onCreated?.(id);
        },
      },
    );
  };
  return (
    <Modal opened={opened} onClose={close} title="New project" centered size="lg">
      <form onSubmit={submit}>
        <Stack gap="sm">
          <TextInput label="Project name" required data-autofocus value={name} maxLength={2048} onChange={(event) => setName(event.currentTarget.value)} />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <Select
              label="Billed to"
              data={options.map(({ value, label }) => ({ value, label }))}
              value={billTo}
              onChange={(value) => value && setBillTo(value)}
              allowDeselect={false}
              description={orgs.isPending ? 'Loading your organisations…' : undefined}
            />
            <Select label="Region" data={regions} value={region} onChange={(value) => value && setRegion(value)} allowDeselect={false} />
          </SimpleGrid>
          {canPhi && (
            <Checkbox
              label="Contains protected health information (PHI)"
              description="Adds PHI protections; this cannot be undone."
              checked={containsPHI}
              onChange={(event) => setContainsPHI(event.currentTarget.checked)}
            />
          )}
          <Checkbox
            label="Restricted"
            description="Shared only with members of the billing organisation; data cannot be copied out."
            checked={restricted}
            onChange={(event) => setRestricted(event.currentTarget.checked)}
          />
          <Checkbox
            label="Protected"
            description="Only administrators can delete data."
            checked={protectedProject}
            onChange={(event) => setProtected(event.currentTarget.checked)}
          />
          <Checkbox
            label="Downloads restricted"
            description="Nobody can download data or copy it to other projects."
            checked={downloadRestricted}
            onChange={(event) => setDownloadRestricted(event.currentTarget.checked)}
          />
          <Checkbox
            label="Uploads from outside restricted"
            description="Data can only be added by jobs inside the project."
            checked={externalUploadRestricted}
            onChange={(event) => setExternalUploadRestricted(event.currentTarget.checked)}
          />
          {create.isError && (
            <Alert color="red" role="alert" title="Could not create the project">
              <Text size="sm">{describeError(create.error)}</Text>
            </Alert>
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
