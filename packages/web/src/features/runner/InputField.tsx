import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Group,
  Input,
  Loader,
  MultiSelect,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  TagsInput,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { FileIcon } from '../data/icons';
import { DataPicker } from './DataPicker';
import { type DataRef, type DependentState, describeBinding, type FieldSpec, type FieldStatus, isDataClass, type RawValue, readLink } from './form-state';
import type { ObjectInfo } from './hooks';

const DEPENDENT_LABELS: Record<DependentState, { label: string; color: string }> = {
  WAIT_USER_INPUT: { label: 'Waiting for its source input', color: 'yellow' },
  WAIT_API: { label: 'Checking its source…', color: 'blue' },
  READY: { label: 'Ready', color: 'green' },
};

/** A chain link: an input that follows another stage's output or input. */
function LinkIcon() {
  return (
    <svg width={16} height={16} viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path
        d="M6.5 9.5l3-3M7 4.5l1.2-1.2a2.5 2.5 0 013.5 3.5L10.5 8M9 11.5l-1.2 1.2a2.5 2.5 0 01-3.5-3.5L5.5 8"
        fill="none"
        stroke="#495057"
        strokeWidth="1.4"
        strokeLinecap="round"
      />
    </svg>
  );
}

const choiceLabel = (choice: unknown) => (typeof choice === 'string' ? choice : JSON.stringify(choice));

export interface InputFieldProps {
  field: FieldSpec;
  raw: RawValue;
  status: FieldStatus;
  dependent?: DependentState;
  /** Workflows: a bound value the user chose to replace. */
  overriding: boolean;
  onOverride: (on: boolean) => void;
  onChange: (raw: RawValue) => void;
  onTouch: () => void;
  objectInfos: ReadonlyMap<string, ObjectInfo>;
  stageNames: Readonly<Record<string, string | undefined>>;
  /** The project the picker starts in. */
  project?: string;
  disabled?: boolean;
}

export function objectPath(info: ObjectInfo | undefined, ref: DataRef): string | undefined {
  const project = info?.project ?? ref.project;
  if (!project) return undefined;
  return `/panx/projects/${project}/data${info?.folder && info.folder !== '/' ? info.folder : '/'}`;
}

/** A picked or bound object: its name with a link to its folder, and its ID. */
function ObjectChip({ object, info, onRemove }: { object: DataRef; info: ObjectInfo | undefined; onRemove?: () => void }) {
  const name = object.name ?? info?.name ?? object.id;
  const path = objectPath(info, object);
  return (
    <Group gap={6} wrap="nowrap" data-testid="picked-object">
      <FileIcon kind={info?.class ?? 'file'} />
      {path ? (
        <Anchor component={Link} to={path} size="sm" fw={500} title={object.id}>
          {name}
        </Anchor>
      ) : (
        <Text size="sm" fw={500} title={object.id}>
          {name}
        </Text>
      )}
      <Text size="xs" c="dimmed" ff="monospace" visibleFrom="sm">
        {object.id}
      </Text>
      {info?.missing && (
        <Badge color="red" size="xs" variant="light">
          not found
        </Badge>
      )}
      {info?.state && info.state !== 'closed' && (
        <Badge color="orange" size="xs" variant="light">
          {info.state}
        </Badge>
      )}
      {onRemove && (
        <ActionIcon variant="subtle" color="gray" size="sm" onClick={onRemove} aria-label={`Remove ${name}`}>
          ×
        </ActionIcon>
      )}
    </Group>
  );
}

