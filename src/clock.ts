/**
 * Where the library, the service and its workers read the time. One interface, injected
 * everywhere a decision depends on the time (the quota's UTC day, which bars have closed, when
 * a delivery is due, how far back a stream resumes), so tests move time on by hand instead of
 * waiting for it.
 */
export interface Clock {
  /** The current time in ms since epoch. */
  now(): number;
}

/** The {@link Clock} of `Date.now()`: what runs when no clock is given. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A wait that can be cut short: resolves after `ms`, or at once when `signal` is aborted
 * (whichever comes first). What runs where a wait is injectable (a sync's pauses, a webhook
 * attempt's timeout) and no other is given; tests give one they move or fire by hand.
 */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** A {@link Sleep} of real timers; `background`: one that does not keep the process alive. */
function timerSleep(background: boolean): Sleep {
  return (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      // Node's timers can be unref'd; a browser's (the playground runs these too) are numbers.
      if (background) (timer as { unref?: () => void }).unref?.();
      signal.addEventListener("abort", done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
    });
}

/** The {@link Sleep} of real timers. */
export const systemSleep: Sleep = timerSleep(false);

/**
 * Real timers that do not keep the process alive: a background schedule's (the alert rounds'
 * next look), which must not hold a process that has nothing else left to do.
 */
export const backgroundSleep: Sleep = timerSleep(true);
