/**
 * Where time is read. The service, the alert rounds and their deliveries take a {@link Clock}
 * so that tests move time (across a quota's UTC midnight, past a bar's close) instead of
 * waiting for it.
 */

/** Where the time is read; tests move it across midnight. */
export interface Clock {
  /** The current time in ms since epoch: it picks the quota's UTC day and the rate-limit reset. */
  now(): number;
}

/** The {@link Clock} of `Date.now()`, the one used when no clock is given. */
export const systemClock: Clock = { now: () => Date.now() };
