import {
  Alert,
  Anchor,
  Autocomplete,
  Badge,
  Button,
  Card,
  FileInput,
  Group,
  List,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { isApiError } from '@panx/client';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useReducer, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { ErrorState } from '../../ui/states';
import {
  folderProblem,
  type ImportStatus,
  importerReducer,
  initialImporterState,
  type Link as ObjectLink,
  link,
  logFileName,
  logLine,
  STATUS_ERROR,
  STATUS_OK,
  STATUS_REFUSED,
  type StatusOutput,
} from './import-status';
import { detectImporter, type ImportPreview, IMPORTERS, type WorkflowImporter } from './importers';
import classes from './WorkflowEditor.module.css';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Projects the user may write to (the importer's destination). */
function useWritableProjects() {
  return useQuery({
    queryKey: ['projects', 'writable'],
    queryFn: async () => {
      const { results } = await api().call('system/findProjects', { level: 'UPLOAD', describe: { fields: { name: true } }, limit: 1000 });
      return results
        .map((result) => ({
          value: result.id,
          label: isRecord(result.describe) && typeof result.describe.name === 'string' ? result.describe.name : result.id,
        }))
        .sort((a, b) => a.label.localeCompare(b.label));
    },
    throwOnError: false,
  });
}

function useFolders(project: string | null) {
  return useQuery({
    queryKey: ['project', project ?? '', 'folders'],
    enabled: Boolean(project),
    queryFn: async () => {
      const describe = await api().call('project-xxxx/describe', project ?? '', { fields: { folders: true } });
      return Array.isArray(describe.folders) ? describe.folders.filter((folder): folder is string => typeof folder === 'string').sort() : ['/'];
    },
    throwOnError: false,
  });
}

/** A small text file in one part: file/new, file-xxxx/upload, PUT to the signed URL, close. */
async function uploadText(project: string, folder: string, name: string, text: string, media: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const { id } = await api().call('file/new', { project, folder, name, parents: true, media });
  const target = await api().call('file-xxxx/upload', id, { index: 1, size: bytes.byteLength });
  await new Promise<void>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', target.url);
    for (const [header, value] of Object.entries(target.headers)) {
      if (header.toLowerCase() !== 'content-length') request.setRequestHeader(header, value);
    }
    request.onload = () =>
      request.status >= 200 && request.status < 300 ? resolve() : reject(new Error(`The upload of ${name} was refused (${request.status})`));
    request.onerror = () => reject(new Error(`The upload of ${name} failed: the server could not be reached`));
    request.send(bytes);
  });
  await api().call('file-xxxx/close', id, {});
  return id;
}

const STATUS_COLOR: Record<ImportStatus, string> = { idle: 'gray', uploading: 'blue', compiling: 'blue', 'writing-log': 'blue', done: 'green', failed: 'red' };
const STATUS_LABEL: Record<ImportStatus, string> = {
  idle: 'Not started',
  uploading: 'Uploading the descriptor',
  compiling: 'Compiling',
  'writing-log': 'Writing the log',
  done: 'Done',
  failed: 'Failed',
};

/** The chosen file's language and preview, or why it cannot be imported. */
function readDefinition(file: File | null, text: string | null): { detected?: WorkflowImporter; preview?: ImportPreview; fileError?: string } {
  if (!file || text === null) return {};
  const detection = detectImporter(file.name, text);
  if (!detection.importer) return { fileError: detection.reason };
  try {
    return { detected: detection.importer, preview: detection.importer.preview(text) };
  } catch (error) {
    return { detected: detection.importer, fileError: describeError(error) };
  }
}

