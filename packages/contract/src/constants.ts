/** Business constants and limits of SPEC §9, shared by server, web and CLI. */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** setTimeout clamps anything larger than this. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

export const SECURITY_LEVELS = ['high', 'normal', 'low'] as const;
export type SecurityLevel = (typeof SECURITY_LEVELS)[number];
export const DEFAULT_SECURITY_LEVEL: SecurityLevel = 'normal';
export const SESSION_TIMEOUT_MS: Record<SecurityLevel, number> = {
  high: 15 * MINUTE_MS,
  normal: 60 * MINUTE_MS,
  low: 360 * MINUTE_MS,
};
export const SESSION_GRACE_PERIOD_MS = 2 * MINUTE_MS;
export const HEARTBEAT_INTERVAL_MS = 120_000;
export const ACTIVITY_DEBOUNCE_MS = 1_000;

export const ALERT_DELAY_MS = 5_000;
export const DEFAULT_STALE_TIME_MS = 300_000;
export const EXECUTIONS_LIST_REFRESH_MS = 15_000;
export const EXECUTION_TREE_REFRESH_MS = 5_000;
export const NOTIFICATIONS_LIMIT = 25;
export const NOTIFICATIONS_POLL_MS = 30_000;
export const TABLE_PAGE_SIZE = 50;
export const PROJECT_LIST_PAGE_SIZE = 20;

export const DOWNLOAD_URL_DURATION_S = 86_400;
export const ONE_TIME_URL_DURATION_S = 90;
export const FILE_PREVIEW_CHUNK_BYTES = 5_120;
export const FILE_PREVIEW_MAX_BYTES = 102_400;

const MiB = 1024 * 1024;
export const UPLOAD_LIMITS = {
  minimumPartSize: 5 * MiB,
  maximumPartSize: 5 * 1024 * MiB,
  maximumFileSize: 5 * 1024 * 1024 * MiB,
  maximumNumParts: 10_000,
  defaultPartSize: 10 * MiB,
  emptyLastPartAllowed: true,
} as const;

/** Open files untouched this long are abandoned and their parts reclaimed. */
export const ABANDON_OPEN_FILES_AFTER_MS = DAY_MS;
/** Nonces are remembered this long so that retried creations return the first answer. */
export const NONCE_TTL_MS = HOUR_MS;

export const FIND_LIMIT_MAX = 1000;
export const FOLDER_NAME_MAX_LENGTH = 1000;
export const DEFAULT_CURRENCY = { code: 'USD', symbol: '$', symbolPosition: 'left', decimalSymbol: '.', groupingSymbol: ',' };

export const REGIONS = [
  'aws:us-east-1',
  'aws:eu-central-1',
  'aws:eu-west-2',
  'aws:eu-west-2-g',
  'aws:ap-southeast-2',
  'aws:me-south-1',
  'azure:uksouth-ofh',
  'azure:westus',
] as const;
export const DEFAULT_REGION = 'aws:us-east-1';
export const DEFAULT_INSTANCE_TYPE_BY_REGION: Record<string, string> = {
  'aws:us-east-1': 'mem2_hdd2_x2',
  'aws:eu-central-1': 'mem2_ssd1_x2',
  'aws:ap-southeast-2': 'mem2_ssd1_x2',
  'azure:westus': 'mem2_ssd1_x1',
};

/** Feature flags of the runtime configuration: all off unless configured. */
export const FEATURE_FLAGS = [
  'rstudioEnabled',
  'enableCohortCombine',
  'enableExternalWorkflowImportModal',
  'enableSpendLimitAccountingPhase2',
  'enableTREManagement',
  'enablePanxOmicsDataDiscoverySearch',
] as const;
export type FeatureFlag = (typeof FEATURE_FLAGS)[number];

export const EMPTY_VALUE = '--';
