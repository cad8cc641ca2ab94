import { MAX_TIMER_DELAY_MS } from '../../lib/constants';

/**
 * The session time-out of SPEC §4/§9, independent of React so that it is tested with fake timers.
 *
 * - The session expires `timeoutMs` (by security level: high 15 min, normal 60, low 360) after the last
 *   heartbeat the server acknowledged.
 * - User activity (click, keypress, paste; the caller wires the events) is debounced by `debounceMs`
 *   (1,000 ms) and then sends one heartbeat, so heartbeats go out at most once per second; during
 *   uninterrupted activity one still goes out every `maxWaitMs` (the heartbeat constant, 120,000 ms).
 * - `gracePeriodMs` (2 min) before expiry the warning is shown with a countdown, updated every second.
 *   Activity or `dismiss()` ("Stay signed in") sends a heartbeat; its answer moves the expiry and the
 *   warning is dismissed. At zero the session is expired and `onExpire` runs (the warning is removed).
 */
export type SessionPhase = 'active' | 'warning' | 'expired';

export interface SessionTimerState {
  phase: SessionPhase;
  /** Client-clock time at which the session ends. */
  expiresAt: number;
  /** Whole seconds left, for the countdown. */
  secondsLeft: number;
}

export interface SessionTimerOptions {
  timeoutMs: number;
  gracePeriodMs: number;
  debounceMs: number;
  maxWaitMs: number;
  /** Extends the session on the server; resolves with the session time-out to apply from now on. */
  heartbeat: () => Promise<{ timeoutMs: number }>;
  onChange: (state: SessionTimerState) => void;
  onExpire: () => void;
  /** A failed heartbeat (the caller decides; an invalid token should call `expire()`). */
  onHeartbeatError?: (error: unknown) => void;
  now?: () => number;
}

type Timer = ReturnType<typeof setTimeout>;

export class SessionTimer {
  private readonly now: () => number;
  private phase: SessionPhase = 'active';
  private expiresAt: number;
  private timeoutMs: number;
  private debounceTimer: Timer | undefined;
  private maxWaitTimer: Timer | undefined;
  private phaseTimer: Timer | undefined;
  private tickTimer: ReturnType<typeof setInterval> | undefined;
  private inFlight = false;
  private flushAgain = false;
  private stopped = true;
  private lastEmitted = '';

  constructor(private readonly options: SessionTimerOptions) {
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs;
    this.expiresAt = this.now() + options.timeoutMs;
  }

  /** Starts counting from now (the session was just created or confirmed by a heartbeat). */
  start(): void {
    this.stopped = false;
    this.phase = 'active';
    this.expiresAt = this.now() + this.timeoutMs;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.clearActivityTimers();
    this.clearPhaseTimers();
  }

  state(): SessionTimerState {
    return { phase: this.phase, expiresAt: this.expiresAt, secondsLeft: Math.max(0, Math.ceil((this.expiresAt - this.now()) / 1000)) };
  }

  /** A click, keypress or paste. */
  activity(): void {
    if (this.stopped || this.phase === 'expired') return;
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => this.flush(), this.options.debounceMs);
    if (this.maxWaitTimer === undefined) this.maxWaitTimer = setTimeout(() => this.flush(), this.options.maxWaitMs);
  }

  /** "Stay signed in": heartbeat at once. */
  dismiss(): void {
    if (this.stopped || this.phase === 'expired') return;
    this.flush();
  }

  /** Another tab extended the same session (the expiry is shared through storage). */
  syncExpiry(expiresAt: number): void {
    if (this.stopped || this.phase === 'expired' || expiresAt <= this.expiresAt) return;
    this.expiresAt = expiresAt;
    this.schedule();
  }

  /** The session ended (expired here, or the server said the token is no longer valid). */
  expire(): void {
    if (this.phase === 'expired') return;
    this.phase = 'expired';
    this.expiresAt = Math.min(this.expiresAt, this.now());
    this.clearActivityTimers();
    this.clearPhaseTimers();
    this.emit();
    this.options.onExpire();
  }

  private flush(): void {
    this.clearActivityTimers();
    if (this.stopped || this.phase === 'expired') return;
    if (this.inFlight) {
      this.flushAgain = true;
      return;
    }
    this.inFlight = true;
    const sentAt = this.now();
    this.options
      .heartbeat()
      .then(({ timeoutMs }) => {
        if (this.stopped || this.phase === 'expired') return;
        this.timeoutMs = timeoutMs;
        this.expiresAt = Math.max(this.expiresAt, sentAt + timeoutMs);
        this.schedule();
      })
      .catch((error: unknown) => this.options.onHeartbeatError?.(error))
      .finally(() => {
        this.inFlight = false;
        if (this.flushAgain) {
          this.flushAgain = false;
          this.flush();
        }
      });
  }

  private schedule(): void {
    this.clearPhaseTimers();
    if (this.stopped || this.phase === 'expired') return;
    const left = this.expiresAt - this.now();
    if (left <= 0) {
      this.expire();
      return;
    }
    if (left <= this.options.gracePeriodMs) {
      this.phase = 'warning';
      this.phaseTimer = setTimeout(() => this.schedule(), Math.min(left, MAX_TIMER_DELAY_MS));
      this.tickTimer = setInterval(() => this.emit(), 1000);
    } else {
      this.phase = 'active';
      this.phaseTimer = setTimeout(() => this.schedule(), Math.min(left - this.options.gracePeriodMs, MAX_TIMER_DELAY_MS));
    }
    this.emit();
  }

  private emit(): void {
    const state = this.state();
    const key = `${state.phase}:${state.expiresAt}:${state.phase === 'warning' ? state.secondsLeft : ''}`;
    if (key === this.lastEmitted) return;
    this.lastEmitted = key;
    this.options.onChange(state);
  }

  private clearActivityTimers(): void {
    if (this.debounceTimer !== undefined) clearTimeout(this.debounceTimer);
    if (this.maxWaitTimer !== undefined) clearTimeout(this.maxWaitTimer);
    this.debounceTimer = undefined;
    this.maxWaitTimer = undefined;
  }

  private clearPhaseTimers(): void {
    if (this.phaseTimer !== undefined) clearTimeout(this.phaseTimer);
    if (this.tickTimer !== undefined) clearInterval(this.tickTimer);
    this.phaseTimer = undefined;
    this.tickTimer = undefined;
  }
}
