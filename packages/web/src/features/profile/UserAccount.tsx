import { Button, Card, Checkbox, Group, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { UserDescribe } from '@panx/contract';
import { type FormEvent, useMemo, useState } from 'react';
import { useRuntime } from '../../app/runtime';
import { formatDate, orEmpty } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { useUpdateUser } from './hooks';
import { countryOptions, US_STATES } from './regions';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** Name and e-mail (user record), then the profile fields kept in session data (SPEC §3). */
export function UserAccount({ user }: { user: UserDescribe }) {
  return (
    <Stack gap="md">
      <NameAndEmail user={user} />
      <ProfileDetails user={user} />
      <Card withBorder padding="md" id="account">
        <Title order={2} size="h4" mb="xs">
          Account
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs">
          <Field label="Username" value={orEmpty(user.handle)} />
          <Field label="User ID" value={user.id} />
          <Field label="Member since" value={formatDate(user.created)} />
          <Field label="Organizations" value={orEmpty((user.orgs ?? []).join(', '))} />
          <Field label="Administrator" value={user.admin ? 'Yes' : 'No'} />
        </SimpleGrid>
      </Card>
    </Stack>
  );
}

function Field({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </div>
  );
}

function NameAndEmail({ user }: { user: UserDescribe }) {
  const update = useUpdateUser();
  const [first, setFirst] = useState(user.first ?? '');
  const [middle, setMiddle] = useState(user.middle ?? '');
  const [last, setLast] = useState(user.last ?? '');
  const [email, setEmail] = useState(user.email ?? '');
  const emailError = email && !EMAIL.test(email.trim()) ? 'Expected an e-mail address' : undefined;
  const changed = first !== (user.first ?? '') || middle !== (user.middle ?? '') || last !== (user.last ?? '') || email !== (user.email ?? '');
  const valid = first.trim() && last.trim() && email.trim() && !emailError;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    update.mutate(
      { first: first.trim(), middle: middle.trim(), last: last.trim(), email: email.trim() },
      {
        onSuccess: () => notifications.show({ color: 'green', message: 'Your name and e-mail address were saved.' }),
        onError: (error) => notifications.show({ color: 'red', title: 'Could not save', message: describeError(error) }),
      },
    );
  };

  return (
    <Card withBorder padding="md" component="section" id="profile" aria-labelledby="profile-title">
      <form onSubmit={submit}>
        <Title order={2} size="h4" mb="sm" id="profile-title">
          Name and e-mail
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
          <TextInput label="First name" required value={first} maxLength={256} onChange={(e) => setFirst(e.currentTarget.value)} />
          <TextInput label="Middle name" value={middle} maxLength={256} onChange={(e) => setMiddle(e.currentTarget.value)} />
          <TextInput label="Last name" required value={last} maxLength={256} onChange={(e) => setLast(e.currentTarget.value)} />
        </SimpleGrid>
        <TextInput
          mt="sm"
          label="E-mail address"
          type="email"
          required
          value={email}
          error={emailError}
          onChange={(e) => setEmail(e.currentTarget.value)}
          maw={420}
        />
        <Group mt="md">
          <Button type="submit" loading={update.isPending} disabled={!changed || !valid}>
            Save
          </Button>
        </Group>
      </form>
    </Card>
  );
}

function ProfileDetails({ user }: { user: UserDescribe }) {
  const { language } = useRuntime();
  const update = useUpdateUser();
  const data = (user.sessionData ?? {}) as Record<string, unknown>;
  const [institution, setInstitution] = useState(text(data.institution));
  const [organization, setOrganization] = useState(text(data.organization));
  const [jobTitle, setJobTitle] = useState(text(data.jobTitle));
  const [countryCode, setCountryCode] = useState<string | null>(text(data.countryCode) || null);
  const [stateCode, setStateCode] = useState(text(data.stateCode));
  const [receivePlatformEmail, setReceivePlatformEmail] = useState(data.receivePlatformEmail !== false);
  const countries = useMemo(() => countryOptions(language), [language]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      {
        sessionData: {
          institution: institution.trim(),
          organization: organization.trim(),
          jobTitle: jobTitle.trim(),
          countryCode: countryCode ?? '',
          stateCode: stateCode.trim(),
          receivePlatformEmail,
        },
      },
      {
        onSuccess: () => notifications.show({ color: 'green', message: 'Your profile was saved.' }),
        onError: (error) => notifications.show({ color: 'red', title: 'Could not save', message: describeError(error) }),
      },
    );
  };

  return (
    <Card withBorder padding="md" component="section" id="details" aria-labelledby="details-title">
      <form onSubmit={submit}>
        <Title order={2} size="h4" mb="sm" id="details-title">
          Profile
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Institution" value={institution} maxLength={256} onChange={(e) => setInstitution(e.currentTarget.value)} />
          <TextInput label="Organization" value={organization} maxLength={256} onChange={(e) => setOrganization(e.currentTarget.value)} />
          <TextInput label="Job title" value={jobTitle} maxLength={256} onChange={(e) => setJobTitle(e.currentTarget.value)} />
          <Select
            label="Country"
            data={countries}
            value={countryCode}
            onChange={(value) => {
              setCountryCode(value);
              setStateCode('');
            }}
            searchable
            clearable
            nothingFoundMessage="No such country"
          />
          {countryCode === 'US' ? (
            <Select
              label="State"
              data={US_STATES.map(([value, label]) => ({ value, label }))}
              value={stateCode || null}
              onChange={(value) => setStateCode(value ?? '')}
              searchable
              clearable
            />
          ) : (
            <TextInput label="State or province" value={stateCode} maxLength={128} onChange={(e) => setStateCode(e.currentTarget.value)} />
          )}
        </SimpleGrid>
        <Checkbox
          mt="md"
          id="preferences"
          label="Send me e-mail about platform news and maintenance"
          checked={receivePlatformEmail}
          onChange={(e) => setReceivePlatformEmail(e.currentTarget.checked)}
        />
        <Group mt="md">
          <Button type="submit" loading={update.isPending}>
            Save profile
          </Button>
        </Group>
      </form>
    </Card>
  );
}
