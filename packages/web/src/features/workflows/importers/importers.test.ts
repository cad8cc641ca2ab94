import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectImporter, IMPORTERS, importerFor } from './index';
import { panxJsonImporter } from './panx-json';
import type { WorkflowImporter } from './types';

const GERMLINE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../../apps/workflows/germline_variants.json');

describe('workflow importers', () => {
  it('recognises the panx-json of apps/workflows and previews its stages', () => {
    const text = fs.readFileSync(GERMLINE, 'utf8');
    const detection = detectImporter('germline_variants.json', text);
    expect(detection.importer?.format).toBe('panx-json');
    const preview = panxJsonImporter.preview(text);
    expect(preview.name).toBe('germline_variants');
    expect(preview.stages.map((stage) => stage.executable)).toEqual([
      'app-fastp/1.0.0',
      'app-bwa_mem/1.0.0',
      'app-samtools_sort_index/1.0.0',
      'app-bcftools_call/1.0.0',
    ]);
    expect(preview.notes).toContain('4 stages use apps: those app versions must be installed here.');
    expect(panxJsonImporter.source(text)).toEqual(JSON.parse(text));
  });

  it('refuses files in no known language, naming the languages it knows', () => {
    expect(detectImporter('notes.txt', 'hello')).toEqual({
      importer: undefined,
      reason: '"notes.txt" is not a workflow in a known language (Panx workflow JSON (px export workflow))',
    });
    expect(detectImporter('x.json', '{"title": "no stages"}').importer).toBeUndefined();
    expect(() => panxJsonImporter.preview('{nope')).toThrow(/not JSON/);
    expect(() => panxJsonImporter.preview('[]')).toThrow(/not an object/);
    expect(() => panxJsonImporter.preview('{"name": "x", "stages": [{}]}')).toThrow('Stage 1 has no "executable"');
    expect(() => panxJsonImporter.preview('{"name": "", "stages": []}')).toThrow('The workflow JSON has no "name"');
    expect(panxJsonImporter.preview('{"name": "x", "stages": []}').notes).toEqual(['The workflow has no stages yet.']);
  });

  it('picks the most confident of several languages (a language is one more module)', () => {
    const wdl: WorkflowImporter = {
      format: 'wdl',
      label: 'WDL',
      extensions: ['.wdl'],
      detect: (name, text) => (name.endsWith('.wdl') || /^version 1\.\d/m.test(text) ? 0.9 : 0),
      preview: () => ({ name: 'w', stages: [], notes: [] }),
      source: (text) => text,
    };
    const registry = [...IMPORTERS, wdl];
    expect(detectImporter('main.wdl', 'version 1.0\nworkflow w {}', registry).importer?.format).toBe('wdl');
    expect(detectImporter('w.json', '{"name":"w","stages":[]}', registry).importer?.format).toBe('panx-json');
    expect(importerFor('wdl', registry)).toBe(wdl);
    expect(importerFor('cwl')).toBeUndefined();
  });
});
