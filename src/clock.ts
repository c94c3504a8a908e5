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
