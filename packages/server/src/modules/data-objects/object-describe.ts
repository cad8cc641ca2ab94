import type { DescribeOptions } from '@panx/contract';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { parseJson } from '../../lib/json.js';
import type { ObjectInContainer, PartRow } from './objects.repository.js';

const COMMON_DEFAULTS = [
  'id',
  'class',
  'project',
  'folder',
  'name',
  'state',
  'hidden',
  'types',
  'tags',
  'links',
  'sponsored',
  'createdBy',
  'created',
  'modified',
];
const FILE_DEFAULTS = [...COMMON_DEFAULTS, 'media', 'size', 'archivalState'];
/** Applets add their dxapp.json (reference §4.3); runSpec.code only comes with `applet-xxxx/get`. */
const APPLET_DEFAULTS = [
  ...COMMON_DEFAULTS,
  'title',
  'summary',
  'description',
  'developerNotes',
  'dxapi',
  'inputSpec',
  'outputSpec',
  'runSpec',
  'access',
  'ignoreReuse',
  'httpsApp',
];
const DEFAULTS_BY_CLASS: Record<string, string[]> = { file: FILE_DEFAULTS, applet: APPLET_DEFAULTS };

export function objectFieldSelector(cls: string, options: DescribeOptions | boolean | undefined): (field: string) => boolean {
  return fieldSelector(options, DEFAULTS_BY_CLASS[cls] ?? COMMON_DEFAULTS);
}

/** Every `$dnanexus_link` target inside a details document (DNAnexus reports them as `links`). */
export function linksIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) linksIn(item, found);
  else if (value && typeof value === 'object') {
    const link = (value as Record<string, unknown>).$dnanexus_link;
    if (typeof link === 'string') found.add(link);
    else if (link && typeof link === 'object' && typeof (link as { id?: unknown }).id === 'string') found.add((link as { id: string }).id);
    else for (const item of Object.values(value)) linksIn(item, found);
  }
  return found;
}

export function describeObject(want: (field: string) => boolean, row: ObjectInContainer, extras: { parts?: PartRow[] } = {}): Record<string, unknown> {
  const isFile = row.class === 'file';
  const details = () => parseJson<unknown>(row.details, {});
  const fields: Record<string, () => unknown> = {
    id: () => row.objectId,
    class: () => row.class,
    project: () => row.projectId,
    folder: () => row.folder,
    name: () => row.name,
    state: () => row.state,
    hidden: () => row.hidden === 1,
    types: () => parseJson<string[]>(row.types, []),
    tags: () => parseJson<string[]>(row.tags, []),
    links: () => [...linksIn(details())],
    sponsored: () => false,
    createdBy: () => parseJson(row.createdBy, {}),
    created: () => row.created,
    modified: () => row.modified,
    properties: () => parseJson<Record<string, string>>(row.properties, {}),
    details,
  };
  if (isFile) {
    Object.assign(fields, {
      // dxpy crashes on a null media type: always a string.
      media: () => row.media ?? '',
      size: () => (row.state === 'closed' ? (row.size ?? 0) : sizeOfParts(extras.parts)),
      archivalState: () => 'live',
      parts: () => partsMap(extras.parts ?? []),
      drive: () => null,
      md5: () => null,
      checksumType: () => null,
    });
  } else {
    Object.assign(fields, classFields(row));
  }
  return pickFields(want, fields);
}

/** Class-specific describe fields kept in the object's content column (an applet's spec, without its code). */
function classFields(row: ObjectInContainer): Record<string, () => unknown> {
  const content = parseJson<Record<string, unknown>>(row.content, {});
  if (row.class === 'applet' && content.runSpec && typeof content.runSpec === 'object') {
    const { code: _code, ...runSpec } = content.runSpec as Record<string, unknown>;
    content.runSpec = runSpec;
  }
  return Object.fromEntries(Object.entries(content).map(([key, value]) => [key, () => value]));
}

function sizeOfParts(parts: PartRow[] | undefined): number {
  return (parts ?? []).reduce((total, part) => total + part.size, 0);
}

function partsMap(parts: PartRow[]): Record<string, { state: 'complete'; size: number; md5: string }> {
  return Object.fromEntries(parts.map((part) => [String(part.partIndex), { state: 'complete' as const, size: part.size, md5: part.md5 }]));
}
