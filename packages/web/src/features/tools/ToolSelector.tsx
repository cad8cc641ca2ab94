import { Badge, Button, Group, Modal, ScrollArea, SegmentedControl, Select, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { type KeyboardEvent, useEffect, useId, useMemo, useReducer, useRef } from 'react';
import { useNavigate } from 'react-router';
import { EmptyState, ErrorState, LoadingState } from '../../ui/states';
import { useAllowedExecutables, useToolCatalog } from './hooks';
import { CLASS_LABEL, type SelectedTool, TOOL_CLASSES, type ToolClass } from './tool-catalog';
import { initialToolSelectorState, selectedTool, type ToolSelectorState, toolSelectorReducer, visibleTools } from './tool-selector-state';
import classes from './tools.module.css';

export type { SelectedTool, ToolClass } from './tool-catalog';

/**
 * The tool selector (SPEC §3): a modal listing the apps, applets and workflows the user can run, with a
 * title filter, a class filter and, for apps, the version. Used wherever a tool is chosen (the library's
 * "Run a tool", the workflow editor's "Add a stage", …).
 *
 * ```tsx
 * <ToolSelector opened={adding} onClose={() => setAdding(false)} project={projectId} classes={['app', 'applet']}
 *   onSelect={(tool) => addStage(tool.id)} confirmLabel="Add stage" />
 * ```
 *
 * - `onSelect(tool)` gets `{ id, class, name, title, version?, project? }`: for an app, `id` is the chosen
 *   version's id (`app-xxxx`) and `version` its number; for applets and workflows, `project` holds them.
 *   The selector closes itself (it calls `onClose`) after `onSelect`.
 * - `project`: when given, the project's `allowedExecutables` (SPEC §6) applies: only listed tools are
 *   offered, only listed app versions, and the first allowed version is selected when the default is not.
 * - `classes`: the classes offered (default: all three).
 * - `redirect`: after the choice, go to the tool runner (`/panx/tools/run/{id}`, or the project's
 *   `/panx/projects/{project}/run/{id}` when `project` is given).
 */
export interface ToolSelectorProps {
  opened: boolean;
  onClose: () => void;
  onSelect?: (tool: SelectedTool) => void;
  project?: string;
  classes?: readonly ToolClass[];
  redirect?: boolean;
  /** Modal title (default "Select a tool"). */
  title?: string;
  /** Confirm button text (default "Select", or "Run" with `redirect`). */
  confirmLabel?: string;
}

export function ToolSelector({ opened, onClose, onSelect, project, classes: allowedClasses, redirect = false, title, confirmLabel }: ToolSelectorProps) {
  const [state, dispatch] = useReducer(toolSelectorReducer, initialToolSelectorState);
  const catalog = useToolCatalog({ enabled: opened });
  const allowed = useAllowedExecutables(opened ? project : undefined);
  const navigate = useNavigate();
  const listId = useId();
  const listRef = useRef<HTMLDivElement>(null);
  const classKey = (allowedClasses ?? []).join(',');

  useEffect(() => {
    dispatch({ type: opened ? 'open' : 'close' });
  }, [opened]);

  useEffect(() => {
    if (!catalog.data) return;
    if (project && !allowed.data && allowed.data !== null) return;
    dispatch({
      type: 'setTools',
      tools: catalog.data,
      allowed: project ? allowed.data : null,
      classes: classKey ? (classKey.split(',') as ToolClass[]) : undefined,
    });
  }, [catalog.data, allowed.data, project, classKey]);

  // Keep the selected option in view when moving with the arrow keys.
  useEffect(() => {
    if (!state.selectedToolID) return;
    listRef.current?.querySelector(`[data-tool-id="${CSS.escape(state.selectedToolID)}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [state.selectedToolID]);

  const visible = useMemo(() => visibleTools(state), [state]);
  const chosen = selectedTool(state);
  const selected = state.tools.find((tool) => tool.id === state.selectedToolID);
  const classChoices = useMemo(() => TOOL_CLASSES.filter((cls) => state.tools.some((tool) => tool.class === cls)), [state.tools]);
  const loading = catalog.isPending || (project !== undefined && allowed.isPending);
  const error = catalog.error ?? allowed.error;
  const restricted = project !== undefined && Array.isArray(allowed.data);

  /** Hands the choice back, closes, and goes to the runner when asked (navigating here, so it works even if the parent unmounts the selector). */
  const confirmWith = (from: ToolSelectorState) => {
    const tool = selectedTool(from);
    if (!tool) return;
    const next = toolSelectorReducer(from, { type: 'confirm', ...(redirect ? { redirect: { ...(project ? { project } : {}) } } : {}) });
    dispatch({ type: 'confirm', ...(redirect ? { redirect: { ...(project ? { project } : {}) } } : {}) });
    onSelect?.(tool);
    onClose();
    if (next.redirect) {
      dispatch({ type: 'redirected' });
      navigate(next.redirect);
    }
  };
  const confirm = () => confirmWith(state);

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      dispatch({ type: 'move', delta: event.key === 'ArrowDown' ? 1 : -1 });
    } else if (event.key === 'Enter' && chosen) {
      event.preventDefault();
      confirm();
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title={title ?? 'Select a tool'} size="xl" centered data-testid="tool-selector">
      <Stack gap="sm">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput
            style={{ flex: 1, minWidth: 200 }}
            label="Filter by title"
            placeholder="e.g. BWA, variant calling"
            value={state.titleFilter}
            onChange={(event) => dispatch({ type: 'setTitleFilter', value: event.currentTarget.value })}
            onKeyDown={onKeyDown}
            data-autofocus
            aria-controls={listId}
            aria-activedescendant={state.selectedToolID ? `${listId}-${state.selectedToolID}` : undefined}
          />
          {classChoices.length > 1 && (
            <SegmentedControl
              size="sm"
              aria-label="Tool class"
              value={state.classFilter ?? 'all'}
              onChange={(value) => dispatch({ type: 'setClassFilter', value: value === 'all' ? null : (value as ToolClass) })}
              data={[{ value: 'all', label: 'All' }, ...classChoices.map((cls) => ({ value: cls, label: `${CLASS_LABEL[cls]}s` }))]}
            />
          )}
        </Group>
        {restricted && (
          <Text size="xs" c="dimmed">
            This project only allows some executables: only those are listed.
          </Text>
        )}
        {error ? (
          <ErrorState error={error} title="Could not load the tools" onRetry={() => void (catalog.error ? catalog.refetch() : allowed.refetch())} />
        ) : loading ? (
          <LoadingState rows={5} label="Loading tools" />
        ) : visible.length === 0 ? (
          <EmptyState title={state.tools.length === 0 ? 'No tools to choose from' : 'No tool matches'}>
            {state.tools.length === 0
              ? restricted
                ? 'This project allows none of the tools you can see.'
                : 'Apps published to you, and applets and workflows in your projects, appear here.'
              : 'Try other words, or another class.'}
          </EmptyState>
        ) : (
          <ScrollArea.Autosize mah={360} type="auto" viewportRef={listRef}>
            <div id={listId} role="listbox" aria-label="Tools" className={classes.selectorList}>
              {visible.map((tool) => {
                const isSelected = tool.id === state.selectedToolID;
                return (
                  <UnstyledButton
                    key={tool.id}
                    id={`${listId}-${tool.id}`}
                    role="option"
                    aria-selected={isSelected}
                    data-tool-id={tool.id}
                    className={classes.selectorOption}
                    data-selected={isSelected || undefined}
                    onClick={() => dispatch({ type: 'select', toolID: tool.id })}
                    onDoubleClick={() => confirmWith(toolSelectorReducer(state, { type: 'select', toolID: tool.id }))}
                    onKeyDown={onKeyDown}
                  >
                    <Group justify="space-between" wrap="nowrap" gap="xs">
                      <Text fw={600} size="sm" truncate>
                        {tool.title}
                      </Text>
                      <Group gap={4} wrap="nowrap">
                        {tool.version && (
                          <Text size="xs" c="dimmed">
                            v{tool.version}
                          </Text>
                        )}
                        <Badge size="xs" variant="light" color={tool.class === 'app' ? 'blue' : tool.class === 'workflow' ? 'grape' : 'teal'}>
                          {CLASS_LABEL[tool.class]}
                        </Badge>
                      </Group>
                    </Group>
                    <Text size="xs" c="dimmed" lineClamp={1}>
                      {tool.summary || tool.name}
                    </Text>
                  </UnstyledButton>
                );
              })}
            </div>
          </ScrollArea.Autosize>
        )}
        {selected?.class === 'app' && state.appVersions.length > 0 && (
          <Select
            label="Version"
            allowDeselect={false}
            value={state.selectedVersionID}
            onChange={(value) => value && dispatch({ type: 'selectVersion', versionID: value })}
            data={state.appVersions.map((v) => ({ value: v.id, label: `${v.version}${v.aliases.includes('default') ? ' (default)' : ''}` }))}
            maw={280}
          />
        )}
        {selected && selected.class !== 'app' && selected.project && (
          <Text size="xs" c="dimmed">
            {CLASS_LABEL[selected.class]} in {selected.project}
            {selected.folder ? `:${selected.folder}` : ''}
          </Text>
        )}
        {!loading && !error && state.tools.length > 0 && !chosen && (
          <Text size="xs" c="dimmed">
            Click a tool (double-click to choose it at once), or move with ↑ ↓ and press Enter.
          </Text>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={confirm} disabled={!chosen}>
            {confirmLabel ?? (redirect ? 'Run' : 'Select')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
