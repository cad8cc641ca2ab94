import {
  Accordion,
  Alert,
  Badge,
  Button,
  Grid,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { isApiError } from '@panx/client';
import { useMutation } from '@tanstack/react-query';
import { type MutableRefObject, type ReactNode, useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../lib/api';
import { describeError } from '../../ui/describe-error';
import type { ProjectRow } from '../projects/project-list';
import { levelAtLeast } from '../projects/project-rules';
import { notAllowedMessage } from './allowed';
import { type ComputeEntry, cleanTags, describeInstanceType, entryPoints, estimateCost, formatPrice, parseCostLimit } from './cost';
import {
  buildRunInput,
  type DataRef,
  dependentState,
  errorField,
  type FieldSection,
  type FieldSpec,
  fieldStatus,
  fieldsFromSpec,
  formState,
  initialValues,
  isDataClass,
  type RawValue,
  rawFromJson,
  readLink,
  sectionNeedsAttention,
  sections as toSections,
  valuesFromRunInput,
} from './form-state';
import { type RunnerProject, type RunnerTool, useInstanceTypes, useObjectInfos } from './hooks';
import { InputField } from './InputField';
import { executionPath, type Prefill, type RunnerDraft, VERSION_SWITCH_SOURCE } from './prefill';

const PRIORITIES = ['low', 'normal', 'high'] as const;
type Priority = (typeof PRIORITIES)[number];

export interface RunnerFormProps {
  tool: RunnerTool;
  prefill: Prefill | undefined;
  /** The output project chosen (route, query string, earlier run or first runnable). */
  projectId: string | undefined;
  project: RunnerProject | undefined;
  projectLoading: boolean;
  routeProject: string | undefined;
  runnableProjects: readonly ProjectRow[];
  projectsLoading: boolean;
  onProjectChange: (id: string) => void;
  toolAllowed: boolean;
  /** Kept up to date with what the form holds, for the page to carry it to another version of the tool. */
  draftRef?: MutableRefObject<RunnerDraft | undefined>;
}

const sectionKey = (section: FieldSection) => `${section.stage ?? ''}/${section.group ?? ''}`;

function requirementOf(requirements: unknown, key: string): string | undefined {
  if (typeof requirements !== 'object' || requirements === null) return undefined;
  const entry = (requirements as Record<string, unknown>)[key];
  const type = typeof entry === 'object' && entry !== null ? (entry as { instanceType?: unknown }).instanceType : undefined;
  return typeof type === 'string' ? type : undefined;
}

/** The form of one executable: inputs per stage and group, run settings, validation and Run. */
export function RunnerForm(props: RunnerFormProps) {
  const { tool, prefill, projectId, project } = props;
  const navigate = useNavigate();
  const fields = useMemo(() => fieldsFromSpec(tool.inputSpec), [tool.inputSpec]);
  const stageNames = useMemo(() => Object.fromEntries(tool.stages.map((stage) => [stage.id, stage.name ?? stage.executableTitle])), [tool.stages]);
  const fromPrefill = useMemo(() => (prefill ? valuesFromRunInput(fields, prefill.runInput) : undefined), [fields, prefill]);

  const [values, setValues] = useState<Record<string, RawValue>>(() => ({ ...initialValues(fields), ...(fromPrefill?.values ?? {}) }));
  // Bound workflow inputs the user replaces (a prefilled value for one counts as replacing it).
  const [overriding, setOverriding] = useState<Set<string>>(
    () => new Set(fields.filter((field) => field.binding?.kind === 'value' && fromPrefill?.values[field.key] !== undefined).map((field) => field.key)),
  );
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [generalError, setGeneralError] = useState<string | undefined>();
  const [folder, setFolder] = useState(prefill?.folder ?? tool.outputFolder ?? '/');
  const [name, setName] = useState(prefill?.name ?? tool.title);
  const [tags, setTags] = useState<string[]>(prefill?.tags ?? []);
  const [priority, setPriority] = useState<Priority>('normal');
  const [hours, setHours] = useState<number | string>(1);
  const [costLimit, setCostLimit] = useState('');
  const [types, setTypes] = useState<Record<string, string>>({});
  const allSections = useMemo(() => toSections(fields), [fields]);
  const [openGroups, setOpenGroups] = useState<string[]>(() =>
    allSections.filter((section) => section.group && sectionNeedsAttention(section, values, {})).map(sectionKey),
  );

  const instanceTypes = useInstanceTypes(projectId);
  const catalogue = instanceTypes.data?.instanceTypes ?? [];
  const projectDefault = instanceTypes.data?.defaultInstanceType ?? '';
  const entries: ComputeEntry[] =
    tool.class === 'workflow'
      ? tool.stages.map((stage) => ({
          key: stage.id,
          label: stage.name ?? stage.executableTitle ?? stage.id,
          defaultType:
            requirementOf(stage.systemRequirements, '*') ??
            requirementOf(stage.executableSystemRequirements, '*') ??
            requirementOf(stage.executableSystemRequirements, 'main') ??
            projectDefault,
        }))
      : entryPoints(tool.systemRequirements, projectDefault);
  const chosenTypes = entries.map((entry) => types[entry.key] ?? entry.defaultType);
  const estimate = estimateCost(chosenTypes, catalogue, Number(hours));

  // Names and states of the objects in the form and bound in the workflow (LOADING while they are described).
  const refs = useMemo(() => {
    const list: DataRef[] = [];
    for (const field of fields) {
      if (!isDataClass(field.class)) continue;
      const raw = values[field.key];
      if (Array.isArray(raw)) for (const item of raw) if (typeof item !== 'string') list.push(item);
      if (field.binding?.kind === 'value') {
        const bound = Array.isArray(field.binding.value) ? field.binding.value : [field.binding.value];
        for (const item of bound) {
          const data = readLink(item)?.data;
          if (data) list.push(data);
        }
      }
    }
    return list;
  }, [fields, values]);
  const objectInfos = useObjectInfos(refs);
  const infos = objectInfos.data ?? new Map();
  const checking = new Set<string>();
  const checkErrors: Record<string, string> = {};
  for (const field of fields) {
    const raw = values[field.key];
    if (!isDataClass(field.class) || !Array.isArray(raw)) continue;
    for (const item of raw) {
      if (typeof item === 'string') continue;
      const info = infos.get(item.id);
      if (!info && objectInfos.isFetching) checking.add(field.key);
      else if (info?.missing) checkErrors[field.key] = `${item.id} could not be found or read`;
      else if (info?.state && info.state !== 'closed') checkErrors[field.key] = `${info.name ?? item.id} is ${info.state}: only closed objects can be inputs`;
    }
  }

  const fieldFor = (key: string) => fields.find((field) => field.key === key);
  const liveFields = fields.map((field) => (field.binding?.kind === 'value' && overriding.has(field.key) ? { ...field, binding: undefined } : field));
  // The server's field errors stand until the fields change: the form waits for the user again.
  const state =
    Object.keys(serverErrors).length > 0
      ? 'WAIT_USER_INPUT'
      : formState(liveFields, values, { checking, loading: props.projectLoading || instanceTypes.isPending });

  const change = (key: string, raw: RawValue) => {
    setValues((current) => ({ ...current, [key]: raw }));
    setServerErrors((current) => {
      if (!(key in current)) return current;
      const { [key]: _gone, ...rest } = current;
      return rest;
    });
  };
  const touch = (key: string) => setTouched((current) => (current.has(key) ? current : new Set(current).add(key)));
  const override = (key: string, on: boolean) => {
    setOverriding((current) => {
      const next = new Set(current);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
    const field = fieldFor(key);
    if (on && field?.binding?.kind === 'value') {
      // Start from the bound value, so that "Change" shows what the workflow gives.
      const bound = field.binding.value;
      if (isDataClass(field.class)) {
        const items = (Array.isArray(bound) ? bound : [bound])
          .map((item) => readLink(item)?.data)
          .filter((ref): ref is DataRef => !!ref)
          .map((ref) => ({ ...ref, name: ref.name ?? infos.get(ref.id)?.name, project: ref.project ?? infos.get(ref.id)?.project }));
        change(key, items.length ? items : undefined);
      } else {
        change(key, rawFromJson(field, bound));
      }
    }
    if (!on) change(key, undefined);
  };

  // Why Run is not possible, in words.
  const level = project?.level;
  const blockers: string[] = [];
  if (!projectId) blockers.push(props.projectsLoading ? 'Loading your projects…' : 'Choose a project to run in: you need CONTRIBUTE access to one.');
  else if (project && !levelAtLeast(level, 'CONTRIBUTE'))
    blockers.push(`You have ${level} access to ${project.name}. Running a tool needs CONTRIBUTE or ADMINISTER access to the project.`);
  if (project && !props.toolAllowed) blockers.push(notAllowedMessage(project.name, project.allowedExecutables ?? []));

  const { draftRef } = props;
  useEffect(() => {
    if (draftRef) draftRef.current = { runInput: buildRunInput(liveFields, values).input, name, folder, tags };
  });

  const costParsed = parseCostLimit(costLimit);
  const folderError = folder.startsWith('/') ? undefined : 'A folder path starts with "/"';
  const tagList = cleanTags(tags);

  const run = useMutation({
    mutationFn: async () => {
      const built = buildRunInput(liveFields, values);
      const systemRequirements: Record<string, { instanceType: string }> = {};
      for (const [index, entry] of entries.entries()) {
        const chosen = chosenTypes[index];
        if (chosen && types[entry.key] && types[entry.key] !== entry.defaultType) systemRequirements[entry.key] = { instanceType: chosen };
      }
      const common = {
        input: built.input,
        project: projectId ?? '',
        folder,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(tagList.length ? { tags: tagList } : {}),
        priority,
      };
      if (tool.class === 'workflow') {
        const stageSystemRequirements = Object.fromEntries(Object.entries(systemRequirements).map(([stage, requirement]) => [stage, { '*': requirement }]));
        return api().call('workflow-xxxx/run', tool.id, {
          ...common,
          ...(Object.keys(stageSystemRequirements).length ? { stageSystemRequirements } : {}),
        });
      }
      const body = {
        ...common,
        ...(Object.keys(systemRequirements).length ? { systemRequirements } : {}),
        ...(costParsed.ok && costParsed.value !== undefined ? { costLimit: costParsed.value } : {}),
      };
      return tool.class === 'applet' ? api().call('applet-xxxx/run', tool.id, body) : api().call('app-xxxx/run', tool.id, body);
    },
    onSuccess: (result) => navigate(executionPath(projectId ?? '', result.id)),
    onError: (error) => {
      if (isApiError(error) && error.type === 'InvalidInput') {
        const key = errorField(fields, error.details, error.message);
        if (key) {
          setServerErrors((current) => ({ ...current, [key]: error.message }));
          const section = allSections.find((candidate) => candidate.fields.some((field) => field.key === key));
          if (section?.group) setOpenGroups((current) => [...new Set([...current, sectionKey(section)])]);
          setGeneralError(undefined);
          return;
        }
      }
      setGeneralError(describeError(error));
    },
  });

  const submit = () => {
    setSubmitted(true);
    setGeneralError(undefined);
    const built = buildRunInput(liveFields, values);
    const localErrors = { ...built.errors, ...checkErrors };
    const optionErrors = [folderError, costParsed.ok ? undefined : costParsed.error].filter(Boolean);
    if (Object.keys(localErrors).length || optionErrors.length) {
      const toOpen = allSections.filter((section) => section.group && section.fields.some((field) => localErrors[field.key])).map(sectionKey);
      setOpenGroups((current) => [...new Set([...current, ...toOpen])]);
      const count = Object.keys(localErrors).length + optionErrors.length;
      setGeneralError(`${count} ${count === 1 ? 'field needs' : 'fields need'} attention before the run can start.`);
      // Bring the first field in error into view (after its group has opened).
      const first = fields.find((field) => localErrors[field.key]);
      if (first)
        window.setTimeout(
          () => document.querySelector(`[data-field="${CSS.escape(first.key)}"]`)?.scrollIntoView({ block: 'center', behavior: 'smooth' }),
          250,
        );
      return;
    }
    run.mutate();
  };

  const statusOf = (field: FieldSpec) =>
    fieldStatus(field, values[field.key], {
      touched: touched.has(field.key),
      submitted,
      checking: checking.has(field.key),
      checkError: checkErrors[field.key],
      serverError: serverErrors[field.key],
    });

  const renderField = (key: string) => {
    const field = liveFields.find((candidate) => candidate.key === key);
    if (!field) return null;
    const status = statusOf(field);
    return (
      <div key={key} data-field={key} data-validation={status.state}>
        <InputField
          field={field}
          raw={values[key]}
          status={status}
          dependent={dependentState(field, values, liveFields, checking)}
          overriding={overriding.has(key)}
          onOverride={(on) => override(key, on)}
          onChange={(next) => change(key, next)}
          onTouch={() => touch(key)}
          objectInfos={infos}
          stageNames={stageNames}
          project={projectId}
          disabled={run.isPending}
        />
      </div>
    );
  };

  // Sections grouped by stage (one card each; apps and applets have one card).
  const stageIds = [...new Set(allSections.map((section) => section.stage))];
  const stageCards = stageIds.map((stageId) => {
    const ofStage = allSections.filter((section) => section.stage === stageId);
    const stage = tool.stages.find((candidate) => candidate.id === stageId);
    const main = ofStage.filter((section) => !section.group);
    const groups = ofStage.filter((section) => section.group);
    return (
      <Paper key={stageId ?? 'inputs'} withBorder p="md" component="section" aria-label={stage ? `Stage ${stage.name ?? stage.id}` : 'Inputs'}>
        <Group justify="space-between" mb="sm" wrap="nowrap">
          <div>
            <Title order={2} size="h4">
              {stage ? (stage.name ?? stage.id) : 'Inputs'}
            </Title>
            {stage && (
              <Text size="xs" c="dimmed">
                {stage.id} · {stage.executableTitle ?? stage.executable}
                {stage.folder ? ` · outputs to ${stage.folder}` : ''}
              </Text>
            )}
          </div>
          {ofStage.some((section) => sectionNeedsAttention(section, values, { ...serverErrors, ...checkErrors })) && (
            <Badge color="yellow" variant="light">
              needs input
            </Badge>
          )}
        </Group>
        <Stack gap="md">{main.flatMap((section) => section.fields.map((field) => renderField(field.key)))}</Stack>
        {groups.length > 0 && (
          <Accordion multiple value={openGroups} onChange={setOpenGroups} variant="contained" mt="md" chevronPosition="left">
            {groups.map((section) => (
              <Accordion.Item key={sectionKey(section)} value={sectionKey(section)}>
                <Accordion.Control>
                  <Group gap="xs">
                    <Text fw={500} size="sm">
                      {section.group}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {section.fields.length} {section.fields.length === 1 ? 'input' : 'inputs'}
                    </Text>
                    {section.fields.some((field) => statusOf(liveFields.find((live) => live.key === field.key) ?? field).state === 'ERROR') && (
                      <Badge color="red" size="xs">
                        error
                      </Badge>
                    )}
                  </Group>
                </Accordion.Control>
                <Accordion.Panel>
                  <Stack gap="md">{section.fields.map((field) => renderField(field.key))}</Stack>
                </Accordion.Panel>
              </Accordion.Item>
            ))}
          </Accordion>
        )}
      </Paper>
    );
  });

  const projectOptions = [
    ...props.runnableProjects.map((row) => ({ value: row.id, label: row.name })),
    ...(projectId && project && !props.runnableProjects.some((row) => row.id === projectId)
      ? [{ value: projectId, label: `${project.name} (${project.level})` }]
      : []),
  ];
  const typeOptions = (current: string) => [
    ...catalogue.map((type) => ({ value: type.name, label: `${type.name} · ${formatPrice(type.pricePerHour)}/h` })),
    ...(current && !catalogue.some((type) => type.name === current) ? [{ value: current, label: `${current} (not offered in this region)` }] : []),
  ];

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack gap="md">
          {fromPrefill && prefill && (
            <Alert variant="light" color="blue" title={prefill.source === VERSION_SWITCH_SOURCE ? 'Inputs kept' : 'Inputs from an earlier run'}>
              {prefill.source === VERSION_SWITCH_SOURCE
                ? 'The inputs and settings you gave for the other version are kept.'
                : `The form starts from the inputs of ${prefill.source === 'state' ? 'the execution you came from' : prefill.source}.`}
              {fromPrefill.unknown.length > 0 && ` Not used (the tool has no such input): ${fromPrefill.unknown.join(', ')}.`}
            </Alert>
          )}
          {fields.length === 0 ? (
            <Paper withBorder p="md">
              <Text size="sm" c="dimmed">
                {tool.inputSpec === null && tool.class === 'workflow'
                  ? 'The inputs of this workflow cannot be shown: one of its stages uses an executable you cannot see.'
                  : 'This tool takes no inputs.'}
              </Text>
            </Paper>
          ) : (
            stageCards
          )}
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Paper withBorder p="md" component="section" aria-label="Run settings" style={{ position: 'sticky', top: 12 }}>
          <Stack gap="sm">
            <Title order={2} size="h4">
              Run settings
            </Title>
            <Select
              label="Project"
              description={
                props.routeProject
                  ? 'The project of this page: the run and its outputs go here.'
                  : 'The run and its outputs go here; you need CONTRIBUTE access.'
              }
              data={projectOptions}
              value={projectId ?? null}
              onChange={(value) => value && props.onProjectChange(value)}
              searchable
              allowDeselect={false}
              placeholder={props.projectsLoading ? 'Loading projects…' : 'No project you can run in'}
              disabled={!!props.routeProject || run.isPending}
              error={serverErrors.project}
            />
            <TextInput
              label="Output folder"
              value={folder}
              onChange={(event) => setFolder(event.currentTarget.value)}
              error={(submitted && folderError) || serverErrors.folder}
            />
            <TextInput label="Execution name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={serverErrors.name} />
            <TagsInput label="Tags" value={tags} onChange={setTags} placeholder="Add a tag and press Enter" clearable error={serverErrors.tags} />
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Priority
              </Text>
              <SegmentedControl
                data={PRIORITIES.map((value) => ({ value, label: value[0]?.toUpperCase() + value.slice(1) }))}
                value={priority}
                onChange={(value) => setPriority(value as Priority)}
                aria-label="Priority"
              />
            </Stack>
            <Stack gap={6}>
              <Text size="sm" fw={500}>
                Instance type {tool.class === 'workflow' ? 'per stage' : 'per entry point'}
              </Text>
              {instanceTypes.isError && (
                <Text size="xs" c="red">
                  {describeError(instanceTypes.error)}
                </Text>
              )}
              {entries.map((entry, index) => (
                <Select
                  key={entry.key}
                  label={entry.label}
                  size="xs"
                  data={typeOptions(chosenTypes[index] ?? '')}
                  value={chosenTypes[index] || null}
                  onChange={(value) => value && setTypes((current) => ({ ...current, [entry.key]: value }))}
                  allowDeselect={false}
                  searchable
                  comboboxProps={{ width: 400, position: 'bottom-end' }}
                  renderOption={({ option }) => {
                    const type = catalogue.find((candidate) => candidate.name === option.value);
                    return <Text size="xs">{type ? describeInstanceType(type) : option.label}</Text>;
                  }}
                  placeholder={instanceTypes.isPending ? 'Loading instance types…' : undefined}
                  error={
                    serverErrors.systemRequirements || serverErrors.stageSystemRequirements
                      ? index === 0
                        ? (serverErrors.systemRequirements ?? serverErrors.stageSystemRequirements)
                        : undefined
                      : undefined
                  }
                  data-testid={`instance-type-${entry.key}`}
                />
              ))}
            </Stack>
            <Group gap="sm" align="flex-end" wrap="nowrap">
              <NumberInput label="Expected run time (hours)" value={hours} onChange={setHours} min={0.1} step={0.5} decimalScale={2} w={170} />
              <Stack gap={0} data-testid="cost-estimate">
                <Text size="xs" c="dimmed">
                  Estimated cost
                </Text>
                <Text fw={600}>{formatPrice(estimate.total)}</Text>
                <Text size="xs" c="dimmed">
                  {formatPrice(estimate.perHour)}/h{tool.class === 'workflow' ? ' if each stage runs that long' : ''}
                </Text>
              </Stack>
            </Group>
            {estimate.unknown.length > 0 && (
              <Text size="xs" c="orange">
                No price known for {estimate.unknown.join(', ')}.
              </Text>
            )}
            <TextInput
              label="Cost limit (USD)"
              description={
                tool.class === 'workflow' ? 'Not available for workflow runs yet: set it on single tools.' : 'The run is stopped when it would cost more.'
              }
              value={costLimit}
              onChange={(event) => setCostLimit(event.currentTarget.value)}
              placeholder="No limit"
              disabled={tool.class === 'workflow'}
              error={(!costParsed.ok && (submitted || costLimit !== '') ? costParsed.error : undefined) ?? serverErrors.costLimit}
              inputMode="decimal"
            />
            <RunBar state={state} blockers={blockers} checking={checking.size > 0} running={run.isPending} onRun={submit} error={generalError} />
          </Stack>
        </Paper>
      </Grid.Col>
    </Grid>
  );
}

const STATE_TEXT: Record<string, { label: string; color: string }> = {
  WAIT_USER_INPUT: { label: 'Inputs needed', color: 'yellow' },
  WAIT_API: { label: 'Checking…', color: 'blue' },
  READY: { label: 'Ready to run', color: 'green' },
};

function RunBar({
  state,
  blockers,
  checking,
  running,
  onRun,
  error,
}: {
  state: string;
  blockers: string[];
  /** Picked inputs are being checked with the API: a run now could start with an unreadable input. */
  checking: boolean;
  running: boolean;
  onRun: () => void;
  error?: string;
}): ReactNode {
  // The form may be complete while the run is impossible: the badge does not claim otherwise.
  const text = blockers.length > 0 ? { label: 'Cannot run', color: 'gray' } : (STATE_TEXT[state] ?? { label: state, color: 'gray' });
  return (
    <Stack gap={6} mt="xs">
      {error && (
        <Alert color="red" variant="light" role="alert" p="xs">
          <Text size="sm">{error}</Text>
        </Alert>
      )}
      {blockers.map((blocker) => (
        <Text key={blocker} size="sm" c="red" data-testid="run-blocker">
          {blocker}
        </Text>
      ))}
      <Group justify="space-between">
        <Badge color={text.color} variant="light" data-state={state} data-testid="form-state">
          {text.label}
        </Badge>
        <Button
          onClick={onRun}
          loading={running}
          disabled={blockers.length > 0 || checking}
          size="md"
          title={blockers[0] ?? (checking ? 'Checking the selected inputs…' : undefined)}
        >
          Run
        </Button>
      </Group>
    </Stack>
  );
}
