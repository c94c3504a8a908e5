/**
 * Waiting in tests: for an event or a condition, never for a stretch of time. A test that
 * sleeps "long enough" passes on an idle machine and fails on a loaded one; one that waits for
 * what it needs passes on both, only slower.
 *
 * `until` checks its condition at once, then again each time its `signal` fires (an event the
 * test holds: a request reached a receiver, a store told its watchers) — or, where the
 * condition is the state of another process or server that tells nobody, at each short poll.
 * The timeout is a guard, never a pace: generous, it turns a test that would hang into a
 * failure that says what did not happen.
 */

/** The guard of {@link until}: far beyond any healthy wait, under vitest's 30 s test timeout. */
export const UNTIL_GUARD_MS = 25_000;
/** Between two looks at a condition no event announces. */
const POLL_MS = 20;

/** An event a test can wait on: whoever sees something happen calls `notify`. */
export class Signal {
  private waiters: (() => void)[] = [];

  /** Wakes everyone waiting for the next notification. */
  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves at the next {@link notify}. */
  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

export interface UntilOptions {
  /** Look again when this fires, instead of polling. */
  signal?: Signal;
  /** The failure guard, ms. Default {@link UNTIL_GUARD_MS}. */
  timeoutMs?: number;
  /** What is awaited, for the failure message. */
  what?: string;
}

/**
 * Resolves once `check` holds. A check that throws has not held yet (a server still starting);
 * its last error is in the failure message if the guard runs out. A number is the guard in ms.
 */
export async function until(check: () => boolean | Promise<boolean>, options: UntilOptions | number = {}): Promise<void> {
  const { signal, timeoutMs = UNTIL_GUARD_MS, what = "the condition" } = typeof options === "number" ? { timeoutMs: options } : options;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    // Subscribed before the check: an event between the check and the wait is not missed.
    const next = signal?.next();
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    const left = deadline - performance.now();
    if (left <= 0) {
      const cause = lastError === undefined ? "" : ` (last check failed: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`until: ${what} did not hold within ${timeoutMs} ms${cause}`);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    // With a signal the timer is only the guard; without one it is the next look.
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, next ? left : Math.min(POLL_MS, left))));
    await (next ? Promise.race([next, timeout]) : timeout);
    clearTimeout(timer);
  }
}

/**
 * Where a stand-in holds its answers (a slow exchange, a slow receiver, a slow disk) until the
 * test lets them go: the test decides when a slow party answers, after it has seen what it
 * needs to see, instead of the party answering after a delay that a loaded machine outruns.
 */
export class Gate {
  private opened = false;
  private readonly held: (() => void)[] = [];
  /** Fires each time one more is held at the gate. */
  readonly arrived = new Signal();

  /** How many are held now. */
  get waiting(): number {
    return this.held.length;
  }

  /** Resolves when the gate lets this one through (at once while it stands open). */
  wait(): Promise<void> {
    if (this.opened) return Promise.resolve();
    return new Promise((resolve) => {
      this.held.push(resolve);
      this.arrived.notify();
    });
  }

  /** Lets the `count` held longest through; the gate stays shut for the others. */
  pass(count: number): void {
    for (const release of this.held.splice(0, count)) release();
  }

  /** Lets everyone held through, and everyone after. */
  open(): void {
    this.opened = true;
    this.pass(this.held.length);
  }

  /** Resolves once `count` are held (checked each time one more arrives); `options` as {@link until}'s. */
  holding(count: number, options: Omit<UntilOptions, "signal"> = {}): Promise<void> {
    return until(() => this.held.length >= count, { what: `${count} held at the gate`, ...options, signal: this.arrived });
  }
}
