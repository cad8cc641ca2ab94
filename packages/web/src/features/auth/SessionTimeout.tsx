import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { SecurityLevel } from '@panx/contract';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { sessionTimeoutFor } from '../../app/config';
import { runInBackground } from '../../app/error-reporting';
import { isAuthFailure } from '../../app/query-client';
import { useRuntime } from '../../app/runtime';
import { api } from '../../lib/api';
import { ACTIVITY_DEBOUNCE_MS, DEFAULT_SECURITY_LEVEL } from '../../lib/constants';
import { formatCountdown, formatDuration } from '../../lib/format';
import { useCurrentUser, useSignOut } from './hooks';
import { sessionStore } from './session';
import { SessionTimer, type SessionTimerState } from './session-timer';

const EXPIRY_KEY = 'panx.sessionExpiresAt';
const ACTIVITY_EVENTS = ['click', 'keypress', 'paste'] as const;

/**
 * Runs the session timer while signed in (SPEC §4): heartbeats on activity, the warning with its
 * countdown before the session ends, and the end itself (back to sign-in, then to the same page).
 */
export function SessionTimeout() {
  const { config } = useRuntime();
  const user = useCurrentUser();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const [state, setState] = useState<SessionTimerState | null>(null);
  const [level, setLevel] = useState<SecurityLevel>(DEFAULT_SECURITY_LEVEL);
  const timerRef = useRef<SessionTimer | null>(null);
  const initialLevel = user.data?.securityLevel ?? DEFAULT_SECURITY_LEVEL;
  const levelRef = useRef(initialLevel);
  levelRef.current = initialLevel;

  useEffect(() => {
    const timer = new SessionTimer({
      timeoutMs: sessionTimeoutFor(config, levelRef.current),
      gracePeriodMs: config.sessionTimeout.gracePeriod,
      debounceMs: ACTIVITY_DEBOUNCE_MS,
      maxWaitMs: config.heartbeat,
      heartbeat: async () => {
        const result = await api().call('system/heartbeat', {});
        setLevel(result.securityLevel);
        return { timeoutMs: sessionTimeoutFor(config, result.securityLevel) };
      },
      onChange: (next) => {
        setState(next);
        try {
          localStorage.setItem(EXPIRY_KEY, String(next.expiresAt));
        } catch {
          // storage unavailable: tabs do not share the expiry
        }
      },
      onExpire: () => sessionStore.end('expired'),
      onHeartbeatError: (error) => {
        if (isAuthFailure(error)) timer.expire();
      },
    });
    timerRef.current = timer;
    timer.start();
    // Confirm a restored session at once (an expired or revoked token ends here) and learn its level.
    timer.dismiss();

    const onActivity = () => timer.activity();
    for (const event of ACTIVITY_EVENTS) window.addEventListener(event, onActivity, { capture: true, passive: true });
    const onStorage = (event: StorageEvent) => {
      if (event.key === EXPIRY_KEY && event.newValue) timer.syncExpiry(Number(event.newValue));
    };
    window.addEventListener('storage', onStorage);
    return () => {
      timer.stop();
      timerRef.current = null;
      for (const event of ACTIVITY_EVENTS) window.removeEventListener(event, onActivity, { capture: true });
      window.removeEventListener('storage', onStorage);
    };
  }, [config]);

  const warning = state?.phase === 'warning';
  const stay = () => timerRef.current?.dismiss();
  const leave = () =>
    runInBackground(async () => {
      await signOut();
      navigate('/panx/login?reason=signed-out', { replace: true });
    });

  return (
    <Modal
      opened={warning}
      onClose={stay}
      title="Your session is about to end"
      centered
      zIndex={10_000}
      closeOnClickOutside={false}
      data-testid="session-timeout-warning"
    >
      <Stack gap="md">
        <Text>
          For your security you will be signed out in{' '}
          <Text span fw={700} role="timer" aria-live="polite" data-testid="session-countdown">
            {formatCountdown(state?.secondsLeft ?? 0)}
          </Text>
          .
        </Text>
        <Text size="sm" c="dimmed">
          Your account uses the {level} security level: sessions end after {formatDuration(sessionTimeoutFor(config, level))} without activity.
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={leave}>
            Sign out
          </Button>
          <Button onClick={stay} data-autofocus>
            Stay signed in
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
