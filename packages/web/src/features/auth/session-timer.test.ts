import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACTIVITY_DEBOUNCE_MS, HEARTBEAT_INTERVAL_MS, SESSION_GRACE_PERIOD_MS, SESSION_TIMEOUT_MS } from '../../lib/constants';
import { SessionTimer, type SessionTimerState } from './session-timer';

const HIGH = SESSION_TIMEOUT_MS.high; // 15 min

function setup(timeoutMs = HIGH, heartbeat?: () => Promise<{ timeoutMs: number }>) {
  const states: SessionTimerState[] = [];
  const onExpire = vi.fn();
  const onHeartbeatError = vi.fn();
  const beat = vi.fn(heartbeat ?? (async () => ({ timeoutMs })));
  const timer = new SessionTimer({
    timeoutMs,
    gracePeriodMs: SESSION_GRACE_PERIOD_MS,
    debounceMs: ACTIVITY_DEBOUNCE_MS,
    maxWaitMs: HEARTBEAT_INTERVAL_MS,
    heartbeat: beat,
    onChange: (state) => states.push(state),
    onExpire,
    onHeartbeatError,
  });
  timer.start();
  return { timer, states, onExpire, onHeartbeatError, beat, last: () => states[states.length - 1] };
}

describe('SessionTimer (SPEC §4 time-out, §9 constants)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-21T10:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());

  it('shows the warning two minutes before a high-security session expires, counts down, then expires', async () => {
    const { timer, onExpire, last } = setup();
    expect(last()?.phase).toBe('active');
    await vi.advanceTimersByTimeAsync(HIGH - SESSION_GRACE_PERIOD_MS - 1);
    expect(last()?.phase).toBe('active');
    await vi.advanceTimersByTimeAsync(1);
    expect(last()).toMatchObject({ phase: 'warning', secondsLeft: 120 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(last()).toMatchObject({ phase: 'warning', secondsLeft: 119 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(last()).toMatchObject({ phase: 'warning', secondsLeft: 59 });
    expect(onExpire).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(59_000);
    expect(onExpire).toHaveBeenCalledTimes(1);
    expect(last()).toMatchObject({ phase: 'expired', secondsLeft: 0 });
    expect(timer.state().phase).toBe('expired');
  });

  it.each([
    ['normal', SESSION_TIMEOUT_MS.normal],
    ['low', SESSION_TIMEOUT_MS.low],
  ])('uses the %s security level time-out', async (_level, timeoutMs) => {
    const { onExpire, last } = setup(timeoutMs);
    await vi.advanceTimersByTimeAsync(timeoutMs - SESSION_GRACE_PERIOD_MS - 1);
    expect(last()?.phase).toBe('active');
    await vi.advanceTimersByTimeAsync(SESSION_GRACE_PERIOD_MS + 1);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('debounces activity: a burst of clicks sends one heartbeat, one second after the last click', async () => {
    const { timer, beat } = setup();
    for (let i = 0; i < 10; i++) {
      timer.activity();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(beat).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(ACTIVITY_DEBOUNCE_MS - 100);
    expect(beat).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(beat).toHaveBeenCalledTimes(1);
  });

  it('never sends heartbeats more often than once per second, and at least every 120 s of continuous activity', async () => {
    const { timer, beat } = setup();
    const sentAt: number[] = [];
    beat.mockImplementation(async () => {
      sentAt.push(Date.now());
      return { timeoutMs: HIGH };
    });
    // a keypress every 200 ms for five minutes
    for (let t = 0; t < 300_000; t += 200) {
      timer.activity();
      await vi.advanceTimersByTimeAsync(200);
    }
    expect(sentAt.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < sentAt.length; i++) {
      const gap = (sentAt[i] ?? 0) - (sentAt[i - 1] ?? 0);
      expect(gap).toBeGreaterThanOrEqual(ACTIVITY_DEBOUNCE_MS);
      expect(gap).toBeLessThanOrEqual(HEARTBEAT_INTERVAL_MS);
    }
  });

  it('moves the expiry on each acknowledged heartbeat, so an active user is never warned', async () => {
    const { timer, last, onExpire } = setup();
    for (let minute = 0; minute < 40; minute++) {
      await vi.advanceTimersByTimeAsync(60_000);
      timer.activity();
    }
    await vi.advanceTimersByTimeAsync(2000);
    expect(last()?.phase).toBe('active');
    expect(onExpire).not.toHaveBeenCalled();
  });

  it('dismisses the warning with a heartbeat when the user asks to stay signed in', async () => {
    const { timer, beat, last } = setup();
    await vi.advanceTimersByTimeAsync(HIGH - 30_000);
    expect(last()?.phase).toBe('warning');
    timer.dismiss();
    expect(beat).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(last()?.phase).toBe('active');
    expect(timer.state().secondsLeft).toBe(HIGH / 1000);
  });

  it('dismisses the warning after activity once the heartbeat answers', async () => {
    const { timer, last } = setup();
    await vi.advanceTimersByTimeAsync(HIGH - 60_000);
    expect(last()?.phase).toBe('warning');
    timer.activity();
    await vi.advanceTimersByTimeAsync(ACTIVITY_DEBOUNCE_MS);
    expect(last()?.phase).toBe('active');
  });

  it('applies a new security level returned by the heartbeat', async () => {
    const { timer, last } = setup(HIGH, async () => ({ timeoutMs: SESSION_TIMEOUT_MS.normal }));
    timer.dismiss();
    await vi.advanceTimersByTimeAsync(0);
    expect(last()?.secondsLeft).toBe(SESSION_TIMEOUT_MS.normal / 1000);
  });

  it('reports failed heartbeats and keeps the old expiry', async () => {
    const error = new Error('network down');
    const { timer, onHeartbeatError, onExpire } = setup(HIGH, async () => {
      throw error;
    });
    timer.dismiss();
    await vi.advanceTimersByTimeAsync(0);
    expect(onHeartbeatError).toHaveBeenCalledWith(error);
    await vi.advanceTimersByTimeAsync(HIGH);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });

  it('sends no second heartbeat while one is in flight, but follows up once it returns', async () => {
    let resolve: (value: { timeoutMs: number }) => void = () => {};
    const { timer, beat } = setup(HIGH, () => new Promise((r) => (resolve = r)));
    timer.dismiss();
    timer.dismiss();
    timer.dismiss();
    expect(beat).toHaveBeenCalledTimes(1);
    resolve({ timeoutMs: HIGH });
    await vi.advanceTimersByTimeAsync(0);
    expect(beat).toHaveBeenCalledTimes(2);
  });

  it('ignores activity after expiry and after stop', async () => {
    const { timer, beat } = setup();
    timer.expire();
    timer.activity();
    timer.dismiss();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_INTERVAL_MS);
    expect(beat).not.toHaveBeenCalled();
    const other = setup();
    other.timer.stop();
    other.timer.activity();
    await vi.advanceTimersByTimeAsync(HIGH * 2);
    expect(other.beat).not.toHaveBeenCalled();
    expect(other.onExpire).not.toHaveBeenCalled();
  });

  it('follows an expiry extended by another tab', async () => {
    const { timer, last } = setup();
    await vi.advanceTimersByTimeAsync(HIGH - 60_000);
    expect(last()?.phase).toBe('warning');
    timer.syncExpiry(Date.now() + HIGH);
    expect(last()?.phase).toBe('active');
  });

  it('expires at once when the computer slept past the expiry', async () => {
    const { onExpire } = setup();
    vi.setSystemTime(Date.now() + HIGH + 5 * 60_000);
    await vi.advanceTimersByTimeAsync(HIGH - SESSION_GRACE_PERIOD_MS);
    expect(onExpire).toHaveBeenCalledTimes(1);
  });
});
