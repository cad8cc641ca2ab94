import { useMediaQuery } from '@mantine/hooks';
import { LAYOUT } from '../lib/constants';

/** Narrow-screen layout (SPEC §2): below 768 px. */
export const NARROW_QUERY = `(max-width: ${LAYOUT.narrowBreakpoint - 0.02}px)`;

export function useNarrow(): boolean {
  return useMediaQuery(NARROW_QUERY) ?? false;
}
