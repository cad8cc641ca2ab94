import { ActionIcon, Badge, Button, Divider, Group, Select, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import { describeError } from '../../ui/describe-error';
import type { InstanceTypeInfo } from '../runner/cost';
import { DataPicker } from '../runner/DataPicker';
import type { DataRef } from '../runner/form-state';
import { type Edit, moveStageEdit, removeStageEdit, setInputEdit, stageSettingsEdit } from './edits';
import { checkConnection, connectEdit, inHandle, outHandle } from './graph';
import { resolvePath } from './hooks';
import { isDataClass, parseInputValue } from './input-values';
import { describeValue, type ExecutableInfo, type IoField, instanceTypeOf, type StageModel, stageLinksIn, stageTitle, type WorkflowModel } from './model';
import classes from './WorkflowEditor.module.css';

export interface StagePanelProps {
  model: WorkflowModel;
  stage: StageModel;
  infos: ReadonlyMap<string, ExecutableInfo>;
  readOnly: boolean;
  busy: boolean;
  instanceTypes: readonly InstanceTypeInfo[];
  defaultInstanceType: string | undefined;
  /** Applies an edit (on the server); true when it was applied. */
  onEdit: (edit: Edit) => Promise<boolean>;
  onClose: () => void;
}

/** The selected stage: name, folder, instance type, position, inputs (set, link, unbind) and outputs. */
export function StagePanel({ model, stage, infos, readOnly, busy, instanceTypes, defaultInstanceType, onEdit, onClose }: StagePanelProps) {
  const info = infos.get(stage.executable);
  const index = model.stages.findIndex((candidate) => candidate.id === stage.id);
  const title = stageTitle(stage, info);
  const [name, setName] = useState(stage.name ?? '');
  const [folder, setFolder] = useState(stage.folder ?? '');
  const [instanceType, setInstanceType] = useState(instanceTypeOf(stage) ?? '');
  useEffect(() => {
    setName(stage.name ?? '');
    setFolder(stage.folder ?? '');
    setInstanceType(instanceTypeOf(stage) ?? '');
  }, [stage]);
  const folderError = folder.split('/').some((segment) => segment === '.' || segment === '..') ? 'Folder names "." and ".." are not allowed' : undefined;
  const settings = stageSettingsEdit(model, stage.id, { name, folder, instanceType });

  const move = (to: number) => {
    const edit = moveStageEdit(model, stage.id, to);
    if (edit) void onEdit(edit);
  };

  return (
    <Stack gap="sm" aria-label={`Stage ${title}`}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div style={{ minWidth: 0 }}>
          <Text size="xs" c="dimmed">
            Stage {index + 1} of {model.stages.length}
          </Text>
          <Title order={2} size="h4" style={{ wordBreak: 'break-word' }}>
            {title}
          </Title>
          <Text size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
            {info ? `${info.title} (${info.name}) · ` : ''}
            {stage.executable}
          </Text>
        </div>
        <ActionIcon variant="subtle" color="gray" onClick={onClose} aria-label="Close the stage panel">
          ×
        </ActionIcon>
      </Group>

      {!readOnly && (
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => move(index - 1)} disabled={busy || index <= 0} aria-label="Move the stage earlier">
            ← Earlier
          </Button>
          <Button
            size="xs"
            variant="default"
            onClick={() => move(index + 1)}
            disabled={busy || index >= model.stages.length - 1}
            aria-label="Move the stage later"
          >
            Later →
          </Button>
          <Button size="xs" variant="light" color="red" ml="auto" onClick={() => void onEdit(removeStageEdit(model, stage.id))} disabled={busy}>
            Remove stage
          </Button>
        </Group>
      )}

      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (settings && !folderError) void onEdit(settings);
        }}
      >
        <Stack gap="xs">
          <TextInput
            label="Stage name"
            placeholder={info?.title ?? 'the executable’s title'}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            readOnly={readOnly}
          />
          <TextInput
            label="Output folder"
            description="Absolute (/results/align), or relative to the run’s output folder"
            placeholder="the run’s output folder"
            value={folder}
            onChange={(e) => setFolder(e.currentTarget.value)}
            error={folderError}
            readOnly={readOnly}
          />
          <InstanceTypeInput value={instanceType} onChange={setInstanceType} options={instanceTypes} defaultType={defaultInstanceType} readOnly={readOnly} />
          {!readOnly && (
            <Group>
              <Button type="submit" size="xs" disabled={busy || !settings || Boolean(folderError)}>
                Apply
              </Button>
              {settings && (
                <Text size="xs" c="dimmed">
                  {settings.label}
                </Text>
              )}
            </Group>
          )}
        </Stack>
      </form>

      <Divider label="Inputs" labelPosition="left" />
      {!info ? (
        <Text size="sm" c="red">
          The stage’s executable cannot be described: its inputs and outputs are unknown.
        </Text>
      ) : info.inputSpec.length === 0 ? (
        <Text size="sm" c="dimmed">
          This executable takes no inputs.
        </Text>
      ) : (
        <div>
          {info.inputSpec.map((field) => (
            <InputRow key={field.name} model={model} stage={stage} field={field} infos={infos} readOnly={readOnly} busy={busy} onEdit={onEdit} />
          ))}
        </div>
      )}

      <Divider label="Outputs" labelPosition="left" />
      {info && info.outputSpec.length === 0 && (
        <Text size="sm" c="dimmed">
          This executable has no outputs.
        </Text>
      )}
      {info?.outputSpec.map((field) => {
        const users = model.stages.filter((other) =>
          stageLinksIn(other.input).some((link) => link.stage === stage.id && 'outputField' in link && link.outputField === field.name),
        );
        return (
          <Group key={field.name} gap={6} wrap="nowrap">
            <Text size="sm" ff="monospace" fw={600}>
              {field.name}
            </Text>
            <Badge size="xs" variant="light" color="gray">
              {field.class}
            </Badge>
            <Text size="xs" c="dimmed" truncate>
              {users.length ? `→ ${users.map((user) => stageTitle(user, infos.get(user.executable))).join(', ')}` : field.label}
            </Text>
          </Group>
        );
      })}
    </Stack>
  );
}

