import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workflowFormat } from './index.js';

const GERMLINE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../../apps/workflows/germline_variants.json');

describe('panx-json workflow format', () => {
  const format = workflowFormat('panx-json');

  it('reads apps/workflows/germline_variants.json and writes it back unchanged', () => {
    const text = fs.readFileSync(GERMLINE, 'utf8');
    const document = format.parse(text);
    expect(document.name).toBe('germline_variants');
    expect(document.stages.map((stage) => stage.executable)).toEqual([
      'app-fastp/1.0.0',
      'app-bwa_mem/1.0.0',
      'app-samtools_sort_index/1.0.0',
      'app-bcftools_call/1.0.0',
    ]);
    expect(format.serialize(document)).toEqual(JSON.parse(text));
    expect(format.parse(JSON.parse(text) as Record<string, unknown>)).toEqual(document);
  });

  it('refuses what is not a workflow, naming the field', () => {
    expect(() => format.parse('{not json')).toThrow(/not JSON/);
    expect(() => format.parse({ name: 'x', stages: [{ executable: 'bwa' }] })).toThrow(/"stages.0.executable"/);
    expect(() => format.parse({ name: 'x', stages: [], outputFolder: 'a/../b' })).toThrow(/outputFolder/);
    expect(() => workflowFormat('cwl')).toThrow(/unknown workflow format "cwl" \(known: panx-json\)/);
  });
});
