/** Durations and a fixed start: hourly bars from Monday 2024-01-01 00:00 UTC start a UTC day and a week. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
/** Monday 2024-01-01 00:00 UTC. */
export const MONDAY = Date.UTC(2024, 0, 1);
