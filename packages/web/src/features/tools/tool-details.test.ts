import { describe, expect, it } from 'vitest';
import { executableLabel, executionStateColor, groupFields, toIoFields, toToolDetails, valueText } from './tool-details';

describe('tool details', () => {
  it('reads an app description, tolerating missing fields', () => {
    const details = toToolDetails({
      id: 'app-1',
      class: 'app',
      name: 'bwa_mem',
      version: '1.0.0',
      title: 'BWA-MEM',
      description: '# Usage',
      categories: ['Read Mapping', 3],
      createdBy: 'user-dev',
      inputSpec: [{ name: 'reads', class: 'array:file', label: 'Reads', patterns: ['*.fq.gz'], help: 'FASTQ' }, { nope: true }],
      outputSpec: 'broken',
    });
    expect(details).toMatchObject({
      id: 'app-1',
      class: 'app',
      title: 'BWA-MEM',
      version: '1.0.0',
      categories: ['Read Mapping'],
      createdBy: 'user-dev',
      outputs: [],
    });
    expect(details.inputs).toEqual([
      {
        name: 'reads',
        label: 'Reads',
        class: 'array:file',
        optional: false,
        defaultText: undefined,
        patterns: ['*.fq.gz'],
        choices: [],
        help: 'FASTQ',
        group: '',
      },
    ]);
    expect(toToolDetails({ id: 'workflow-9' })).toMatchObject({ class: 'workflow', name: 'workflow-9', title: 'workflow-9', stages: [] });
  });

  it('reads a workflow’s stages and a data object’s creator', () => {
    const details = toToolDetails({
      id: 'workflow-1',
      class: 'workflow',
      createdBy: { user: 'user-alice' },
      stages: [{ id: 'align', name: 'Align', executable: 'app-bwa_mem/1.0.0' }, { id: 'call', executable: 'applet-2' }, 'junk'],
    });
    expect(details.createdBy).toBe('user-alice');
    expect(details.stages).toEqual([
      { id: 'align', name: 'Align', executable: 'app-bwa_mem/1.0.0' },
      { id: 'call', name: 'call', executable: 'applet-2' },
    ]);
  });

  it('shows defaults and choices as text, links by id', () => {
    expect(valueText('x')).toBe('x');
    expect(valueText(3)).toBe('3');
    expect(valueText(false)).toBe('false');
    expect(valueText({ $dnanexus_link: 'file-1' })).toBe('file-1');
    expect(valueText({ $dnanexus_link: { project: 'project-1', id: 'file-1' } })).toBe('project-1:file-1');
    expect(valueText({ $dnanexus_link: { stage: 'stage-fastp', outputField: 'trimmed_reads' } })).toBe('stage-fastp → trimmed_reads');
    expect(valueText({ $dnanexus_link: { stage: 'stage-a', inputField: 'reads' } })).toBe('stage-a → input reads');
    const [field] = toIoFields([{ name: 'mode', class: 'string', default: 'fast', choices: ['fast', 'slow'], optional: true }]);
    expect(field).toMatchObject({ defaultText: 'fast', choices: ['fast', 'slow'], optional: true });
    const [noDefault] = toIoFields([{ name: 'n', class: 'int', default: 0 }]);
    expect(noDefault?.defaultText).toBe('0');
  });

  it('groups inputs with the ungrouped first, keeping their order', () => {
    const fields = toIoFields([
      { name: 'a', class: 'int', group: 'Advanced' },
      { name: 'b', class: 'int' },
      { name: 'c', class: 'int', group: 'Filtering' },
      { name: 'd', class: 'int' },
    ]);
    expect(groupFields(fields).map((g) => [g.group, g.fields.map((f) => f.name)])).toEqual([
      ['', ['b', 'd']],
      ['Advanced', ['a']],
      ['Filtering', ['c']],
    ]);
  });

  it('colours execution states', () => {
    expect(executionStateColor('done')).toBe('green');
    expect(executionStateColor('failed')).toBe('red');
    expect(executionStateColor('running')).toBe('blue');
    expect(executionStateColor('idle')).toBe('gray');
  });
});

describe('stage executables by name', () => {
  const tools = [
    {
      id: 'app-2',
      class: 'app' as const,
      name: 'bwa_mem',
      title: 'BWA-MEM',
      summary: '',
      categories: [],
      version: '1.1.0',
      versions: [
        { id: 'app-2', version: '1.1.0', aliases: ['default'], created: 2, published: true },
        { id: 'app-1', version: '1.0.0', aliases: [], created: 1, published: true },
      ],
      created: 1,
      modified: 1,
    },
    { id: 'applet-9', class: 'applet' as const, name: 'qc', title: 'QC', summary: '', categories: [], versions: [], created: 1, modified: 1 },
  ];
  it('names app versions by id or name/version, applets by id, and falls back to the reference', () => {
    expect(executableLabel(tools, 'app-1')).toBe('BWA-MEM 1.0.0');
    expect(executableLabel(tools, 'app-bwa_mem/1.1.0')).toBe('BWA-MEM 1.1.0');
    expect(executableLabel(tools, 'app-bwa_mem')).toBe('BWA-MEM');
    expect(executableLabel(tools, 'applet-9')).toBe('QC');
    expect(executableLabel(tools, 'applet-unknown')).toBe('applet-unknown');
    expect(executableLabel(undefined, 'app-1')).toBe('app-1');
  });
});
