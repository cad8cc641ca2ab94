/** The business constants of SPEC §9 the web app uses, from the shared contract (one source of truth). */
export {
  ACTIVITY_DEBOUNCE_MS,
  DEFAULT_SECURITY_LEVEL,
  DEFAULT_STALE_TIME_MS,
  DOWNLOAD_URL_DURATION_S,
  EMPTY_VALUE,
  FEATURE_FLAGS,
  HEARTBEAT_INTERVAL_MS,
  MAX_TIMER_DELAY_MS,
  NOTIFICATIONS_LIMIT,
  ONE_TIME_URL_DURATION_S,
  PROJECT_LIST_PAGE_SIZE,
  SECURITY_LEVELS,
  SESSION_GRACE_PERIOD_MS,
  SESSION_TIMEOUT_MS,
  TABLE_PAGE_SIZE,
} from '@panx/contract';
export type { FeatureFlag, SecurityLevel } from '@panx/contract';

/** Layout of SPEC §2, in CSS pixels. */
export const LAYOUT = {
  headerHeight: 45,
  headerBorder: 3,
  footerHeight: 56,
  narrowBreakpoint: 768,
  dropdownZIndex: 9002,
  dropdownBottomOffset: 36,
} as const;
