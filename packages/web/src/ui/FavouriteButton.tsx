import { ActionIcon, type ActionIconProps, Tooltip } from '@mantine/core';

/** The favourite star (drawn, not a font glyph: it looks the same on every machine). */
export function StarIcon({ filled }: { filled: boolean }) {
  return (
    <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        d="M12 3.2l2.7 5.6 6.1.8-4.5 4.2 1.1 6.1L12 17 6.6 19.9l1.1-6.1L3.2 9.6l6.1-.8z"
        fill={filled ? 'currentColor' : 'none'}
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * The star that adds a project or a tool to the user's favourites or removes it: a toggle button
 * (`aria-pressed`) named after what it stars ("Add QC report to favourites"), with a tooltip.
 */
export function FavouriteButton({
  name,
  starred,
  disabled,
  onToggle,
  size,
  variant = 'subtle',
}: {
  /** What is starred, as the user knows it (a project's or tool's name). */
  name: string;
  starred: boolean;
  disabled?: boolean;
  onToggle: () => void;
  size?: ActionIconProps['size'];
  variant?: 'subtle' | 'default';
}) {
  return (
    <Tooltip label={starred ? 'Remove from favourites' : 'Add to favourites'} withArrow withinPortal>
      <ActionIcon
        size={size}
        variant={variant}
        color={starred ? 'yellow' : 'gray'}
        c={variant === 'default' && starred ? 'yellow.6' : undefined}
        aria-label={`${starred ? 'Remove' : 'Add'} ${name} ${starred ? 'from' : 'to'} favourites`}
        aria-pressed={starred}
        disabled={disabled}
        onClick={onToggle}
      >
        <StarIcon filled={starred} />
      </ActionIcon>
    </Tooltip>
  );
}
