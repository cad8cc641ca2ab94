import { type CSSProperties, type KeyboardEvent, type MouseEvent, type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { Link } from 'react-router';
import classes from './DropdownMenu.module.css';
import {
  DROPDOWN_BOTTOM_OFFSET,
  DROPDOWN_WIDTH,
  DROPDOWN_Z_INDEX,
  type DropdownAlign,
  type DropdownSize,
  isToggleKey,
  resolveAlign,
  toggleDropdown,
} from './dropdown';

export interface DropdownMenuProps {
  /** Content of the trigger (an icon, a name…). */
  trigger: ReactNode;
  /** Accessible name of the trigger. */
  label: string;
  align?: DropdownAlign;
  size?: DropdownSize;
  /** Close when an item inside is clicked. */
  closeOnChildClick?: boolean;
  /** Enter and Space toggle the menu (off: only a click does). */
  toggleOnEnterOrSpace?: boolean;
  disabled?: boolean;
  className?: string;
  children: ReactNode;
}

/**
 * The dropdown menu of SPEC §2: left/right/auto alignment, sizes xs/s/m, optional close on child click,
 * optional Enter/Space toggle, flyout at z-index 9002 and 36 px below the trigger's top. Escape and a
 * click outside close it.
 */
export function DropdownMenu({
  trigger,
  label,
  align = 'auto',
  size = 's',
  closeOnChildClick = true,
  toggleOnEnterOrSpace = true,
  disabled = false,
  className,
  children,
}: DropdownMenuProps) {
  const [open, setOpen] = useState(false);
  const [side, setSide] = useState<'left' | 'right'>('left');
  const root = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const flyoutId = useId();

  const toggle = useCallback(() => {
    setOpen((current) => {
      const next = toggleDropdown(current, disabled);
      if (next && triggerRef.current) {
        const rect = triggerRef.current.getBoundingClientRect();
        setSide(resolveAlign(align, rect, window.innerWidth, size));
      }
      return next;
    });
  }, [align, disabled, size]);

  const close = useCallback((focusTrigger: boolean) => {
    setOpen(false);
    if (focusTrigger) triggerRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) close(false);
    };
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') close(true);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, close]);

  useEffect(() => {
    if (disabled) setOpen(false);
  }, [disabled]);

  const onTriggerKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    // A native button toggles on Enter and Space through its click; without the option those keys do nothing.
    if (!toggleOnEnterOrSpace && isToggleKey(event.key)) {
      event.preventDefault();
    } else if (event.key === 'ArrowDown' && open) {
      event.preventDefault();
      root.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    }
  };

  const onFlyoutClick = (event: MouseEvent<HTMLDivElement>) => {
    if (closeOnChildClick && (event.target as HTMLElement).closest('[role="menuitem"]')) close(false);
  };

  const onFlyoutKey = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const items = Array.from(root.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    const index = items.indexOf(document.activeElement as HTMLElement);
    const next = items[(index + (event.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length];
    next?.focus();
  };

  const flyoutStyle: CSSProperties = {
    top: DROPDOWN_BOTTOM_OFFSET,
    zIndex: DROPDOWN_Z_INDEX,
    width: DROPDOWN_WIDTH[size],
    ...(side === 'left' ? { left: 0 } : { right: 0 }),
  };

  return (
    <div ref={root} className={`${classes.root} ${className ?? ''}`}>
      <button
        ref={triggerRef}
        type="button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? flyoutId : undefined}
        disabled={disabled}
        className={classes.trigger}
        onClick={toggle}
        onKeyDown={onTriggerKey}
      >
        {trigger}
      </button>
      {open && (
        <div
          id={flyoutId}
          role="menu"
          aria-label={label}
          className={classes.flyout}
          style={flyoutStyle}
          data-size={size}
          onClick={onFlyoutClick}
          onKeyDown={onFlyoutKey}
        >
          {children}
        </div>
      )}
    </div>
  );
}

export function DropdownItem({ to, onClick, children, danger }: { to?: string; onClick?: () => void; children: ReactNode; danger?: boolean }) {
  if (to) {
    return (
      <Link role="menuitem" to={to} className={classes.item} data-danger={danger || undefined}>
        {children}
      </Link>
    );
  }
  return (
    <button type="button" role="menuitem" onClick={onClick} className={classes.item} data-danger={danger || undefined}>
      {children}
    </button>
  );
}

export function DropdownLabel({ children }: { children: ReactNode }) {
  return <div className={classes.label}>{children}</div>;
}

export function DropdownDivider() {
  return <hr className={classes.divider} />;
}
