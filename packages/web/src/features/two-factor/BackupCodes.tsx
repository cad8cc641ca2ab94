import { Alert, Button, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { backupCodesText } from './enrolment';

/** The backup codes, shown once: copy them or download them as a text file. */
export function BackupCodes({ codes, account }: { codes: string[]; account: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const text = () => backupCodesText(codes, account, 'Panx', new Date());

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text());
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };

  const download = () => {
    const url = URL.createObjectURL(new Blob([text()], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `panx-backup-codes-${account}.txt`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  };

  return (
    <Stack gap="sm">
      <Alert color="yellow" variant="light" title="Save your backup codes now">
        Each code signs you in once if you lose your phone. They are shown only this time.
      </Alert>
      <SimpleGrid cols={2} spacing={6} verticalSpacing={6} component="ol" data-testid="backup-codes" aria-label="Backup codes" m={0} p={0}>
        {codes.map((code) => (
          <Text key={code} component="li" ff="monospace" size="sm" style={{ listStyle: 'none' }} ta="center" py={4} bg="gray.0">
            {code}
          </Text>
        ))}
      </SimpleGrid>
      <Group gap="xs">
        <Button variant="default" size="xs" onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </Button>
        <Button variant="default" size="xs" onClick={download}>
          Download
        </Button>
      </Group>
      {copied === 'failed' && (
        <Text size="xs" c="red" role="alert">
          The browser did not allow copying; download the codes or write them down.
        </Text>
      )}
    </Stack>
  );
}
