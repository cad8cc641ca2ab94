import { Alert, Anchor, Badge, Breadcrumbs, Button, Group, Image, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useRuntime } from '../../app/runtime';
import { api } from '../../lib/api';
import { formatDate } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { ErrorState, LoadingState } from '../../ui/states';
import { signedUrl } from './bytes';
import { detectFormat, formatBytes } from './formats';
import { BamView, FastxView, HexView, TabularView, TextView, VcfView, type ViewTarget } from './GenomicsViews';
import classes from './viewer.module.css';
import { downloadInBrowser } from '../data/download';
import { field, useProject } from '../projects/hooks';
import { PdfView } from './PdfView';

interface Described {
  id: string;
  name?: string;
  class?: string;
  state?: string;
  size?: number;
  folder?: string;
  media?: string;
  created?: number;
  modified?: number;
  tags?: string[];
}

/** `/panx/{projectID}/{objectID}/view`: a file, full page, in a readable form; large files are never downloaded whole. */
/** The folders above a file, each with its data-browser link: `/a/b` → a (/a), b (/a/b). */
function folderCrumbs(folder: string): { name: string; path: string; link: string }[] {
  const parts = folder.split('/').filter(Boolean);
  return parts.map((name, index) => {
    const path = `/${parts.slice(0, index + 1).join('/')}`;
    return {
      name,
      path,
      link: `/${parts
        .slice(0, index + 1)
        .map(encodeURIComponent)
        .join('/')}`,
    };
  });
}

export function FileViewerPage() {
  const { projectID = '', objectID = '' } = useParams();
  const { language } = useRuntime();
  const project = useProject(projectID);
  const described = useQuery({
    queryKey: ['object', projectID, objectID],
    queryFn: async () => (await api().post(objectID, 'describe', { project: projectID })) as Described,
    throwOnError: false,
  });
  const image = useQuery({
    queryKey: ['viewer-image', projectID, objectID],
    enabled: described.data !== undefined && detectFormat(described.data.name ?? '', described.data.media).kind === 'image',
    queryFn: () => signedUrl(objectID, projectID),
    throwOnError: false,
  });
  if (described.isPending) return <LoadingState rows={8} label="Loading the file" />;
  if (described.isError) return <ErrorState error={described.error} title="Could not open this file" onRetry={() => void described.refetch()} />;
  const object = described.data;
  const name = object.name ?? objectID;
  const folder = object.folder ?? '/';
  const format = detectFormat(name, object.media);
  const target: ViewTarget = { id: objectID, project: projectID, name, size: object.size ?? 0 };

  const download = async () => {
    try {
      await downloadInBrowser(objectID, projectID, name);
    } catch (error) {
      notifications.show({ color: 'red', title: 'Could not download', message: describeError(error) });
    }
  };

  let body: React.ReactNode;
  if (object.class !== 'file') {
    body = <Alert color="gray">This is a {object.class ?? 'data object'}, not a file: there are no bytes to show.</Alert>;
  } else if (object.state !== 'closed') {
    body = <Alert color="yellow">This file is {object.state}: it can be viewed once its upload is finished.</Alert>;
  } else if (target.size === 0) {
    body = <Text c="dimmed">This file is empty.</Text>;
  } else {
    switch (format.kind) {
      case 'image':
        body = image.data ? <Image src={image.data} alt={name} fit="contain" mah="75vh" /> : <LoadingState rows={4} label="Loading the image" />;
        break;
      case 'pdf':
        body = <PdfView target={target} />;
        break;
      case 'html':
        body = <TextView target={target} format={format} html />;
        break;
      case 'tabular':
        body = <TabularView target={target} format={format} />;
        break;
      case 'fasta':
      case 'fastq':
        body = <FastxView target={target} format={format} />;
        break;
      case 'vcf':
        body = <VcfView target={target} format={format} />;
        break;
      case 'bam':
        body = <BamView target={target} format={format} />;
        break;
      case 'cram':
        body = <Alert color="gray">CRAM files need their reference to be decoded; download the file and use samtools.</Alert>;
        break;
      case 'binary':
        body = <HexView target={target} format={format} />;
        break;
      default:
        body = <TextView target={target} format={format} />;
    }
  }

  return (
    <Stack gap="md" className={classes.page}>
      <Breadcrumbs separator="/" separatorMargin={4}>
        <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(projectID)}/data/`} size="sm">
          {field.str(project.data, 'name') ?? 'Project data'}
        </Anchor>
        {folderCrumbs(folder).map((crumb) => (
          <Anchor key={crumb.path} component={Link} to={`/panx/projects/${encodeURIComponent(projectID)}/data${crumb.link}`} size="sm">
            {crumb.name}
          </Anchor>
        ))}
      </Breadcrumbs>
      <Paper withBorder p="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <div style={{ minWidth: 0 }}>
            <Title order={1} size="h3" style={{ overflowWrap: 'anywhere' }}>
              {name}
            </Title>
            <Group gap="xs" mt={4}>
              <Badge variant="light">{format.kind === 'binary' ? (object.class ?? 'file') : format.kind.toUpperCase()}</Badge>
              {format.gzip && format.kind !== 'bam' && (
                <Badge variant="light" color="gray">
                  compressed
                </Badge>
              )}
              <Text size="sm" c="dimmed">
                {formatBytes(object.size)} · modified {formatDate(object.modified, language)} · {objectID}
              </Text>
            </Group>
          </div>
          {object.class === 'file' && object.state === 'closed' && <Button onClick={() => void download()}>Download</Button>}
        </Group>
      </Paper>
      {body}
    </Stack>
  );
}
