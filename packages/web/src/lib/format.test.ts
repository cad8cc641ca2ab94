import { describe, expect, it } from 'vitest';
import { formatCountdown, formatDate, formatDuration, orEmpty } from './format';
import { resolveLanguage } from './i18n';

describe('orEmpty', () => {
  it.each<[Parameters<typeof orEmpty>[0], string]>([
    [undefined, '--'],
    [null, '--'],
    ['', '--'],
    ['   ', '--'],
    [Number.NaN, '--'],
    [0, '0'],
    [false, 'No'],
    ['x', 'x'],
  ])('%j → %s', (value, expected) => {
    expect(orEmpty(value)).toBe(expected);
  });
});

describe('formatDate', () => {
  it('formats as MMM DD YYYY', () => {
    expect(formatDate(new Date(2026, 10, 5, 12).getTime())).toBe('Nov 05 2026');
    expect(formatDate(new Date(2027, 0, 31, 12).getTime())).toBe('Jan 31 2027');
  });
  it.each([undefined, null, 0, Number.NaN])('shows -- for %j', (value) => {
    expect(formatDate(value)).toBe('--');
  });
});

describe('durations', () => {
  it.each([
    [120, '2:00'],
    [119, '1:59'],
    [5, '0:05'],
    [-3, '0:00'],
  ])('countdown %d → %s', (seconds, text) => {
    expect(formatCountdown(seconds)).toBe(text);
  });
  it.each([
    [900_000, '15 minutes'],
    [3_600_000, '1 hour'],
    [21_600_000, '6 hours'],
    [60_000, '1 minute'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('resolveLanguage', () => {
  it.each<[string[] | undefined, string]>([
    [['en-GB', 'fr'], 'en'],
    [['fr-FR', 'de'], 'en'],
    [['EN'], 'en'],
    [[], 'en'],
    [undefined, 'en'],
  ])('%j → %s', (preferred, expected) => {
    expect(resolveLanguage(preferred)).toBe(expected);
  });
  it('prefers the first supported browser language', () => {
    expect(resolveLanguage(['de-AT', 'fr-CA', 'en'], ['en', 'fr'])).toBe('fr');
  });
});
