import { DEFAULT_CURRENCY, DEFAULT_INSTANCE_TYPE_BY_REGION, type DescribeOptions, FILE_UPLOAD_PARAMETERS, type PermissionLevel } from '@panx/contract';
import { fieldSelector, pickFields } from '../../lib/describe-fields.js';
import { parseJson } from '../../lib/json.js';
import type { ProjectMemberRow, ProjectRow } from './projects.repository.js';

export const PROJECT_DEFAULT_FIELDS = [
  'id',
  'class',
  'name',
  'summary',
  'description',
  'created',
  'modified',
  'createdBy',
  'billTo',
  'level',
  'permissions',
  'region',
  'protected',
  'restricted',
  'downloadRestricted',
  'externalUploadRestricted',
  'containsPHI',
  'previewViewerRestricted',
  'displayDataProtectionNotice',
  'httpsAppIsolatedBrowsing',
  'jobOutboundInternet',
  'tags',
  'properties',
  'dataUsage',
  'sponsoredDataUsage',
  'remoteDataUsage',
  'archivedDataUsage',
  'storageCost',
  'sponsoredUntil',
  'version',
  'defaultInstanceType',
  'pendingTransfer',
  'currency',
  'fileUploadParameters',
  'monthlyComputeLimit',
  'monthlyEgressBytesLimit',
  'allowedExecutables',
  'egressBillTo',
  'provider',
  'policies',
  'defaultSymlink',
  'atSpendingLimit',
  'totalSponsoredEgressBytes',
  'consumedSponsoredEgressBytes',
] as const;

/** Project settings stored as one JSON column, so a new setting needs no migration. */
export interface ProjectSettings {
  protected?: boolean;
  restricted?: boolean;
  downloadRestricted?: boolean;
  externalUploadRestricted?: boolean;
  previewViewerRestricted?: boolean;
  displayDataProtectionNotice?: boolean;
  httpsAppIsolatedBrowsing?: boolean;
  jobOutboundInternet?: boolean;
  defaultInstanceType?: string;
  allowedExecutables?: string[] | null;
  monthlyComputeLimit?: number | null;
  monthlyEgressBytesLimit?: number | null;
  defaultSymlink?: unknown;
}

export function projectSettings(row: ProjectRow): ProjectSettings {
  return parseJson<ProjectSettings>(row.settings, {});
}

/** USD per GiB-month of stored data, for the `storageCost` estimate. */
export const STORAGE_PRICE_PER_GIB_MONTH = 0.023;

/** Values that cost a query each; the service fetches only those the selector wants. */
export interface ProjectDescribeInputs {
  row: ProjectRow;
  level: PermissionLevel;
  members?: ProjectMemberRow[];
  dataUsageBytes?: number;
  folders?: string[];
}

export function projectFieldSelector(options: DescribeOptions | boolean | undefined): (field: string) => boolean {
  return fieldSelector(options, PROJECT_DEFAULT_FIELDS);
}

export function describeProject(want: (field: string) => boolean, inputs: ProjectDescribeInputs): { id: string } & Record<string, unknown> {
  const { row } = inputs;
  const settings = projectSettings(row);
  const dataUsageGiB = () => (inputs.dataUsageBytes ?? 0) / 1024 ** 3;
  const described = pickFields(want, {
    id: () => row.id,
    class: () => row.class,
    name: () => row.name,
    summary: () => row.summary,
    description: () => row.description,
    created: () => row.created,
    modified: () => row.modified,
    createdBy: () => parseJson(row.createdBy, {}),
    billTo: () => row.billTo,
    level: () => inputs.level,
    permissions: () => Object.fromEntries((inputs.members ?? []).map((m) => [m.memberId, m.level])),
    region: () => row.region,
    protected: () => settings.protected ?? false,
    restricted: () => settings.restricted ?? false,
    downloadRestricted: () => settings.downloadRestricted ?? false,
    externalUploadRestricted: () => settings.externalUploadRestricted ?? false,
    containsPHI: () => row.containsPHI === 1,
    previewViewerRestricted: () => settings.previewViewerRestricted ?? false,
    displayDataProtectionNotice: () => settings.displayDataProtectionNotice ?? false,
    httpsAppIsolatedBrowsing: () => settings.httpsAppIsolatedBrowsing ?? false,
    jobOutboundInternet: () => settings.jobOutboundInternet ?? true,
    tags: () => parseJson<string[]>(row.tags, []),
    properties: () => parseJson<Record<string, string>>(row.properties, {}),
    dataUsage: () => round(dataUsageGiB()),
    sponsoredDataUsage: () => 0,
    remoteDataUsage: () => 0,
    archivedDataUsage: () => 0,
    storageCost: () => round(dataUsageGiB() * STORAGE_PRICE_PER_GIB_MONTH),
    sponsoredUntil: () => null,
    version: () => row.version,
    defaultInstanceType: () => settings.defaultInstanceType ?? DEFAULT_INSTANCE_TYPE_BY_REGION[row.region] ?? 'mem2_hdd2_x2',
    pendingTransfer: () => row.pendingTransfer,
    currency: () => DEFAULT_CURRENCY,
    fileUploadParameters: () => FILE_UPLOAD_PARAMETERS,
    monthlyComputeLimit: () => settings.monthlyComputeLimit ?? null,
    monthlyEgressBytesLimit: () => settings.monthlyEgressBytesLimit ?? null,
    allowedExecutables: () => settings.allowedExecutables ?? null,
    egressBillTo: () => row.billTo,
    provider: () => null,
    policies: () => ({}),
    defaultSymlink: () => settings.defaultSymlink ?? null,
    atSpendingLimit: () => false,
    totalSponsoredEgressBytes: () => 0,
    consumedSponsoredEgressBytes: () => 0,
    folders: () => inputs.folders ?? [],
  });
  return { ...described, id: row.id };
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