/** `/panx/tools/import-workflow/*`: a workflow definition file → a workflow in a project (and its status output and log). */
export function ImportWorkflowPage() {
  const [params] = useSearchParams();
  const [state, dispatch] = useReducer(importerReducer, initialImporterState(params.get('project'), params.get('folder') ?? '/'));
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [name, setName] = useState('');
  const projects = useWritableProjects();
  const folders = useFolders(state.project);

  useEffect(() => {
    let cancelled = false;
    setText(null);
    if (file) void file.text().then((content) => !cancelled && setText(content));
    return () => {
      cancelled = true;
    };
  }, [file]);

  const { detected, preview, fileError } = useMemo(() => readDefinition(file, text), [file, text]);
  const running = state.status === 'uploading' || state.status === 'compiling' || state.status === 'writing-log';
  const folderError = folderProblem(state.outputFolder);
  const canImport = Boolean(file && detected && preview && state.project && !folderError && !running);

  const start = async () => {
    if (!file || !text || !detected || !preview || !state.project) return;
    const project = state.project;
    const folder = state.outputFolder;
    const importer = detected;
    dispatch({ type: 'start', project, outputFolder: folder });
    const lines: string[] = [];
    const log = (message: string) => {
      const line = logLine(new Date(), message);
      lines.push(line);
      dispatch({ type: 'log', line });
    };
    const output: StatusOutput = { primary_descriptor: null, compiled_workflow: null, output_log: null, status_code: STATUS_OK };
    log(`Importing ${file.name} (${text.length} characters) into ${project}:${folder}`);
    log(`Format: ${importer.format} (${importer.label})`);
    log(
      `Workflow "${preview.name}" with ${preview.stages.length} stage${preview.stages.length === 1 ? '' : 's'}: ${preview.stages.map((stage) => stage.executable).join(', ') || 'none'}`,
    );
    try {
      const descriptor = await uploadText(project, folder, file.name, text, 'application/json');
      output.primary_descriptor = link(project, descriptor);
      log(`Uploaded the descriptor as ${descriptor}`);
      dispatch({ type: 'status', status: 'compiling' });
      const made = await api().call('workflow/import', {
        format: importer.format as 'panx-json',
        source: importer.source(text),
        project,
        folder,
        parents: true,
        ...(name.trim() ? { name: name.trim() } : {}),
      });
      output.compiled_workflow = link(project, made.id);
      log(`Compiled ${made.id} (editVersion ${made.editVersion}) with the stages ${made.stages.join(', ') || '(none)'}`);
    } catch (error) {
      output.status_code = isApiError(error, 'InvalidInput') ? STATUS_REFUSED : STATUS_ERROR;
      log(`ERROR ${describeError(error)}`);
    }
    dispatch({ type: 'status', status: 'writing-log' });
    log(`Finished with status code ${output.status_code}`);
    try {
      const logId = await uploadText(project, folder, logFileName(file.name), `${lines.join('\n')}\n`, 'text/plain');
      output.output_log = link(project, logId);
      dispatch({ type: 'log', line: logLine(new Date(), `Log saved as ${logId}`) });
    } catch (error) {
      dispatch({ type: 'log', line: logLine(new Date(), `WARNING the log could not be saved: ${describeError(error)}`) });
    }
    dispatch({ type: 'finish', output });
  };

  return (
    <Stack p="md" maw={1100} mx="auto" gap="md">
      <div>
        <Group gap={6}>
          <Anchor component={Link} to="/panx/tools" size="sm" c="dimmed">
            Tools
          </Anchor>
          <Text size="sm" c="dimmed" aria-hidden>
            /
          </Text>
          <Text size="sm" c="dimmed">
            Import a workflow
          </Text>
        </Group>
        <Title order={1} size="h2">
          Import a workflow
        </Title>
        <Text size="sm" c="dimmed">
          A workflow definition file becomes a workflow in your project. Known languages: {IMPORTERS.map((importer) => importer.label).join(', ')}.
        </Text>
      </div>

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Card withBorder padding="md">
          <Stack gap="sm">
            <Title order={2} size="h4">
              1. Definition file
            </Title>
            <FileInput
              label="Workflow file"
              placeholder="Choose a file"
              accept={[...new Set(IMPORTERS.flatMap((importer) => importer.extensions))].join(',')}
              value={file}
              onChange={(chosen) => {
                setFile(chosen);
                dispatch({ type: 'reset' });
              }}
              clearable
              disabled={running}
              error={fileError}
            />
            {!file && (
              <Text size="sm" c="dimmed">
                For example the JSON that <code>px export workflow</code> writes: the workflow’s name, stages and executables.
              </Text>
            )}
            {file && text === null && <Text size="sm">Reading {file.name}…</Text>}
            {detected && preview && (
              <Stack gap={6} data-testid="import-preview">
                <Group gap="xs">
                  <Text fw={600}>{preview.title ?? preview.name}</Text>
                  <Badge variant="light">{detected.format}</Badge>
                </Group>
                {preview.stages.length > 0 && (
                  <Table striped withTableBorder fz="sm">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th>#</Table.Th>
                        <Table.Th>Stage</Table.Th>
                        <Table.Th>Executable</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {preview.stages.map((stage, index) => (
                        <Table.Tr key={stage.id ?? index}>
                          <Table.Td>{index + 1}</Table.Td>
                          <Table.Td>{stage.name ?? stage.id ?? '—'}</Table.Td>
                          <Table.Td style={{ wordBreak: 'break-all' }}>{stage.executable}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                )}
                {preview.notes.length > 0 && (
                  <List size="sm" c="dimmed">
                    {preview.notes.map((note) => (
                      <List.Item key={note}>{note}</List.Item>
                    ))}
                  </List>
                )}
              </Stack>
            )}
          </Stack>
        </Card>

        <Card withBorder padding="md">
          <Stack gap="sm">
            <Title order={2} size="h4">
              2. Destination
            </Title>
            {projects.isError ? (
              <ErrorState error={projects.error} title="Could not list your projects" onRetry={() => void projects.refetch()} />
            ) : (
              <Select
                label="Project"
                placeholder={projects.isPending ? 'Loading projects…' : 'Choose a project you can write to'}
                data={projects.data ?? []}
                value={state.project}
                onChange={(value) => dispatch({ type: 'project', project: value })}
                searchable
                nothingFoundMessage="No project you can write to matches"
                disabled={running}
              />
            )}
            <Autocomplete
              label="Output folder"
              description="The descriptor, the workflow and the log go here (created when missing)"
              data={folders.data ?? []}
              value={state.outputFolder}
              onChange={(value) => dispatch({ type: 'folder', outputFolder: value })}
              error={folderError}
              disabled={running || !state.project}
            />
            <TextInput
              label="Workflow name"
              placeholder={preview?.name ?? 'the name in the file'}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              disabled={running}
            />
            <Group>
              <Button onClick={() => void start()} disabled={!canImport} loading={running}>
                Import
              </Button>
              {!state.project && (
                <Text size="xs" c="dimmed">
                  Choose a project first.
                </Text>
              )}
            </Group>
          </Stack>
        </Card>
      </SimpleGrid>

      {state.status !== 'idle' && (
        <Card withBorder padding="md" data-testid="import-status">
          <Stack gap="sm">
            <Group gap="xs">
              <Title order={2} size="h4">
                Status
              </Title>
              <Badge color={STATUS_COLOR[state.status]} data-testid="import-status-badge">
                {STATUS_LABEL[state.status]}
              </Badge>
            </Group>
            {state.output && <StatusOutputTable output={state.output} />}
            {state.output?.compiled_workflow && (
              <Group>
                <Button
                  component={Link}
                  to={`/panx/projects/${state.output.compiled_workflow.$dnanexus_link.project}/workflows/${state.output.compiled_workflow.$dnanexus_link.id}`}
                >
                  Open in the workflow editor
                </Button>
              </Group>
            )}
            {state.status === 'failed' && (
              <Alert color="red" title="The workflow was not imported" role="alert">
                {state.log
                  .find((line) => line.includes(' ERROR '))
                  ?.split(' ERROR ')
                  .slice(1)
                  .join(' ERROR ') ?? 'The log below says why.'}
              </Alert>
            )}
            <div>
              <Text size="sm" fw={600} mb={4}>
                Log
              </Text>
              <pre className={classes.log} data-testid="import-log">
                {state.log.join('\n')}
              </pre>
            </div>
          </Stack>
        </Card>
      )}
    </Stack>
  );
}

function LinkCell({ value, kind }: { value: ObjectLink | null; kind: 'file' | 'workflow' }) {
  if (!value) return <Text c="dimmed">—</Text>;
  const { project, id } = value.$dnanexus_link;
  const to = kind === 'workflow' ? `/panx/projects/${project}/workflows/${id}` : `/panx/${project}/${id}/view`;
  return (
    <Anchor component={Link} to={to} ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
      {id}
    </Anchor>
  );
}

const KEY_STYLE = { overflowWrap: 'anywhere', fontFamily: 'var(--mantine-font-family-monospace)' } as const;

function StatusOutputTable({ output }: { output: StatusOutput }) {
  return (
    <Table withTableBorder fz="sm" data-testid="status-output" maw={640} layout="fixed">
      <Table.Tbody>
        <Table.Tr>
          <Table.Th style={KEY_STYLE}>primary_descriptor</Table.Th>
          <Table.Td>
            <LinkCell value={output.primary_descriptor} kind="file" />
          </Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th style={KEY_STYLE}>compiled_workflow</Table.Th>
          <Table.Td>
            <LinkCell value={output.compiled_workflow} kind="workflow" />
          </Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th style={KEY_STYLE}>output_log</Table.Th>
          <Table.Td>
            <LinkCell value={output.output_log} kind="file" />
          </Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th style={KEY_STYLE}>status_code</Table.Th>
          <Table.Td>
            <Badge color={output.status_code === STATUS_OK ? 'green' : 'red'} variant="light" data-testid="status-code">
              {output.status_code}
            </Badge>
          </Table.Td>
        </Table.Tr>
      </Table.Tbody>
    </Table>
  );
}
