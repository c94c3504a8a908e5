/**
 * The stepwise loop under every evaluation: `run` and `history` are generators over the
 * instruments that yield when their {@link Slice} of time is used up; `drain` runs one to the
 * end at once, `drainAsync` gives way (a turn of the event loop, or the caller's `turn`) at each
 * yield. The result is the same.
 * A synchronous run never yields (its slice never ends), so it pays nothing per instrument for
 * being resumable; an asynchronous one reads the clock once per instrument.
 */

/** How long a stretch of evaluation may run before it gives way. */
export class Slice {
  private since = performance.now();

  /** @param ms - Milliseconds of evaluation between turns; Infinity: never give way. */
  constructor(private readonly ms: number) {}

  /** True when this slice is used up: the generator yields, then calls {@link restart}. */
  due(): boolean {
    return this.ms !== Infinity && performance.now() - this.since >= this.ms;
  }

  restart(): void {
    this.since = performance.now();
  }
}

/** The slice of a synchronous evaluation: it never gives way. */
export const WHOLE = new Slice(Infinity);

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
 * Runs the steps, giving way through `turn` at each yield, that is whenever the evaluation's
 * slice is used up: by default the next turn of the event loop (setImmediate), or a caller's
 * own (the service's admission hands out fair turns between queries). A server stays
 * responsive to other callers during a long run, and the result is the same as {@link drain}'s.
 */
export async function drainAsync<T>(steps: Generator<undefined, T, undefined>, turn: () => Promise<void> = loopTurn): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await turn();
  }
}

/** The next turn of the event loop, for any caller. */
function loopTurn(): Promise<void> {
  return new Promise<void>((resolve) => nextTurn(resolve));
}
