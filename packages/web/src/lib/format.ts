import { EMPTY_VALUE } from './constants';

/** SPEC §9: an empty value shows `--`. Empty strings, null, undefined and NaN are empty; 0 and false are not. */
export function orEmpty(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return EMPTY_VALUE;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : EMPTY_VALUE;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return value.trim() === '' ? EMPTY_VALUE : value;
}

/** `MMM DD YYYY` (SPEC §9), e.g. `Nov 05 2026`, with the month abbreviated in the UI language. */
export function formatDate(timestamp: number | null | undefined, language = 'en'): string {
  if (timestamp === null || timestamp === undefined || !Number.isFinite(timestamp) || timestamp <= 0) return EMPTY_VALUE;
  const date = new Date(timestamp);
  const month = new Intl.DateTimeFormat(language, { month: 'short' }).format(date).replace(/\.$/, '');
  return `${month} ${String(date.getDate()).padStart(2, '0')} ${date.getFullYear()}`;
}

/** `MMM DD YYYY HH:mm`, for token and session times. */
export function formatDateTime(timestamp: number | null | undefined, language = 'en'): string {
  const day = formatDate(timestamp, language);
  if (day === EMPTY_VALUE || timestamp === null || timestamp === undefined) return day;
  const date = new Date(timestamp);
  return `${day} ${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
}

/** Countdown text: `1:59`, `0:05`. */
export function formatCountdown(seconds: number): string {
  const safe = Math.max(0, Math.floor(seconds));
  return `${Math.floor(safe / 60)}:${String(safe % 60).padStart(2, '0')}`;
}

/** `900000` → `15 minutes`, `21600000` → `6 hours`. */
export function formatDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes % 60 === 0 && minutes >= 60) {
    const hours = minutes / 60;
    return `${hours} hour${hours === 1 ? '' : 's'}`;
  }
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