/** One input of the form, drawn for its class; bound workflow inputs are shown read-only with their link. */
export function InputField(props: InputFieldProps) {
  const { field, raw, status, onChange, onTouch, disabled } = props;
  const error = status.state === 'ERROR' ? status.error : undefined;
  const label = (
    <Group gap={6} component="span" wrap="nowrap">
      <span>{field.label}</span>
      {field.array && (
        <Badge size="xs" variant="light" color="gray" tt="none">
          array:{field.class}
        </Badge>
      )}
      {field.optional && !field.binding && (
        <Text span size="xs" c="dimmed" fw={400}>
          optional
        </Text>
      )}
      {status.state === 'LOADING' && <Loader size={12} aria-label="Checking" />}
    </Group>
  );
  const description = field.help;
  const testId = `input-${field.key}`;

  if (field.binding && field.binding.kind !== 'value') {
    const dependent = props.dependent ? DEPENDENT_LABELS[props.dependent] : undefined;
    return (
      <Input.Wrapper label={label} description={description} data-testid={testId} data-bound="link" error={error}>
        <Paper withBorder p="xs" mt={4} bg="var(--mantine-color-gray-light)">
          <Group gap="xs" justify="space-between">
            <Group gap={6} wrap="nowrap">
              <LinkIcon />
              <Text size="sm">{describeBinding(field.binding, props.stageNames)}</Text>
            </Group>
            {dependent && (
              <Badge size="sm" variant="light" color={dependent.color} data-state={props.dependent}>
                {dependent.label}
              </Badge>
            )}
          </Group>
        </Paper>
      </Input.Wrapper>
    );
  }

  if (field.binding?.kind === 'value' && !props.overriding) {
    const bound = field.binding.value;
    const items = Array.isArray(bound) ? bound : [bound];
    const refs = items.map((item) => readLink(item)?.data).filter((ref): ref is DataRef => !!ref);
    return (
      <Input.Wrapper label={label} description={description} data-testid={testId} data-bound="value" error={error}>
        <Paper withBorder p="xs" mt={4} bg="var(--mantine-color-gray-light)">
          <Group gap="xs" justify="space-between" wrap="nowrap">
            <Stack gap={2}>
              <Text size="xs" c="dimmed">
                Set in the workflow
              </Text>
              {refs.length > 0 ? (
                refs.map((ref) => <ObjectChip key={ref.id} object={ref} info={props.objectInfos.get(ref.id)} />)
              ) : (
                <Text size="sm" ff="monospace">
                  {JSON.stringify(bound)}
                </Text>
              )}
            </Stack>
            <Button size="xs" variant="default" onClick={() => props.onOverride(true)} disabled={disabled}>
              Change
            </Button>
          </Group>
        </Paper>
      </Input.Wrapper>
    );
  }

  const resetBinding = props.overriding ? (
    <Button size="compact-xs" variant="subtle" onClick={() => props.onOverride(false)}>
      Use the workflow's value
    </Button>
  ) : null;

  if (isDataClass(field.class)) {
    return <DataInput {...props} label={label} error={error} extra={resetBinding} testId={testId} />;
  }

  const text = typeof raw === 'string' ? raw : '';
  let control: React.ReactNode;
  if (field.array) {
    const items = Array.isArray(raw) ? (raw.filter((item) => typeof item === 'string') as string[]) : [];
    control = field.choices ? (
      <MultiSelect
        label={label}
        description={description}
        error={error}
        data={field.choices.map(choiceLabel)}
        value={items}
        onChange={(next) => onChange(next)}
        onBlur={onTouch}
        disabled={disabled}
        clearable
        data-testid={testId}
      />
    ) : (
      <TagsInput
        label={label}
        description={description ? `${description} Press Enter after each item.` : 'Press Enter after each item.'}
        error={error}
        value={items}
        onChange={(next) => {
          onChange(next);
          onTouch();
        }}
        onBlur={onTouch}
        disabled={disabled}
        clearable
        splitChars={[',']}
        data-testid={testId}
      />
    );
  } else if (field.class === 'boolean') {
    const value = raw === true ? 'true' : raw === false ? 'false' : '';
    const data = [{ value: 'true', label: 'Yes' }, { value: 'false', label: 'No' }, ...(field.optional ? [{ value: '', label: 'Not set' }] : [])];
    control = (
      <Input.Wrapper label={label} description={description} error={error} data-testid={testId}>
        <div>
          <SegmentedControl
            mt={4}
            data={data}
            value={value}
            onChange={(next) => {
              onChange(next === '' ? undefined : next === 'true');
              onTouch();
            }}
            disabled={disabled}
            aria-label={field.label}
          />
        </div>
      </Input.Wrapper>
    );
  } else if (field.choices) {
    control = (
      <Select
        label={label}
        description={description}
        error={error}
        data={field.choices.map(choiceLabel)}
        value={text || null}
        onChange={(next) => {
          onChange(next ?? undefined);
          onTouch();
        }}
        onBlur={onTouch}
        clearable={field.optional}
        allowDeselect={field.optional}
        disabled={disabled}
        data-testid={testId}
      />
    );
  } else if (field.class === 'hash') {
    control = (
      <Textarea
        label={label}
        description={description ?? 'A JSON object'}
        error={error}
        value={text}
        onChange={(event) => onChange(event.currentTarget.value)}
        onBlur={onTouch}
        autosize
        minRows={2}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        placeholder="{}"
        disabled={disabled}
        data-testid={testId}
      />
    );
  } else {
    control = (
      <TextInput
        label={label}
        description={description}
        error={error}
        value={text}
        onChange={(event) => onChange(event.currentTarget.value)}
        onBlur={onTouch}
        inputMode={field.class === 'int' ? 'numeric' : field.class === 'float' ? 'decimal' : undefined}
        placeholder={field.class === 'int' ? 'A whole number' : field.class === 'float' ? 'A number' : undefined}
        disabled={disabled}
        data-testid={testId}
      />
    );
  }
  return (
    <Stack gap={2}>
      {control}
      {resetBinding}
    </Stack>
  );
}

