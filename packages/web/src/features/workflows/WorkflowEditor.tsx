import { Alert, Anchor, Badge, Button, Group, Kbd, List, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import {
  applyNodeChanges,
  Background,
  Controls,
  type EdgeChange,
  MarkerType,
  type NodeChange,
  type OnConnectEnd,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import { ErrorState, LoadingState } from '../../ui/states';
import { field as projectField, useProject } from '../projects/hooks';
import { useInstanceTypes } from '../runner/hooks';
import { type SelectedTool, ToolSelector } from '../tools/ToolSelector';
import { type Conflict, describeChanges, isEditConflict, pendingEditKey, rebase, restoreConflict, serializeConflict } from './conflict';
import { addStageEdit, applyStep, applySteps, type Edit, inverseOf, removeStageEdit, renameEdit, requestOf, type Step, stepsProblems } from './edits';
import {
  type ConnectionRequest,
  checkConnection,
  connectEdit,
  disconnectEdit,
  type LinkEdge,
  type LinkEdgeData,
  type StageNode as StageNodeType,
  stagesToEdges,
  stagesToNodes,
} from './graph';
import { canRedo, canUndo, emptyHistory, type History, historyKey, peekRedo, peekUndo, record, redone, undone } from './history';
import { fetchWorkflow, sendStep, useExecutableInfos, useLatestEditVersion, useWorkflow, workflowKey } from './hooks';
import { editBlockedReason, type ExecutableInfo, newStageId, runBlockedReason, stageTitle, unboundRequiredInputs, type WorkflowModel } from './model';
import { StageNode } from './StageNode';
import { StagePanel } from './StagePanel';
import classes from './WorkflowEditor.module.css';

const NODE_TYPES = { stage: StageNode };

type Origin = Conflict['origin'];

export function WorkflowEditor({ projectId, workflowId }: { projectId: string; workflowId: string }) {
  return (
    <ReactFlowProvider>
      <Editor projectId={projectId} workflowId={workflowId} />
    </ReactFlowProvider>
  );
}

function Editor({ projectId, workflowId }: { projectId: string; workflowId: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const project = useProject(projectId);
  const instanceTypes = useInstanceTypes(projectId);
  const query = useWorkflow(workflowId, projectId);
  const model = query.data;
  const executables = useMemo(() => model?.stages.map((stage) => stage.executable) ?? [], [model]);
  const { infos } = useExecutableInfos(executables, projectId);
  const [history, setHistory] = useState<History<Step>>(emptyHistory);
  const [busy, setBusy] = useState<string | null>(null);
  const [conflict, setConflictState] = useState<Conflict | null>(null);
  /** A conflicting edit is also kept in this tab's session storage, so that a reload does not lose it. */
  const setConflict = useCallback(
    (next: Conflict | null) => {
      setConflictState(next);
      try {
        if (next) sessionStorage.setItem(pendingEditKey(workflowId), serializeConflict(next));
        else sessionStorage.removeItem(pendingEditKey(workflowId));
      } catch {
        // storage full or refused: the edit stays in memory
      }
    },
    [workflowId],
  );
  const restored = useRef(false);
  useEffect(() => {
    if (restored.current || !query.data) return;
    restored.current = true;
    let kept: string | null = null;
    try {
      kept = sessionStorage.getItem(pendingEditKey(workflowId));
    } catch {
      kept = null;
    }
    const conflictKept = restoreConflict(kept, query.data);
    if (conflictKept) setConflictState(conflictKept);
    else if (kept) setConflict(null);
  }, [query.data, workflowId, setConflict]);
  const [problem, setProblem] = useState<{ label: string; message: string } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [running, setRunning] = useState(false);
  const [positions, setPositions] = useState<Map<string, { x: number; y: number }>>(() => new Map());
  const level = projectField.str(project.data, 'level');
  const readOnlyReason = model ? editBlockedReason(model.state, level) : undefined;
  const readOnly = readOnlyReason !== undefined;
  const key = workflowKey(workflowId);
  const latestVersion = useLatestEditVersion(workflowId, projectId, model !== undefined && busy === null && conflict === null);
  const newerElsewhere = model !== undefined && busy === null && conflict === null && (latestVersion.data ?? -1) > model.editVersion;

  /** Sends the steps one by one, each with the editVersion the previous one answered. */
  const execute = useCallback(
    async (base: WorkflowModel, edit: Edit, origin: Origin, historyLabel = edit.label): Promise<boolean> => {
      const problems = stepsProblems(base, edit.steps);
      if (problems.length) {
        setProblem({ label: edit.label, message: problems.join('; ') });
        return false;
      }
      const inverse = inverseOf(base, edit.steps);
      setBusy(edit.label);
      setProblem(null);
      queryClient.setQueryData(key, applySteps(base, edit.steps));
      let version = base.editVersion;
      let applied = base;
      try {
        for (const [index, step] of edit.steps.entries()) {
          try {
            version = await sendStep(workflowId, requestOf(step, version));
            applied = applyStep(applied, step);
          } catch (error) {
            if (!isEditConflict(error)) throw error;
            const latest = await fetchWorkflow(workflowId, projectId);
            queryClient.setQueryData(key, latest);
            setConflict({ label: historyLabel, pending: edit.steps.slice(index), origin, base: applied, latest, message: describeError(error) });
            return false;
          }
        }
        queryClient.setQueryData(key, { ...applied, editVersion: version });
        setHistory((current) => {
          if (origin === 'undo') return undone(current);
          if (origin === 'redo') return redone(current, { label: historyLabel, forward: edit.steps, inverse });
          return record(current, { label: historyLabel, forward: edit.steps, inverse });
        });
        return true;
      } catch (error) {
        setProblem({ label: edit.label, message: describeError(error) });
        await queryClient.invalidateQueries({ queryKey: key });
        return false;
      } finally {
        setBusy(null);
      }
    },
    [key, projectId, queryClient, workflowId, setConflict],
  );

  const apply = useCallback(
    (edit: Edit) => {
      if (!model || busy || conflict || readOnly) return Promise.resolve(false);
      return execute(model, edit, 'edit');
    },
    [model, busy, conflict, readOnly, execute],
  );

  const undo = useCallback(() => {
    const entry = peekUndo(history);
    if (!model || !entry || busy || conflict || readOnly) return;
    void execute(model, { label: `Undo: ${entry.label}`, steps: entry.inverse }, 'undo', entry.label);
  }, [history, model, busy, conflict, readOnly, execute]);

  const redo = useCallback(() => {
    const entry = peekRedo(history);
    if (!model || !entry || busy || conflict || readOnly) return;
    void execute(model, { label: `Redo: ${entry.label}`, steps: entry.forward }, 'redo', entry.label);
  }, [history, model, busy, conflict, readOnly, execute]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return; // the field's own undo
      const action = historyKey(event);
      if (!action) return;
      event.preventDefault();
      if (action === 'undo') undo();
      else redo();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [undo, redo]);

  // ---- graph ----
  const baseNodes = useMemo(
    () => (model ? stagesToNodes(model, infos, positions).map((node) => ({ ...node, selected: node.id === selected })) : []),
    [model, infos, positions, selected],
  );
  const [nodes, setNodes] = useState<StageNodeType[]>(baseNodes);
  useEffect(() => setNodes(baseNodes), [baseNodes]);
  const baseEdges = useMemo<LinkEdge[]>(
    () =>
      model
        ? stagesToEdges(model).map((edge) => ({
            ...edge,
            markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: 'var(--mantine-color-blue-5)' },
            style: { strokeWidth: 2, stroke: 'var(--mantine-color-blue-5)' },
          }))
        : [],
    [model],
  );
  const [edges, setEdges] = useState<LinkEdge[]>(baseEdges);
  useEffect(() => setEdges(baseEdges), [baseEdges]);
  const flow = useReactFlow();
  const stageCount = model?.stages.length ?? 0;
  // Fit the graph when stages come or go (once their executables are known) and when the canvas is resized.
  const fitKey = `${stageCount}:${infos.size}`;
  const fitted = useRef('');
  useEffect(() => {
    if (fitKey === fitted.current) return;
    fitted.current = fitKey;
    const timer = window.setTimeout(() => void flow.fitView({ padding: 0.15, maxZoom: 1, duration: 150 }), 120);
    return () => window.clearTimeout(timer);
  }, [fitKey, flow]);
  const canvasRef = useRef<HTMLDivElement>(null);
  const loaded = model !== undefined;
  useEffect(() => {
    if (!loaded) return;
    const element = canvasRef.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    let timer = 0;
    const observer = new ResizeObserver(() => {
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void flow.fitView({ padding: 0.15, maxZoom: 1 }), 120);
    });
    observer.observe(element);
    return () => {
      window.clearTimeout(timer);
      observer.disconnect();
    };
  }, [flow, loaded]);

  const onNodesChange = useCallback((changes: NodeChange<StageNodeType>[]) => {
    const kept = changes.filter((change) => change.type !== 'remove');
    setNodes((current) => applyNodeChanges(kept, current));
    for (const change of kept) {
      if (change.type === 'position' && change.position && change.dragging === false) {
        const position = change.position;
        setPositions((current) => new Map(current).set(change.id, position));
      }
      if (change.type === 'select' && change.selected) setSelected(change.id);
    }
  }, []);
  const onEdgesChange = useCallback((changes: EdgeChange<LinkEdge>[]) => {
    setEdges((current) =>
      current.map((edge) => {
        const change = changes.find((candidate) => candidate.type === 'select' && candidate.id === edge.id);
        return change && change.type === 'select' ? { ...edge, selected: change.selected } : edge;
      }),
    );
  }, []);

  const connectionCheck = useCallback((connection: ConnectionRequest) => (model ? checkConnection(model, infos, connection) : undefined), [model, infos]);
  const onConnectEnd: OnConnectEnd = useCallback(
    (_event, state) => {
      if (state.isValid || !state.fromHandle || !state.toHandle || readOnly) return;
      const [from, to] = state.fromHandle.type === 'source' ? [state.fromHandle, state.toHandle] : [state.toHandle, state.fromHandle];
      const check = connectionCheck({ source: from.nodeId, sourceHandle: from.id ?? null, target: to.nodeId, targetHandle: to.id ?? null });
      if (check && !check.ok) setProblem({ label: 'Connect', message: check.reason });
    },
    [connectionCheck, readOnly],
  );

  const onDelete = useCallback(
    ({ nodes: deletedNodes, edges: deletedEdges }: { nodes: StageNodeType[]; edges: LinkEdge[] }) => {
      if (!model || readOnly) return;
      const node = deletedNodes[0];
      if (node) {
        void apply(removeStageEdit(model, node.id));
        return;
      }
      let current = model;
      const steps: Step[] = [];
      for (const edge of deletedEdges) {
        const edit = edge.data ? disconnectEdit(current, edge.data as LinkEdgeData) : undefined;
        if (!edit) continue;
        steps.push(...edit.steps);
        current = applySteps(current, edit.steps);
      }
      if (steps.length) void apply({ label: deletedEdges.length === 1 ? 'Disconnect a link' : `Disconnect ${deletedEdges.length} links`, steps });
    },
    [model, readOnly, apply],
  );

  // ---- adding a stage, running, copying ----
  const addTool = (tool: SelectedTool) => {
    setAdding(false);
    if (!model) return;
    const stage = { id: newStageId(), executable: tool.id, name: null, folder: null, input: {}, systemRequirements: {}, executionPolicy: {} };
    void apply(addStageEdit(stage, tool.title || tool.name)).then((ok) => ok && setSelected(stage.id));
  };

  const runNow = async () => {
    if (!model) return;
    setRunning(true);
    setProblem(null);
    try {
      const { id } = await api().call('workflow-xxxx/run', workflowId, { project: projectId, input: {} });
      navigate(`/panx/projects/${projectId}/monitor/analysis/${id}`);
    } catch (error) {
      setProblem({ label: 'Run', message: describeError(error) });
    } finally {
      setRunning(false);
    }
  };

  const makeCopy = async () => {
    if (!model) return;
    try {
      const { id } = await api().call('workflow/new', {
        project: projectId,
        name: `${model.name} (copy)`,
        initializeFrom: { id: model.id, project: projectId },
      });
      navigate(`/panx/projects/${projectId}/workflows/${id}`);
    } catch (error) {
      setProblem({ label: 'Copy', message: describeError(error) });
    }
  };

  // ---- conflicts ----
  const reapply = async () => {
    if (!conflict) return;
    const latest = await fetchWorkflow(workflowId, projectId).catch(() => conflict.latest);
    const rebased = rebase(latest, conflict.pending);
    if (!rebased.ok) {
      setConflict({ ...conflict, latest });
      return;
    }
    const pending = conflict;
    setConflict(null);
    queryClient.setQueryData(key, latest);
    await execute(latest, { label: pending.label, steps: rebased.steps }, pending.origin, pending.label);
  };

  if (query.isPending) {
    return (
      <div className={classes.page}>
        <LoadingState rows={6} label="Loading the workflow" />
      </div>
    );
  }
  if (query.isError || !model) {
    return (
      <div className={classes.page}>
        <ErrorState error={query.error} title="Could not load the workflow" onRetry={() => void query.refetch()} />
      </div>
    );
  }

  const selectedStage = model.stages.find((stage) => stage.id === selected);
  const projectName = projectField.str(project.data, 'name') ?? projectId;
  const unbound = unboundRequiredInputs(model, infos);
  const runReason = runBlockedReason(level);
  const undoEntry = peekUndo(history);
  const redoEntry = peekRedo(history);
  const conflictRebase = conflict ? rebase(conflict.latest, conflict.pending) : undefined;

  return (
    <div className={classes.page}>
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Group gap={6} wrap="wrap">
            <Anchor component={Link} to="/panx/projects" size="sm" c="dimmed">
              Projects
            </Anchor>
            <Text size="sm" c="dimmed" aria-hidden>
              /
            </Text>
            <Anchor component={Link} to={`/panx/projects/${projectId}/data/`} size="sm" c="dimmed">
              {projectName}
            </Anchor>
            <Text size="sm" c="dimmed" aria-hidden>
              /
            </Text>
            <Text size="sm" c="dimmed">
              Workflow
            </Text>
          </Group>
          <Group gap="xs" wrap="wrap">
            <Title order={1} size="h3" data-testid="workflow-name">
              {model.title || model.name}
            </Title>
            <Badge variant="light" color={readOnly ? 'gray' : 'green'}>
              {model.state !== 'open' ? model.state : readOnly ? 'read-only' : 'editable'}
            </Badge>
            <Text size="xs" c={conflict ? 'orange.8' : 'dimmed'} data-testid="edit-status" aria-live="polite">
              {busy ? `Saving: ${busy}…` : conflict ? `Version ${model.editVersion} · your edit is waiting` : `Version ${model.editVersion} · saved`}
            </Text>
          </Group>
        </div>
        <Group gap="xs" wrap="wrap">
          {!editBlockedReason('open', level) && (
            <Button component={Link} to={`/panx/projects/${projectId}/workflows/new`} variant="subtle" size="xs">
              New workflow
            </Button>
          )}
          <Button component={Link} to={`/panx/projects/${projectId}/run/${workflowId}`} variant="default" size="xs">
            Open in the runner
          </Button>
          <Tooltip
            label={runReason ?? (unbound.length ? `Set these inputs first, or use the runner: ${unbound.join(', ')}` : 'Run with the bound inputs')}
            multiline
            w={280}
          >
            <Button
              size="xs"
              onClick={() => void runNow()}
              loading={running}
              disabled={Boolean(runReason) || unbound.length > 0 || model.stages.length === 0 || busy !== null}
            >
              Run now
            </Button>
          </Tooltip>
        </Group>
      </Group>

      {readOnlyReason && (
        <Alert color="gray" variant="light" title="Read-only" data-testid="read-only">
          <Group justify="space-between" gap="xs">
            <Text size="sm">
              {readOnlyReason}
              {runReason ? ' Running it needs CONTRIBUTE access.' : ''}
            </Text>
            {model.state !== 'open' && level && !editBlockedReason('open', level) && (
              <Button size="xs" variant="default" onClick={() => void makeCopy()}>
                Make an editable copy
              </Button>
            )}
          </Group>
        </Alert>
      )}

      {conflict && (
        <Alert color="orange" variant="light" title="Someone else changed this workflow meanwhile" role="alert" data-testid="conflict">
          <Stack gap="xs">
            <Text size="sm">
              Your edit “{conflict.label}” was based on version {conflict.base.editVersion}; the workflow is now at version {conflict.latest.editVersion}. Your
              edit has not been applied and is kept here.
            </Text>
            <Text size="sm" fw={600}>
              Their changes:
            </Text>
            <List size="sm" withPadding data-testid="conflict-changes">
              {describeChanges(conflict.base, conflict.latest, infos).map((change) => (
                <List.Item key={change}>{change}</List.Item>
              ))}
            </List>
            {conflictRebase && !conflictRebase.ok && (
              <Text size="sm" c="red">
                Your edit no longer applies: {conflictRebase.problems.join('; ')}.
              </Text>
            )}
            <Group gap="xs">
              <Button size="xs" color="orange" onClick={() => void reapply()} disabled={!conflictRebase?.ok}>
                Re-apply my edit on the latest version
              </Button>
              <Button size="xs" variant="default" onClick={() => setConflict(null)}>
                Discard my edit
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}

      {newerElsewhere && (
        <Alert color="blue" variant="light" title="A newer version exists" data-testid="newer-version">
          <Group justify="space-between" gap="xs">
            <Text size="sm">
              Someone else saved version {latestVersion.data} of this workflow while you were looking at version {model.editVersion}.
            </Text>
            <Button size="xs" variant="default" onClick={() => void query.refetch()}>
              Load the latest version
            </Button>
          </Group>
        </Alert>
      )}

      {problem && (
        <Alert
          color="red"
          variant="light"
          title={`${problem.label}: not done`}
          withCloseButton
          onClose={() => setProblem(null)}
          role="alert"
          data-testid="edit-problem"
        >
          {problem.message}
        </Alert>
      )}

      {!readOnly && (
        <div className={classes.toolbar} role="toolbar" aria-label="Workflow editing">
          <Button size="xs" onClick={() => setAdding(true)} disabled={busy !== null || conflict !== null}>
            Add a stage
          </Button>
          <Tooltip label={undoEntry ? `Undo: ${undoEntry.label} (Ctrl+Z)` : 'Nothing to undo'}>
            <Button size="xs" variant="default" onClick={undo} disabled={!canUndo(history) || busy !== null || conflict !== null}>
              Undo
            </Button>
          </Tooltip>
          <Tooltip label={redoEntry ? `Redo: ${redoEntry.label} (Shift+Ctrl+Z)` : 'Nothing to redo'}>
            <Button size="xs" variant="default" onClick={redo} disabled={!canRedo(history) || busy !== null || conflict !== null}>
              Redo
            </Button>
          </Tooltip>
          <Text size="xs" c="dimmed">
            Drag from an output (right) to an input (left) to connect; select a link and press <Kbd size="xs">Delete</Kbd> to remove it.
          </Text>
        </div>
      )}

      <div className={classes.body}>
        <div className={classes.canvas} data-testid="workflow-graph" ref={canvasRef}>
          <ReactFlow<StageNodeType, LinkEdge>
            nodes={nodes}
            edges={edges}
            nodeTypes={NODE_TYPES}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={(connection) => {
              const check = connectionCheck(connection);
              if (!model || !check) return;
              if (check.ok) void apply(connectEdit(model, infos, check));
              else setProblem({ label: 'Connect', message: check.reason });
            }}
            onConnectEnd={onConnectEnd}
            isValidConnection={(connection) => connectionCheck(connection)?.ok === true}
            onDelete={onDelete}
            onPaneClick={() => setSelected(null)}
            nodesConnectable={!readOnly && !busy && !conflict}
            deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']}
            minZoom={0.2}
            maxZoom={1.5}
            proOptions={{ hideAttribution: true }}
          >
            <Background gap={20} size={1} />
            <Controls showInteractive={false} />
          </ReactFlow>
          {model.stages.length === 0 && (
            <div className={classes.empty}>
              <Stack align="center" gap={6} maw={360} ta="center" data-empty-state>
                <Text fw={600}>No stages yet</Text>
                <Text size="sm" c="dimmed">
                  {readOnly ? 'This workflow has no stages.' : 'Add a stage from the tool library; then connect its outputs to the inputs of the next.'}
                </Text>
                {!readOnly && (
                  <Button size="xs" onClick={() => setAdding(true)}>
                    Add the first stage
                  </Button>
                )}
              </Stack>
            </div>
          )}
        </div>
        <aside className={classes.panel} aria-label="Details">
          {selectedStage ? (
            <StagePanel
              model={model}
              stage={selectedStage}
              infos={infos}
              readOnly={readOnly}
              busy={busy !== null || conflict !== null}
              instanceTypes={instanceTypes.data?.instanceTypes ?? []}
              defaultInstanceType={instanceTypes.data?.defaultInstanceType}
              onEdit={apply}
              onClose={() => setSelected(null)}
            />
          ) : (
            <Overview
              model={model}
              infos={infos}
              readOnly={readOnly}
              busy={busy !== null || conflict !== null}
              history={history}
              onEdit={apply}
              onSelect={setSelected}
            />
          )}
        </aside>
      </div>

      <ToolSelector
        opened={adding}
        onClose={() => setAdding(false)}
        onSelect={addTool}
        project={projectId}
        classes={['app', 'applet']}
        title="Add a stage"
        confirmLabel="Add stage"
      />
    </div>
  );
}

function Overview({
  model,
  infos,
  readOnly,
  busy,
  history,
  onEdit,
  onSelect,
}: {
  model: WorkflowModel;
  infos: ReadonlyMap<string, ExecutableInfo>;
  readOnly: boolean;
  busy: boolean;
  history: History<Step>;
  onEdit: (edit: Edit) => Promise<boolean>;
  onSelect: (id: string) => void;
}) {
  const [name, setName] = useState(model.title || model.name);
  useEffect(() => setName(model.title || model.name), [model.title, model.name]);
  const rename = renameEdit(model, name);
  return (
    <Stack gap="sm">
      <Title order={2} size="h4">
        Workflow
      </Title>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (rename) void onEdit(rename);
        }}
      >
        <Group gap="xs" align="flex-end" wrap="nowrap">
          <TextInput
            style={{ flex: 1 }}
            label="Name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            readOnly={readOnly}
            error={name.trim() ? undefined : 'A workflow needs a name'}
          />
          {!readOnly && (
            <Button type="submit" size="sm" variant="default" disabled={busy || !rename}>
              Rename
            </Button>
          )}
        </Group>
      </form>
      <div>
        <Text size="sm" fw={600}>
          Stages ({model.stages.length})
        </Text>
        {model.stages.length === 0 ? (
          <Text size="sm" c="dimmed">
            None yet.
          </Text>
        ) : (
          <Stack gap={2} mt={4}>
            {model.stages.map((stage, index) => (
              <Button key={stage.id} variant="subtle" size="compact-sm" justify="flex-start" onClick={() => onSelect(stage.id)} data-stage-button={stage.id}>
                {index + 1}. {stageTitle(stage, infos.get(stage.executable))}
              </Button>
            ))}
          </Stack>
        )}
        <Text size="xs" c="dimmed" mt={4}>
          Select a stage to set its inputs, name, folder and instance type, or to move or remove it.
        </Text>
      </div>
      {!readOnly && (
        <div>
          <Text size="sm" fw={600}>
            Recent edits
          </Text>
          {history.past.length === 0 ? (
            <Text size="sm" c="dimmed">
              None in this session.
            </Text>
          ) : (
            <List size="sm" data-testid="history">
              {history.past
                .slice(-6)
                .reverse()
                .map((entry, index) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: entries have no identity beyond their position
                  <List.Item key={index}>{entry.label}</List.Item>
                ))}
            </List>
          )}
          <Text size="xs" c="dimmed" mt={6}>
            <Kbd size="xs">Ctrl</Kbd>+<Kbd size="xs">Z</Kbd> undo · <Kbd size="xs">Shift</Kbd>+<Kbd size="xs">Ctrl</Kbd>+<Kbd size="xs">Z</Kbd> redo (
            <Kbd size="xs">⌘</Kbd> on a Mac)
          </Text>
        </div>
      )}
    </Stack>
  );
}
