import { Alert, Anchor, Button, Code, Group, Image, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import { FILE_PREVIEW_MAX_BYTES } from '@panx/contract';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { describeError } from '../../ui/describe-error';
import { readFileRange, signedUrl } from './bytes';
import { detectFormat, formatBytes, looksBinary, nextPreviewRange, previewState } from './formats';
import classes from './viewer.module.css';

export interface PreviewTarget {
  id: string;
  name: string;
  project: string;
  size?: number;
  media?: string;
  state?: string;
}

/**
 * The preview-file modal (SPEC §2/§3): text in chunks of 5,120 bytes with "Load more", up to 102,400
 * bytes (SPEC §9), read with Range requests. Images show as images; other binaries are not dumped.
 */
export function PreviewModal({ target, onClose }: { target: PreviewTarget | undefined; onClose: () => void }) {
  return (
    <Modal opened={target !== undefined} onClose={onClose} title={target ? `Preview: ${target.name}` : 'Preview'} size="xl" centered>
      {target && <PreviewBody key={`${target.project}/${target.id}`} target={target} />}
    </Modal>
  );
}

function PreviewBody({ target }: { target: PreviewTarget }) {
  const format = detectFormat(target.name, target.media);
  const size = target.size ?? 0;
  const [text, setText] = useState('');
  const [loaded, setLoaded] = useState(0);
  const [binary, setBinary] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [imageUrl, setImageUrl] = useState<string>();
  const decoder = useRef(new TextDecoder());
  const started = useRef(false);
  const viewerPath = `/panx/${encodeURIComponent(target.project)}/${encodeURIComponent(target.id)}/view`;
  const closed = target.state === undefined || target.state === 'closed';

  const loadMore = useCallback(async () => {
    const range = nextPreviewRange(loaded, size);
    if (!range) return;
    setBusy(true);
    setError(undefined);
    try {
      const bytes = await readFileRange(target.id, target.project, range.start, range.end);
      if (range.start === 0 && looksBinary(bytes)) {
        setBinary(true);
        return;
      }
      const done = range.end >= Math.min(size, FILE_PREVIEW_MAX_BYTES);
      setText((current) => current + decoder.current.decode(bytes, { stream: !done }));
      setLoaded(range.start + bytes.length);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }, [loaded, size, target.id, target.project]);

  useEffect(() => {
    if (started.current || !closed) return;
    started.current = true;
    if (format.kind === 'image') {
      signedUrl(target.id, target.project).then(setImageUrl, setError);
      return;
    }
    if (format.gzip || ['pdf', 'bam', 'cram', 'binary'].includes(format.kind)) return;
    void loadMore();
  }, [closed, format.kind, format.gzip, target.id, target.project, loadMore]);

  const state = previewState(loaded, size);
  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm" c="dimmed">
          {formatBytes(target.size)} · {format.kind}
          {format.gzip ? ' (compressed)' : ''}
        </Text>
        <Anchor component={Link} to={viewerPath} size="sm">
          Open in the file viewer
        </Anchor>
      </Group>
      {!closed ? (
        <Alert color="yellow">This file is still being uploaded ({target.state}); it can be previewed once it is closed.</Alert>
      ) : error ? (
        <Alert color="red" role="alert" title="Could not read the file">
          {describeError(error)}
        </Alert>
      ) : format.kind === 'image' ? (
        imageUrl ? (
          <Image src={imageUrl} alt={target.name} fit="contain" mah={480} />
        ) : (
          <Text size="sm">Loading the image…</Text>
        )
      ) : binary || format.gzip || ['pdf', 'bam', 'cram', 'binary'].includes(format.kind) ? (
        <Alert color="blue" title="No text preview">
          {format.gzip || format.kind === 'bam'
            ? 'This file is compressed. The file viewer decompresses its beginning and shows it in a readable form.'
            : 'This file is binary. Open it in the file viewer or download it.'}
        </Alert>
      ) : size === 0 ? (
        <Text size="sm" c="dimmed">
          This file is empty.
        </Text>
      ) : (
        <>
          <ScrollArea.Autosize mah="55vh" className={classes.previewBox}>
            <Code block className={classes.previewText} data-testid="preview-text">
              {text}
            </Code>
          </ScrollArea.Autosize>
          <Group justify="space-between" wrap="wrap">
            <Text size="xs" c="dimmed" aria-live="polite">
              Showing {formatBytes(loaded)} of {formatBytes(size)}
              {state.capped ? ' (previews stop at 100 KB: open the file viewer or download it for the rest)' : ''}
            </Text>
            {state.canLoadMore && (
              <Button size="xs" variant="default" loading={busy} onClick={() => void loadMore()}>
                Load more
              </Button>
            )}
          </Group>
        </>
      )}
    </Stack>
  );
}