function DataInput({
  field,
  raw,
  onChange,
  onTouch,
  objectInfos,
  project,
  disabled,
  label,
  error,
  extra,
  testId,
}: InputFieldProps & { label: React.ReactNode; error?: string; extra: React.ReactNode; testId: string }) {
  const [picking, setPicking] = useState(false);
  const refs = Array.isArray(raw) ? (raw.filter((item) => typeof item !== 'string') as DataRef[]) : [];
  const first = refs[0] ? objectInfos.get(refs[0].id) : undefined;
  const noun = field.array ? `${field.class}s` : `a ${field.class}`;
  return (
    <Input.Wrapper label={label} description={field.help} error={error} data-testid={testId}>
      <Paper withBorder p="xs" mt={4} style={error ? { borderColor: 'var(--mantine-color-error)' } : undefined}>
        <Group justify="space-between" wrap="wrap" align="flex-start" gap="xs">
          <Stack gap={4}>
            {refs.length === 0 ? (
              <Text size="sm" c="dimmed">
                No {field.class} selected{field.patterns.length ? ` (${field.patterns.join(', ')})` : ''}
              </Text>
            ) : (
              refs.map((ref) => (
                <ObjectChip
                  key={ref.id}
                  object={ref}
                  info={objectInfos.get(ref.id)}
                  onRemove={
                    disabled
                      ? undefined
                      : () => {
                          const next = refs.filter((item) => item.id !== ref.id);
                          onChange(next.length ? next : undefined);
                          onTouch();
                        }
                  }
                />
              ))
            )}
          </Stack>
          <Button size="xs" variant="light" onClick={() => setPicking(true)} disabled={disabled} aria-label={`Select ${noun} for ${field.label}`}>
            {refs.length ? 'Change' : `Select ${noun}`}
          </Button>
        </Group>
      </Paper>
      {extra}
      <DataPicker
        opened={picking}
        onClose={() => {
          setPicking(false);
          onTouch();
        }}
        onPick={(picked) => onChange(picked.length ? picked : undefined)}
        title={field.stage ? `${field.label} (${field.stage})` : field.label}
        objectClass={field.class}
        patterns={field.patterns}
        multiple={field.array}
        initialProject={first?.project ?? refs[0]?.project ?? project}
        initialFolder={first?.folder}
        selected={refs}
      />
    </Input.Wrapper>
  );
}
