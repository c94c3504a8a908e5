/** Clocks the tests hold: time moves when the test moves it, never by itself. */
import type { Clock } from "../../src/clock.js";

/** A clock stopped at `t`; the test sets or advances it. */
export class TestClock implements Clock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A clock the test can move on (a {@link TestClock}, or one that also runs in real time). */
export interface MovableClock extends Clock {
  advance(ms: number): void;
}
