import { Badge } from '@mantine/core';
import { executionStateColor, executionStateLabel, isActive } from './execution-model';

/** A job or analysis state, coloured (SPEC §4 states), with the raw state as data for tests and styling. */
export function StateBadge({ state, size = 'sm' }: { state: string; size?: 'xs' | 'sm' | 'md' | 'lg' }) {
  const color = executionStateColor(state);
  return (
    <Badge
      size={size}
      color={color}
      variant={isActive(state) ? 'light' : 'filled'}
      data-state={state}
      data-color={color}
      leftSection={isActive(state) && state !== 'idle' ? <span aria-hidden>●</span> : undefined}
      styles={{ root: { textTransform: 'none' } }}
    >
      {executionStateLabel(state)}
    </Badge>
  );
}

/** `user-alice` → `alice`. */
export function userHandle(id: string | undefined): string {
  if (!id) return '--';
  return id.startsWith('user-') ? id.slice(5) : id;
}
