/**
 * The stepwise loop under every evaluation: `run` and `history` are generators that yield
 * between instruments; `drain` runs one to the end at once, `drainAsync` gives the event loop
 * a turn whenever a slice of time has passed, with the same result.
 */

/**
 * A turn of the event loop: `setImmediate` in Node (after pending I/O, without a timer's
 * minimum delay), a zero timeout where it does not exist (the browser's playground).
 */
const nextTurn: (callback: () => void) => void =
  (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate ?? ((callback) => setTimeout(callback, 0));

/** Runs every step at once. */
export function drain<T>(steps: Generator<undefined, T, undefined>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs the steps, giving the event loop a turn (setImmediate) whenever `sliceMs` have passed
 * since the last: a server stays responsive to other callers during a long run, and the
 * result is the same as {@link drain}'s.
 */
export async function drainAsync<T>(steps: Generator<undefined, T, undefined>, sliceMs: number): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => nextTurn(resolve));
      since = performance.now();
    }
  }
}
