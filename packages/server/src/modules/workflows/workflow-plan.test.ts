import type { IoSpecItem } from '@panx/contract';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors.js';
import { computedInputSpec, findCycle, stageFolder, type WorkflowContent, type WorkflowStage } from './workflow-model.js';
import { planStages, type StageSpecs } from './workflow-plan.js';

const stage = (id: string, input: Record<string, unknown> = {}, extra: Partial<WorkflowStage> = {}): WorkflowStage => ({
  id,
  executable: `applet-${id}`,
  name: null,
  folder: null,
  input,
  executionPolicy: {},
  systemRequirements: {},
  ...extra,
});
const content = (stages: WorkflowStage[], extra: Partial<WorkflowContent> = {}): WorkflowContent => ({
  title: null,
  summary: '',
  description: '',
  outputFolder: null,
  stages,
  inputs: null,
  outputs: null,
  ignoreReuse: false,
  editVersion: 0,
  ...extra,
});
const out = (stage: string, outputField: string) => ({ $dnanexus_link: { stage, outputField } });
const inp = (stage: string, inputField: string) => ({ $dnanexus_link: { stage, inputField } });
const spec = (inputs: IoSpecItem[], outputs: IoSpecItem[] = []): StageSpecs => ({ inputSpec: inputs, outputSpec: outputs });
const jobIds = (...ids: string[]) => new Map(ids.map((id) => [id, `job-of-${id}`]));

const specs = new Map<string, StageSpecs>([
  [
    'a',
    spec(
      [
        { name: 'reads', class: 'file' },
        { name: 'ref', class: 'file', optional: true },
      ],
      [{ name: 'bam', class: 'file' }],
    ),
  ],
  [
    'b',
    spec(
      [
        { name: 'bam', class: 'file' },
        { name: 'ref', class: 'file' },
        { name: 'depth', class: 'int', default: 5 },
      ],
      [{ name: 'vcf', class: 'file' }],
    ),
  ],
]);
const file = (id: string) => ({ $dnanexus_link: `file-${id}` });

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return `${(error as ApiError).type}: ${(error as ApiError).message}`;
  }
  throw new Error('expected a refusal');
}

describe('planStages', () => {
  const germline = content([stage('a'), stage('b', { bam: out('a', 'bam'), ref: inp('a', 'ref') })]);

  it('wires output links as job-based references and input links as the linked value; given values override bound ones', () => {
    const plan = planStages({ content: germline, specs, input: { 'a.reads': file('R'), 'a.ref': file('F'), 'b.depth': 9 }, jobIds: jobIds('a', 'b') });
    expect(plan.stages.map((s) => [s.stage.id, s.jobId, s.input, s.after])).toEqual([
      ['a', 'job-of-a', { reads: file('R'), ref: file('F') }, []],
      ['b', 'job-of-b', { bam: { $dnanexus_link: { job: 'job-of-a', field: 'bam' } }, ref: file('F'), depth: 9 }, ['a']],
    ]);
    expect(plan.originalInput).toEqual({
      'a.reads': file('R'),
      'a.ref': file('F'),
      'b.bam': { $dnanexus_link: { job: 'job-of-a', field: 'bam' } },
      'b.ref': file('F'),
      'b.depth': 9,
    });
    // A given value replaces a link; null unbinds.
    const given = planStages({ content: germline, specs, input: { 'a.reads': file('R'), 'b.ref': file('G') }, jobIds: jobIds('a', 'b') });
    expect(given.stages[1]?.input.ref).toEqual(file('G'));
  });

  it.each([
    ['an unknown stage', { 'c.reads': 1 }, 'InvalidInput: input "c.reads": the workflow has no stage c'],
    ['an unknown field', { 'a.colour': 1 }, 'InvalidInput: input "a.colour": a has no input "colour"'],
    ['a key without a stage', { reads: 1 }, 'names no stage input'],
    ['a missing required input', {}, 'InvalidInput: input "a.reads" (class file) is required but was not given'],
    ['an input link to an unset field', { 'a.reads': file('R') }, 'input "b.ref" (class file) is required'],
  ])('refuses %s, naming <stage>.<field>', (_name, input, message) => {
    expect(refusal(() => planStages({ content: germline, specs, input, jobIds: jobIds('a', 'b') }))).toContain(message);
  });

  it('refuses stages that wait for each other, and inputs linked to themselves', () => {
    const loop = content([stage('a', { reads: out('b', 'vcf') }), stage('b', { bam: out('a', 'bam'), ref: file('F') })]);
    expect(refusal(() => planStages({ content: loop, specs, input: {}, jobIds: jobIds('a', 'b') }))).toMatch(/cycle: (a → b → a|b → a → b)/);
    const self = content([stage('a', { reads: inp('a', 'ref'), ref: inp('a', 'reads') })]);
    expect(refusal(() => planStages({ content: self, specs, input: {}, jobIds: jobIds('a') }))).toContain('links to itself');
  });

  it('takes workflow-level inputs by name', () => {
    const locked = content([stage('a', { reads: { $dnanexus_link: { workflowInputField: 'sample' } } })], { inputs: [{ name: 'sample', class: 'file' }] });
    expect(planStages({ content: locked, specs, input: { sample: file('S') }, jobIds: jobIds('a') }).stages[0]?.input).toEqual({ reads: file('S') });
    expect(refusal(() => planStages({ content: locked, specs, input: {}, jobIds: jobIds('a') }))).toContain('input "sample" (class file) is required');
  });
});

describe('workflow model', () => {
  it('computes the input spec: <stage>.<field>, bound fields optional with their value as default', () => {
    const infos = new Map([
      ['a', { accessible: true, ...(specs.get('a') as StageSpecs) }],
      ['b', { accessible: true, ...(specs.get('b') as StageSpecs) }],
    ]);
    const computed = computedInputSpec(content([stage('a'), stage('b', { bam: out('a', 'bam') })]), infos);
    expect(computed?.map((item) => [item.name, item.optional ?? false, item.default])).toEqual([
      ['a.reads', false, undefined],
      ['a.ref', true, undefined],
      ['b.bam', true, out('a', 'bam')],
      ['b.ref', false, undefined],
      ['b.depth', false, 5],
    ]);
    expect(computedInputSpec(content([stage('a')]), new Map([['a', { accessible: false, inputSpec: null, outputSpec: null }]]))).toBeNull();
  });

  it('finds cycles and resolves stage folders', () => {
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
        ]),
      ),
    ).toBeUndefined();
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['a'])],
        ]),
      ),
    ).toEqual(['a', 'b', 'a']);
    expect([stageFolder('/out', null), stageFolder('/out', 'qc'), stageFolder('/', 'qc/'), stageFolder('/out', '/abs//x')]).toEqual([
      '/out',
      '/out/qc',
      '/qc',
      '/abs/x',
    ]);
  });
});
