import { describe, expect, it } from 'vitest';
import { DROPDOWN_BOTTOM_OFFSET, DROPDOWN_Z_INDEX, isToggleKey, resolveAlign, toggleDropdown } from './dropdown';

describe('dropdown menu (SPEC §2, §4)', () => {
  it('uses z-index 9002 and a 36 px bottom offset', () => {
    expect(DROPDOWN_Z_INDEX).toBe(9002);
    expect(DROPDOWN_BOTTOM_OFFSET).toBe(36);
  });

  it.each([
    ['left', 900, 's', 'left'],
    ['right', 0, 's', 'right'],
    ['auto', 100, 'm', 'left'],
    ['auto', 900, 'm', 'right'],
    ['auto', 840, 'xs', 'left'],
  ] as const)('align %s with trigger at %d (size %s) → %s', (align, left, size, expected) => {
    expect(resolveAlign(align, { left, right: left + 40 }, 1000, size)).toBe(expected);
  });

  it('toggles unless disabled', () => {
    expect(toggleDropdown(false, false)).toBe(true);
    expect(toggleDropdown(true, false)).toBe(false);
    expect(toggleDropdown(false, true)).toBe(false);
    expect(toggleDropdown(true, true)).toBe(false);
  });

  it.each([
    ['Enter', true],
    [' ', true],
    ['Spacebar', true],
    ['a', false],
    ['Escape', false],
  ])('key %j toggles: %s', (key, expected) => {
    expect(isToggleKey(key)).toBe(expected);
  });
});
