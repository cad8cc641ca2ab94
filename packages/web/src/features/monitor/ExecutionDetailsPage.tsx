import { Alert, Anchor, Button, Group, List, Modal, Paper, Stack, Tabs, Text, Timeline, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { api } from '../../lib/api';
import { formatDateTime } from '../../lib/format';
import { describeError } from '../../ui/describe-error';
import { ErrorState, LoadingState } from '../../ui/states';
import { useSession } from '../auth/session';
import { field, useProject } from '../projects/hooks';
import { ProjectHeader } from '../projects/ProjectHeader';
import {
  type ExecutionRow,
  executionDuration,
  executionPagePath,
  executionStateColor,
  executionStateLabel,
  formatCost,
  formatElapsed,
  isActive,
  isRecord,
  rerunPath,
  terminateRefusal,
  toExecutionRow,
} from './execution-model';
import { ExecutionTree } from './ExecutionTree';
import { IoSection } from './ExecutionIO';
import { LogViewer } from './log/LogViewer';
import { FailureReportModal } from './report/FailureReportModal';
import { executionsKey, useExecution, useExecutionTree, useRerunStages, useTerminate } from './hooks';
import classes from './Monitor.module.css';
import { StateBadge, userHandle } from './StateBadge';

const TABS = ['', 'io', 'log'] as const;
type Tab = (typeof TABS)[number];
const TAB_LABELS: Record<Tab, string> = { '': 'Details', io: 'Inputs and outputs', log: 'Log' };

/**
 * `/panx/projects/{id}/monitor/{class}/{execution}/*`, `…/try/{n}/*` and `/panx/executions/{id}`:
 * one job or analysis with its tree (refreshed every 5 s), state timeline, inputs and outputs, tries,
 * log, and actions (terminate, re-run, re-run from the failed stage, open in the runner).
 */
export function ExecutionDetailsPage() {
  const params = useParams();
  // `/panx/executions/{id}` has no project in its path: describe, then go to the project's page.
  if (!params.executionHandle) return <ExecutionRedirect id={params.id ?? ''} />;
  return (
    <ExecutionDetails
      projectId={params.id ?? ''}
      executionClass={params.executionClass ?? ''}
      executionId={params.executionHandle}
      tryParam={params.tryNumber}
      rest={params['*'] ?? ''}
    />
  );
}

function ExecutionRedirect({ id }: { id: string }) {
  const valid = /^(job|analysis)-[0-9A-Za-z]+$/.test(id);
  const described = useExecution(valid ? id : '', undefined);
  if (!valid) return <PageError title="Not an execution">"{id}" is not a job or analysis ID (job-xxxx, analysis-xxxx).</PageError>;
  if (described.isError) return <ErrorState error={described.error} onRetry={() => void described.refetch()} title="Could not find this execution" />;
  const project = typeof described.data?.project === 'string' ? described.data.project : undefined;
  if (!described.data) return <LoadingState rows={4} label="Finding the execution" />;
  return <Navigate to={executionPagePath({ id, project })} replace />;
}

function PageError({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Alert color="red" title={title} role="alert" mt="md">
      {children}
    </Alert>
  );
}

function ExecutionDetails({
  projectId,
  executionClass,
  executionId,
  tryParam,
  rest,
}: {
  projectId: string;
  executionClass: string;
  executionId: string;
  tryParam: string | undefined;
  rest: string;
}) {
  const navigate = useNavigate();
  const { session } = useSession();
  const project = useProject(projectId);
  const level = field.str(project.data, 'level');
  const tryNumber = tryParam === undefined ? undefined : Number(tryParam);
  const isAnalysis = executionId.startsWith('analysis-');
  const validId = /^(job|analysis)-[0-9A-Za-z]+$/.test(executionId) && executionClass === (isAnalysis ? 'analysis' : 'job');
  const described = useExecution(validId ? executionId : '', isAnalysis ? undefined : tryNumber);
  // The current try, for the try tabs (the describe above may be of an earlier try).
  const current = useExecution(validId && tryNumber !== undefined && !isAnalysis ? executionId : '', undefined);
  const data = described.data;
  const row = data ? toExecutionRow(executionId, data) : undefined;
  const rootId = row?.rootExecution ?? (data ? executionId : undefined);
  const tree = useExecutionTree(rootId);
  const tab: Tab = (TABS as readonly string[]).includes(rest.replace(/\/$/, '')) ? (rest.replace(/\/$/, '') as Tab) : '';
  const currentTry =
    typeof (tryNumber === undefined ? data?.try : current.data?.try) === 'number' ? ((tryNumber === undefined ? data?.try : current.data?.try) as number) : 0;

  const noSuchTry = tryNumber !== undefined && !isAnalysis && current.data !== undefined && tryNumber > currentTry;

  if (!validId) {
    return (
      <>
        <ProjectHeader projectId={projectId} active="monitor" />
        <PageError title="Not an execution">
          "{executionId}" is not a {executionClass === 'analysis' ? 'n analysis' : ' job'} ID.{' '}
          <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(projectId)}/monitor`}>
            Back to the executions
          </Anchor>
        </PageError>
      </>
    );
  }

  const go = (options: { tryNumber?: number | undefined; tab?: Tab }) =>
    navigate(executionPagePath({ id: executionId, project: projectId }, { tryNumber: options.tryNumber, tab: options.tab ?? tab }));

  return (
    <div className={classes.page}>
      <ProjectHeader projectId={projectId} active="monitor" />
      <Stack gap="md" mt="md">
        <Anchor component={Link} to={`/panx/projects/${encodeURIComponent(projectId)}/monitor`} size="sm">
          ← Executions
        </Anchor>
        {noSuchTry ? (
          <Alert color="yellow" title={`There is no try ${tryNumber}`} data-testid="no-such-try">
            This job has tries 0 to {currentTry}.{' '}
            <Anchor component={Link} to={executionPagePath({ id: executionId, project: projectId })}>
              Show the latest try
            </Anchor>
          </Alert>
        ) : described.isError && !data ? (
          <ErrorState error={described.error} onRetry={() => void described.refetch()} title="Could not load this execution" />
        ) : !data || !row ? (
          <LoadingState rows={6} label="Loading the execution" />
        ) : (
          <>
            <Header
              row={row}
              data={data}
              level={project.data ? level : undefined}
              userId={session?.userId}
              projectId={projectId}
              viewingTry={tryNumber !== undefined && tryNumber < currentTry ? tryNumber : undefined}
            />
            <div className={classes.layout}>
              <Paper withBorder p="xs" radius="sm">
                {tree.isError && !tree.data ? (
                  <ErrorState error={tree.error} onRetry={() => void tree.refetch()} title="Could not load the tree" />
                ) : !tree.data ? (
                  <LoadingState rows={4} label="Loading the tree" />
                ) : (
                  <>
                    <ExecutionTree rows={tree.data.rows} current={executionId} stageOrder={tree.data.stageOrder} />
                    {tree.data.truncated && (
                      <Text size="xs" c="dimmed" mt={4}>
                        The first 10,000 executions of this tree are shown.
                      </Text>
                    )}
                  </>
                )}
              </Paper>
              <Stack gap="sm" style={{ minWidth: 0 }}>
                {!isAnalysis && (currentTry > 0 || tryNumber !== undefined) && (
                  <Tabs
                    value={tryNumber === undefined || tryNumber === currentTry ? 'current' : String(tryNumber)}
                    onChange={(value) => go({ tryNumber: value === 'current' || value === null ? undefined : Number(value) })}
                    variant="pills"
                    aria-label="Tries"
                  >
                    <Tabs.List data-testid="try-tabs">
                      {Array.from({ length: currentTry + 1 }, (_, index) => index).map((index) => (
                        <Tabs.Tab key={`try-${index}`} value={index === currentTry ? 'current' : String(index)} data-try={index}>
                          Try {index}
                          {index === currentTry ? ' (latest)' : ''}
                        </Tabs.Tab>
                      ))}
                    </Tabs.List>
                  </Tabs>
                )}
                <Tabs value={tab || 'details'} onChange={(value) => go({ tryNumber, tab: value === 'details' || !value ? '' : (value as Tab) })}>
                  <Tabs.List>
                    {TABS.filter((entry) => !(entry === 'log' && isAnalysis)).map((entry) => (
                      <Tabs.Tab key={entry || 'details'} value={entry || 'details'}>
                        {TAB_LABELS[entry]}
                      </Tabs.Tab>
                    ))}
                  </Tabs.List>
                </Tabs>
                {tab === '' && <Overview row={row} data={data} now={described.dataUpdatedAt || Date.now()} />}
                {tab === 'io' && (
                  <Stack gap="lg">
                    <IoSection title="Inputs" io={data.input ?? data.runInput} project={row.project} emptyText="No inputs" />
                    <IoSection
                      title="Outputs"
                      io={data.output}
                      project={row.project}
                      emptyText={
                        isActive(row.state) ? 'Outputs appear when it has finished' : tryNumber !== undefined ? 'Earlier tries keep no outputs' : 'No outputs'
                      }
                    />
                  </Stack>
                )}
                {tab === 'log' && !isAnalysis && <LogSlot jobId={executionId} tryNumber={tryNumber} project={projectId} />}
              </Stack>
            </div>
          </>
        )}
      </Stack>
    </div>
  );
}

/** The live log of the job (or of one of its tries): LogViewer of features/monitor/log. */
function LogSlot({ jobId, tryNumber, project }: { jobId: string; tryNumber: number | undefined; project: string }) {
  const queryClient = useQueryClient();
  return (
    <div data-testid="log-slot" data-job={jobId}>
      <LogViewer
        key={`${jobId}:${tryNumber ?? 'current'}`}
        jobId={jobId}
        project={project}
        height="min(600px, calc(100vh - 260px))"
        onEnded={() => void queryClient.invalidateQueries({ queryKey: executionsKey })}
        {...(tryNumber === undefined ? {} : { tryNumber })}
      />
    </div>
  );
}

function Fact({ label, children, testId, wide }: { label: string; children: ReactNode; testId?: string; wide?: boolean }) {
  return (
    <div data-testid={testId} style={wide ? { gridColumn: 'span 2' } : undefined}>
      <div className={classes.factLabel}>{label}</div>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}

function Overview({ row, data, now }: { row: ExecutionRow; data: Record<string, unknown>; now: number }) {
  const transitions = Array.isArray(data.stateTransitions)
    ? data.stateTransitions
        .filter(isRecord)
        .map((entry) => ({ state: String(entry.newState ?? ''), at: typeof entry.setAt === 'number' ? entry.setAt : undefined }))
    : [];
  const stages = row.executionClass === 'analysis' && Array.isArray(data.stages) ? data.stages.filter(isRecord) : [];
  return (
    <Stack gap="md">
      {(row.failureReason || row.failureMessage) && (
        <Alert color={row.state === 'terminated' ? 'gray' : 'red'} title={row.failureReason ?? 'Failed'} data-testid="failure">
          <Text size="sm" className={classes.failure}>
            {row.failureMessage ?? ''}
          </Text>
        </Alert>
      )}
      <Paper withBorder p="md" radius="sm">
        <div className={classes.facts}>
          <Fact label="State">
            <StateBadge state={row.state} />
          </Fact>
          <Fact label="Executable">
            <span title={row.executable}>{row.executableName ?? row.executable ?? '--'}</span>
          </Fact>
          <Fact label="Launched by">{userHandle(row.launchedBy)}</Fact>
          <Fact label="Created">{formatDateTime(row.created)}</Fact>
          {row.executionClass === 'job' && <Fact label="Started">{formatDateTime(row.startedRunning)}</Fact>}
          {row.executionClass === 'job' && <Fact label="Stopped">{formatDateTime(row.stoppedRunning)}</Fact>}
          <Fact label="Duration">{formatElapsed(executionDuration(row, now))}</Fact>
          {row.executionClass === 'job' && <Fact label="Instance type">{row.instanceType ?? '--'}</Fact>}
          <Fact label="Cost" testId="cost">
            {formatCost(row.totalPrice, row.currencySymbol)}
          </Fact>
          {row.executionClass === 'job' && <Fact label="Try">{row.tryNumber ?? 0}</Fact>}
          {typeof data.priority === 'string' && <Fact label="Priority">{data.priority}</Fact>}
          {typeof data.folder === 'string' && <Fact label="Output folder">{data.folder}</Fact>}
          {row.stage && <Fact label="Stage">{row.stage}</Fact>}
          {typeof data.outputReusedFrom === 'string' && (
            <Fact label="Outputs reused from">
              <Anchor component={Link} to={executionPagePath({ id: data.outputReusedFrom, project: row.project })} size="sm">
                {data.outputReusedFrom}
              </Anchor>
            </Fact>
          )}
          <Fact label="ID" wide>
            <Text size="xs" ff="monospace" component="span">
              {row.id}
            </Text>
          </Fact>
        </div>
      </Paper>
      {stages.length > 0 && (
        <Paper withBorder p="md" radius="sm">
          <Text fw={600} size="sm" mb="xs">
            Stages
          </Text>
          <Stack gap={4} data-testid="stages">
            {stages.map((stage) => {
              const execution = isRecord(stage.execution) ? stage.execution : {};
              const id = typeof execution.id === 'string' ? execution.id : undefined;
              const state = typeof execution.state === 'string' ? execution.state : 'unknown';
              return (
                <Group key={String(stage.id)} gap="sm" wrap="nowrap" data-stage={String(stage.id)}>
                  <StateBadge state={state} />
                  {id ? (
                    <Anchor component={Link} to={executionPagePath({ id, project: row.project })} size="sm">
                      {typeof execution.name === 'string' ? execution.name : String(stage.id)}
                    </Anchor>
                  ) : (
                    <Text size="sm">{String(stage.id)}</Text>
                  )}
                  <Text size="xs" c="dimmed">
                    {String(stage.id)}
                    {typeof execution.outputReusedFrom === 'string' ? ' · reused' : ''}
                  </Text>
                </Group>
              );
            })}
          </Stack>
        </Paper>
      )}
      <Paper withBorder p="md" radius="sm">
        <Text fw={600} size="sm" mb="sm">
          State timeline
        </Text>
        {transitions.length === 0 ? (
          <Text size="sm" c="dimmed">
            No state changes recorded.
          </Text>
        ) : (
          <Timeline active={transitions.length - 1} bulletSize={12} lineWidth={2} data-testid="timeline">
            {transitions.map((transition, index) => {
              // The last state lasts until now only while the execution (or this try) has not ended.
              const next = transitions[index + 1]?.at ?? (isActive(row.state) ? now : undefined);
              return (
                <Timeline.Item
                  // biome-ignore lint/suspicious/noArrayIndexKey: a state may repeat; the place in the timeline is its identity
                  key={index}
                  title={
                    <Text size="sm" fw={600}>
                      {executionStateLabel(transition.state)}
                    </Text>
                  }
                  color={executionStateColor(transition.state)}
                  data-state={transition.state}
                >
                  <Text size="xs" c="dimmed">
                    {formatDateTime(transition.at)}
                    {transition.at !== undefined && next !== undefined ? ` · ${formatElapsed(next - transition.at)}` : ''}
                  </Text>
                </Timeline.Item>
              );
            })}
          </Timeline>
        )}
      </Paper>
    </Stack>
  );
}

function Header({
  row,
  data,
  level,
  userId,
  projectId,
  viewingTry,
}: {
  row: ExecutionRow;
  data: Record<string, unknown>;
  level: string | undefined;
  userId: string | undefined;
  projectId: string;
  /** An earlier try is shown (its state, times and failure). */
  viewingTry: number | undefined;
}) {
  const navigate = useNavigate();
  const terminate = useTerminate();
  const rerunStages = useRerunStages();
  const [confirm, setConfirm] = useState<'terminate' | 'rerun' | 'rerun-failed' | undefined>();
  const [reporting, setReporting] = useState(false);
  const isAnalysis = row.executionClass === 'analysis';
  const canContribute = level === undefined || level === 'CONTRIBUTE' || level === 'ADMINISTER';
  const terminateWhy = terminateRefusal(level ?? 'CONTRIBUTE', [row], userId);
  const runWhy = canContribute ? undefined : `Running needs CONTRIBUTE access to this project; you have ${level} access`;
  const isRoot = row.parentJob === undefined && row.parentAnalysis === undefined;
  const failedStages =
    isAnalysis && Array.isArray(data.stages)
      ? data.stages.filter(isRecord).filter((stage) => isRecord(stage.execution) && stage.execution.state === 'failed')
      : [];
  const firstFailed = failedStages.find((stage) => isRecord(stage.execution) && stage.execution.failureReason !== 'DependencyFailed') ?? failedStages[0];
  const failedIds = failedStages.map((stage) => String(stage.id));

  // Same inputs, run again at once (a job's executable or the analysis's workflow, every stage again).
  const rerun = useMutation({
    mutationFn: async () => {
      if (isAnalysis) return (await rerunStages.mutateAsync({ analysis: data, stages: ['*'] })).id;
      const executable = row.executable;
      if (!executable || !row.project) throw new Error('This job does not say what it ran or where');
      const result = (await api().post(executable, 'run', {
        project: row.project,
        input: isRecord(data.runInput) ? data.runInput : {},
        ...(typeof data.folder === 'string' ? { folder: data.folder } : {}),
        name: row.name,
        ...(row.tags.length ? { tags: row.tags } : {}),
        ...(typeof data.priority === 'string' ? { priority: data.priority } : {}),
        ...(isRecord(data.systemRequirements) && Object.keys(data.systemRequirements).length ? { systemRequirements: data.systemRequirements } : {}),
      })) as { id: string };
      return result.id;
    },
  });

  useEffect(() => {
    if (!confirm) {
      rerun.reset();
      rerunStages.reset();
      terminate.reset();
    }
  }, [confirm, rerun.reset, rerunStages.reset, terminate.reset]);

  const afterRun = (id: string) => {
    setConfirm(undefined);
    notifications.show({ color: 'green', message: `Started ${id}` });
    navigate(executionPagePath({ id, project: row.project ?? projectId }));
  };

  const runnerPath = row.executable && row.project ? rerunPath(row.project, row.executable, row.id) : undefined;
  const error = terminate.error ?? rerun.error ?? rerunStages.error;

  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-start" wrap="wrap">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Group gap="sm" wrap="nowrap">
            <Title order={2} size="h3" style={{ overflowWrap: 'anywhere' }} data-testid="execution-name">
              {row.name}
            </Title>
            <StateBadge state={row.state} size="md" />
          </Group>
          <Text size="xs" c="dimmed">
            {isAnalysis ? 'Analysis' : row.stage ? `Stage ${row.stage} of ${row.parentAnalysis}` : row.parentJob ? `Subjob of ${row.parentJob}` : 'Job'} ·{' '}
            {row.id}
            {viewingTry !== undefined ? ` · showing try ${viewingTry}` : ''}
          </Text>
        </Stack>
        <Group gap="xs">
          {isActive(row.state) && (
            <Tooltip label={terminateWhy ?? 'Stop it and everything it started'} withinPortal>
              <span>
                <Button
                  size="xs"
                  color="red"
                  variant="light"
                  disabled={terminateWhy !== undefined}
                  onClick={() => setConfirm('terminate')}
                  data-testid="terminate"
                >
                  Terminate
                </Button>
              </span>
            </Tooltip>
          )}
          {isRoot && !isActive(row.state) && (
            <Tooltip label={runWhy ?? 'Run it again with the same inputs'} withinPortal>
              <span>
                <Button size="xs" variant="default" disabled={runWhy !== undefined} onClick={() => setConfirm('rerun')} data-testid="rerun">
                  Re-run
                </Button>
              </span>
            </Tooltip>
          )}
          {isAnalysis && failedIds.length > 0 && !isActive(row.state) && (
            <Tooltip label={runWhy ?? 'Run the failed stages again; finished stages are reused'} withinPortal>
              <span>
                <Button size="xs" variant="filled" disabled={runWhy !== undefined} onClick={() => setConfirm('rerun-failed')} data-testid="rerun-failed">
                  Re-run from failed stage
                </Button>
              </span>
            </Tooltip>
          )}
          {(row.state === 'failed' || row.state === 'partially_failed') && (
            <Tooltip label="Tell the platform's support what went wrong (the log's last lines go with it)" withinPortal>
              <Button size="xs" variant="default" onClick={() => setReporting(true)} data-testid="report-problem">
                Report a problem
              </Button>
            </Tooltip>
          )}
          {isRoot && runnerPath && (
            <Tooltip label={runWhy ?? 'Open the runner with these inputs filled in'} withinPortal>
              <span>
                <Button size="xs" variant="default" component={Link} to={runnerPath} disabled={runWhy !== undefined} data-testid="open-in-runner">
                  Open in runner
                </Button>
              </span>
            </Tooltip>
          )}
        </Group>
      </Group>

      <FailureReportModal
        opened={reporting}
        onClose={() => setReporting(false)}
        execution={{ id: row.id, name: row.name, state: row.state, failureReason: row.failureReason ?? null, failureMessage: row.failureMessage ?? null }}
        {...(viewingTry === undefined ? {} : { tryNumber: viewingTry })}
      />
      <Modal
        opened={confirm !== undefined}
        onClose={() => setConfirm(undefined)}
        centered
        title={confirm === 'terminate' ? 'Terminate this execution?' : confirm === 'rerun' ? 'Run it again?' : 'Re-run from the failed stage?'}
      >
        <Stack gap="sm">
          {confirm === 'terminate' && <Text size="sm">"{row.name}" and everything it started will stop. Outputs not yet written are lost.</Text>}
          {confirm === 'rerun' && (
            <Text size="sm">
              A new {isAnalysis ? 'analysis runs every stage' : 'job runs'} of {row.executableName ?? row.executable} with the same inputs, in the same project
              and folder. To change inputs first,{' '}
              {runnerPath ? (
                <Anchor component={Link} to={runnerPath}>
                  open it in the runner
                </Anchor>
              ) : (
                'open it in the runner'
              )}
              .
            </Text>
          )}
          {confirm === 'rerun-failed' && (
            <>
              <Text size="sm">
                A new analysis of the same workflow with the same inputs. These stages run again; finished stages with the same inputs are reused:
              </Text>
              <List size="sm">
                {failedStages.map((stage) => (
                  <List.Item key={String(stage.id)}>
                    {isRecord(stage.execution) && typeof stage.execution.name === 'string' ? stage.execution.name : String(stage.id)}{' '}
                    <Text span size="xs" c="dimmed">
                      {String(stage.id)}
                      {stage === firstFailed ? ' (first failure)' : ''}
                    </Text>
                  </List.Item>
                ))}
              </List>
            </>
          )}
          {error && (
            <Alert color="red" role="alert">
              {describeError(error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirm(undefined)}>
              Cancel
            </Button>
            {confirm === 'terminate' && (
              <Button
                color="red"
                loading={terminate.isPending}
                onClick={async () => {
                  const result = await terminate.mutateAsync([row.id]);
                  if (!result.failures.length) setConfirm(undefined);
                  else terminate.reset();
                  if (result.failures[0]) notifications.show({ color: 'red', message: describeError(result.failures[0].error) });
                }}
              >
                Terminate
              </Button>
            )}
            {confirm === 'rerun' && (
              <Button loading={rerun.isPending} onClick={() => rerun.mutate(undefined, { onSuccess: afterRun })}>
                Run again
              </Button>
            )}
            {confirm === 'rerun-failed' && (
              <Button
                loading={rerunStages.isPending}
                onClick={() => rerunStages.mutate({ analysis: data, stages: failedIds }, { onSuccess: (result) => afterRun(result.id) })}
                data-testid="confirm-rerun-failed"
              >
                Re-run {failedIds.length} stage{failedIds.length === 1 ? '' : 's'}
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
