/** Clocks the tests hold: time moves when the test moves it, never by itself. */
import type { Clock, Sleep } from "../../src/clock.js";
import { Signal } from "./wait.js";

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

/**
 * A {@link TestClock} and the waits on it (a scheduler's timers, given as its `Sleep`): a wait
 * ends when the test moves the clock to its due time, never by itself, and `waiting` says what
 * is armed — so a test sees that a timer was set, and for when, before it lets it fire.
 */
export class TimedClock extends TestClock {
  private readonly waits = new Set<{ due: number; wake: () => void }>();
  /** Told each time a wait is armed (a test waits on it with `until`). */
  readonly armed = new Signal();

  readonly sleep: Sleep = (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const wait = {
        due: this.t + Math.max(0, ms),
        wake: (): void => {
          this.waits.delete(wait);
          signal.removeEventListener("abort", wait.wake);
          resolve();
        },
      };
      this.waits.add(wait);
      signal.addEventListener("abort", wait.wake, { once: true });
      this.armed.notify();
    });

  /** The due times of the waits armed now, earliest first. */
  get waiting(): number[] {
    return [...this.waits].map((w) => w.due).sort((a, b) => a - b);
  }

  /** Moves the clock on; the waits due by then end. */
  override advance(ms: number): void {
    this.t += ms;
    for (const wait of [...this.waits]) if (wait.due <= this.t) wait.wake();
  }
}
