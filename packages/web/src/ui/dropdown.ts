import { LAYOUT } from '../lib/constants';

/** The dropdown menu of SPEC §2: align left, right or auto; sizes xs, s, m. */
export type DropdownAlign = 'left' | 'right' | 'auto';
export type DropdownSize = 'xs' | 's' | 'm';

export const DROPDOWN_WIDTH: Record<DropdownSize, number> = { xs: 120, s: 180, m: 260 };
export const DROPDOWN_Z_INDEX = LAYOUT.dropdownZIndex;
export const DROPDOWN_BOTTOM_OFFSET = LAYOUT.dropdownBottomOffset;

/** `auto` opens to the right of the trigger's left edge when it fits in the viewport, else to the left of its right edge. */
export function resolveAlign(align: DropdownAlign, trigger: { left: number; right: number }, viewportWidth: number, size: DropdownSize): 'left' | 'right' {
  if (align !== 'auto') return align;
  return trigger.left + DROPDOWN_WIDTH[size] <= viewportWidth ? 'left' : 'right';
}

/** SPEC §4: the dropdown toggles open/closed unless disabled (a disabled one is always closed). */
export function toggleDropdown(open: boolean, disabled: boolean): boolean {
  return disabled ? false : !open;
}

/** Keys that toggle the dropdown when `toggleOnEnterOrSpace` is set. */
export function isToggleKey(key: string): boolean {
  return key === 'Enter' || key === ' ' || key === 'Spacebar';
}