function InstanceTypeInput({
  value,
  onChange,
  options,
  defaultType,
  readOnly,
}: {
  value: string;
  onChange: (value: string) => void;
  options: readonly InstanceTypeInfo[];
  defaultType: string | undefined;
  readOnly: boolean;
}) {
  const placeholder = defaultType ? `the project’s default (${defaultType})` : 'the project’s default';
  if (!options.length) {
    return (
      <TextInput
        label="Instance type"
        description="For every entry point of the stage"
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        readOnly={readOnly}
      />
    );
  }
  const data = options.map((type) => ({
    value: type.name,
    label: `${type.name} · ${type.cores} cores · ${Math.round(type.memoryMB / 1024)} GiB · $${type.pricePerHour.toFixed(3)}/h`,
  }));
  if (value && !options.some((type) => type.name === value)) data.unshift({ value, label: `${value} (not offered in this region)` });
  return (
    <Select
      label="Instance type"
      description="For every entry point of the stage"
      placeholder={placeholder}
      data={data}
      value={value || null}
      onChange={(choice) => onChange(choice ?? '')}
      searchable
      clearable
      readOnly={readOnly}
      nothingFoundMessage="No instance type matches"
    />
  );
}

function InputRow({
  model,
  stage,
  field,
  infos,
  readOnly,
  busy,
  onEdit,
}: {
  model: WorkflowModel;
  stage: StageModel;
  field: IoField;
  infos: ReadonlyMap<string, ExecutableInfo>;
  readOnly: boolean;
  busy: boolean;
  onEdit: (edit: Edit) => Promise<boolean>;
}) {
  const bound = stage.input[field.name];
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [working, setWorking] = useState(false);
  const [picking, setPicking] = useState(false);
  const dataClass = isDataClass(field.class);
  const isArray = field.class.startsWith('array:');
  const stageName = (id: string) => {
    const other = model.stages.find((candidate) => candidate.id === id);
    return other ? stageTitle(other, infos.get(other.executable)) : id;
  };
  // outputs of other stages this input could take (typed, no cycles)
  const sources = model.stages.flatMap((other) =>
    (infos.get(other.executable)?.outputSpec ?? []).flatMap((output) => {
      const check = checkConnection(model, infos, {
        source: other.id,
        sourceHandle: outHandle(output.name),
        target: stage.id,
        targetHandle: inHandle(field.name),
      });
      return check.ok ? [{ value: `${other.id}\n${output.name}`, label: `${stageName(other.id)} → ${output.name} (${output.class})` }] : [];
    }),
  );
  const placeholder =
    field.class === 'file' || field.class === 'array:file'
      ? 'file-xxxx or project-xxxx:/folder/name'
      : field.class.startsWith('array:')
        ? 'values separated by commas'
        : field.class === 'boolean'
          ? 'true or false'
          : field.class;

  const set = async () => {
    const parsed = parseInputValue(field.class, text, field.choices);
    if (parsed.ok === false) {
      setError(parsed.error);
      return;
    }
    setWorking(true);
    try {
      let value: unknown;
      if (parsed.ok === 'resolve') value = await resolvePath(parsed.project, parsed.folder, parsed.name);
      else value = parsed.value;
      setError(undefined);
      if (await onEdit(setInputEdit(stage.id, field.name, value, `Set ${stageName(stage.id)}.${field.name}`))) setText('');
    } catch (problem) {
      setError(describeError(problem));
    } finally {
      setWorking(false);
    }
  };

  return (
    <div className={classes.inputRow} data-input={field.name}>
      <Group gap={6} wrap="nowrap">
        <Text size="sm" ff="monospace" fw={600}>
          {field.name}
          {!field.optional && (
            <Text span c="red" aria-label="required">
              *
            </Text>
          )}
        </Text>
        <Badge size="xs" variant="light" color={field.class.startsWith('array:') ? 'grape' : 'blue'}>
          {field.class}
        </Badge>
        {field.label && (
          <Text size="xs" c="dimmed" truncate>
            {field.label}
          </Text>
        )}
      </Group>
      {field.help && (
        <Text size="xs" c="dimmed">
          {field.help}
        </Text>
      )}
      {bound !== undefined ? (
        <Group gap="xs" mt={4} wrap="nowrap">
          <Text size="sm" c="teal.8" style={{ wordBreak: 'break-all', flex: 1 }} data-bound-value>
            {describeValue(bound, stageName)}
          </Text>
          {!readOnly && (
            <Tooltip label="Remove this value or link: the input is asked for when the workflow is run">
              <Button
                size="compact-xs"
                variant="subtle"
                color="red"
                onClick={() => void onEdit(setInputEdit(stage.id, field.name, null, `Unbind ${stageName(stage.id)}.${field.name}`))}
                disabled={busy}
                aria-label={`Unbind ${field.name}`}
              >
                Unbind
              </Button>
            </Tooltip>
          )}
        </Group>
      ) : (
        <Text size="xs" c={field.optional ? 'dimmed' : 'orange.8'} mt={2}>
          {field.default !== undefined
            ? `Default: ${describeValue(field.default)}`
            : field.optional
              ? 'Optional, not set'
              : 'Required: set it here or when running'}
        </Text>
      )}
      {!readOnly && (bound === undefined || field.class.startsWith('array:')) && (
        <Stack gap={4} mt={6}>
          {field.choices?.length ? (
            <Select
              size="xs"
              aria-label={`Value of ${field.name}`}
              placeholder="Choose a value"
              data={field.choices.map((choice) => ({ value: JSON.stringify(choice), label: String(choice) }))}
              onChange={(choice) => choice !== null && void onEdit(setInputEdit(stage.id, field.name, JSON.parse(choice), `Set ${field.name}`))}
              disabled={busy}
              value={null}
            />
          ) : (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void set();
              }}
            >
              <Group gap={4} wrap="nowrap" align="flex-start">
                <TextInput
                  size="xs"
                  style={{ flex: 1 }}
                  aria-label={`Value of ${field.name}`}
                  placeholder={placeholder}
                  value={text}
                  onChange={(e) => {
                    setText(e.currentTarget.value);
                    setError(undefined);
                  }}
                  error={error}
                />
                <Button size="xs" type="submit" variant="default" loading={working} disabled={busy || !text.trim()}>
                  Set
                </Button>
                {dataClass && (
                  <Button size="xs" variant="light" onClick={() => setPicking(true)} disabled={busy} aria-label={`Browse for ${field.name}`}>
                    Browse…
                  </Button>
                )}
              </Group>
            </form>
          )}
          {dataClass && (
            <DataPicker
              opened={picking}
              onClose={() => setPicking(false)}
              title={`${field.name} (${stageName(stage.id)})`}
              objectClass={field.class.replace(/^array:/, '')}
              patterns={field.patterns}
              multiple={isArray}
              initialProject={model.project}
              onPick={(refs: DataRef[]) => {
                setPicking(false);
                const links = refs.map((ref) => ({ $dnanexus_link: ref.project ? { project: ref.project, id: ref.id } : ref.id }));
                if (!links.length) return;
                const kept = isArray && Array.isArray(bound) ? bound : [];
                const value = isArray ? [...kept, ...links] : links[0];
                void onEdit(setInputEdit(stage.id, field.name, value, `Set ${stageName(stage.id)}.${field.name}`));
              }}
            />
          )}
          {sources.length > 0 && (
            <Select
              size="xs"
              aria-label={`Link ${field.name} to an output`}
              placeholder="…or take another stage’s output"
              data={sources}
              value={null}
              disabled={busy}
              onChange={(choice) => {
                if (!choice) return;
                const [source, output] = choice.split('\n') as [string, string];
                const check = checkConnection(model, infos, { source, sourceHandle: outHandle(output), target: stage.id, targetHandle: inHandle(field.name) });
                if (check.ok) void onEdit(connectEdit(model, infos, check));
              }}
            />
          )}
        </Stack>
      )}
    </div>
  );
}
