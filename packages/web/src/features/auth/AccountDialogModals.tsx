import { Anchor, Button, Checkbox, Group, Modal, ScrollArea, Select, Stack, Text, TextInput } from '@mantine/core';
import type { UserDescribe } from '@panx/contract';
import { type FormEvent, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { runInBackground } from '../../app/error-reporting';
import { useRuntime } from '../../app/runtime';
import { describeError } from '../../ui/describe-error';
import { useUpdateUser } from '../profile/hooks';
import { countryOptions } from '../profile/regions';
import type { LegalTerms } from './dialog-rules';
import { useSignOut } from './hooks';

/** The dialogs themselves, loaded only when one is due (they stay out of the home page's bundle). */
export function LegalTermsDialog({ terms }: { terms: LegalTerms }) {
  const update = useUpdateUser();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const [read, setRead] = useState(false);
  const accept = () => update.mutate({ sessionData: { acceptedLegalTerms: { version: terms.version, acceptedAt: Date.now() } } });
  const leave = () =>
    runInBackground(async () => {
      await signOut();
      navigate('/panx/login?reason=signed-out', { replace: true });
    });
  return (
    <Modal
      opened
      onClose={() => {}}
      withCloseButton={false}
      closeOnEscape={false}
      closeOnClickOutside={false}
      title="Terms of use"
      centered
      size="lg"
      zIndex={9600}
    >
      <Stack>
        <Text size="sm">Before you continue, read and accept the terms of use of this installation.</Text>
        {terms.text && (
          <ScrollArea.Autosize mah={280} type="auto">
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="legal-terms-text">
              {terms.text}
            </Text>
          </ScrollArea.Autosize>
        )}
        {terms.url && (
          <Anchor href={terms.url} target="_blank" rel="noopener noreferrer" size="sm">
            Read the terms of use
          </Anchor>
        )}
        <Checkbox label="I have read and accept the terms of use" checked={read} onChange={(event) => setRead(event.currentTarget.checked)} />
        {update.isError && (
          <Text c="red" size="sm" role="alert">
            {describeError(update.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={leave}>
            Sign out
          </Button>
          <Button onClick={accept} disabled={!read} loading={update.isPending}>
            Accept
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function UserInfoDialog({ user }: { user: UserDescribe }) {
  const { language } = useRuntime();
  const update = useUpdateUser();
  const data = (user.sessionData ?? {}) as Record<string, unknown>;
  const [institution, setInstitution] = useState(typeof data.institution === 'string' ? data.institution : '');
  const [jobTitle, setJobTitle] = useState(typeof data.jobTitle === 'string' ? data.jobTitle : '');
  const [countryCode, setCountryCode] = useState<string | null>(typeof data.countryCode === 'string' && data.countryCode ? data.countryCode : null);
  const countries = useMemo(() => countryOptions(language), [language]);

  const save = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ sessionData: { institution: institution.trim(), jobTitle: jobTitle.trim(), countryCode: countryCode ?? '', userInfoPrompted: true } });
  };
  const skip = () => update.mutate({ sessionData: { userInfoPrompted: true } });

  return (
    <Modal opened onClose={skip} title="Tell us about yourself" centered zIndex={9600}>
      <form onSubmit={save}>
        <Stack>
          <Text size="sm" c="dimmed">
            This helps administrators of this installation know who uses it. You can change it later in your settings.
          </Text>
          <TextInput label="Institution" value={institution} maxLength={256} onChange={(e) => setInstitution(e.currentTarget.value)} data-autofocus />
          <TextInput label="Job title" value={jobTitle} maxLength={256} onChange={(e) => setJobTitle(e.currentTarget.value)} />
          <Select label="Country" data={countries} value={countryCode} onChange={setCountryCode} searchable clearable comboboxProps={{ zIndex: 9700 }} />
          {update.isError && (
            <Text c="red" size="sm" role="alert">
              {describeError(update.error)}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={skip} disabled={update.isPending}>
              Skip
            </Button>
            <Button type="submit" loading={update.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
