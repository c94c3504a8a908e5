/**
 * When to evaluate alerts (decisions §7: "when base bar t is in the store and the clock is past
 * t + duration"): after each committed write of bars (`BarStore.watch`: this process's writes at
 * once, other processes' within the store's watch interval), a short settle later so that the
 * writes of one batch (a sync's symbols, an import's files) are evaluated together; and by the
 * clock, when a bar stored while still in progress closes. Rounds never overlap: a trigger
 * during a round runs one more right after it. A failed round (the store down or busy) is
 * tried again with a growing pause. The service's engine and `xql watch` both run on it.
 *
 * A bar closed is not yet a bar written by everyone (decisions §14): a round evaluates bar t once
 * every symbol that had a bar at the previous bar has one at t, or once the grace (5 s by
 * default, `--alert-grace`) has passed since t's close — feeds write a bar's symbols over a few
 * seconds, and a round run on the first of them would see the others absent
 * ({@link awaitWriters}).
 */
import type { BarStore } from "../store/store.js";
import type { Instrument, Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";
import { countBelow } from "../eval/truncate.js";
import { type Clock, type Sleep, backgroundSleep } from "../clock.js";

/** 5 s: how long after a bar's close a round waits for the symbols that have not written it yet. */
export const DEFAULT_ALERT_GRACE_MS = 5_000;

/**
 * Of the closed base times (ascending, after the last evaluated bar), those a round may evaluate
 * now: each in turn once every symbol with a bar at the previous bar has one at it, or once
 * `graceMs` has passed since its close; the first that waits holds back the later ones (bar
 * order). `nextClose` becomes the earlier of the one given and the end of that wait.
 */
export function awaitWriters(
  universe: readonly Instrument[],
  base: Timeframe,
  found: { closed: number[]; nextClose: number | undefined },
  now: number,
  graceMs: number,
): { closed: number[]; nextClose: number | undefined } {
  const { closed } = found;
  const duration = TIMEFRAME_MS[base];
  for (let i = 0; i < closed.length; i++) {
    const t = closed[i]!;
    const graceEnds = t + duration + graceMs;
    if (now >= graceEnds) continue;
    const previous = i > 0 ? closed[i - 1]! : latestBefore(universe, base, t);
    if (previous === undefined) continue;
    const missing = universe.some((instrument) => {
      const times = instrument.bars[base]?.time;
      return times !== undefined && indexOf(times, previous) >= 0 && indexOf(times, t) < 0;
    });
    if (missing) {
      return { closed: closed.slice(0, i), nextClose: found.nextClose === undefined ? graceEnds : Math.min(found.nextClose, graceEnds) };
    }
  }
  return found;
}

/** The latest base time before `t` any symbol has. */
function latestBefore(universe: readonly Instrument[], base: Timeframe, t: number): number | undefined {
  let latest: number | undefined;
  for (const instrument of universe) {
    const times = instrument.bars[base]?.time;
    if (!times) continue;
    const at = countBelow(times, t) - 1;
    if (at >= 0 && (latest === undefined || times[at]! > latest)) latest = times[at]!;
  }
  return latest;
}

function indexOf(times: ArrayLike<number>, t: number): number {
  const at = countBelow(times, t);
  return at < times.length && times[at] === t ? at : -1;
}

/** 100 ms: how long after a write a round waits for the rest of its batch. */
export const DEFAULT_SETTLE_MS = 100;
/** The longest a stream of writes can put a round off. */
const MAX_SETTLE_MS = 1_000;

export interface RoundSchedulerOptions {
  bars: BarStore;
  clock: Clock;
  /** One round; resolves to the close (ms) of the next stored bar still in progress, if any. */
  round(): Promise<number | undefined>;
  /** How long after a write a round starts, ms. Default 100. */
  settleMs?: number;
  /**
   * How the scheduler waits (the settle after a write, the pause after a failed round, the next
   * close): real timers that do not hold the process by default; a test gives one that ends when
   * it moves its clock.
   */
  sleep?: Sleep;
  /** Told about a failed round and the pause before the next try. */
  onFailure?(error: unknown, retryInMs: number): void;
}

/** A wait on `sleep` that calls `fire` when it ends, unless cancelled first (the controller aborted). */
function timer(sleep: Sleep, ms: number, fire: () => void): AbortController {
  const cancel = new AbortController();
  void sleep(ms, cancel.signal).then(() => {
    if (!cancel.signal.aborted) fire();
  });
  return cancel;
}

export class RoundScheduler {
  private stopped = true;
  private unwatch: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private settleTimer: AbortController | undefined;
  private settleStarted = 0;
  private clockTimer: AbortController | undefined;
  private retryTimer: AbortController | undefined;
  private failures = 0;
  private readonly sleep: Sleep;

  constructor(private readonly options: RoundSchedulerOptions) {
    this.sleep = options.sleep ?? backgroundSleep;
  }

  /** Starts watching the store and runs a first round (bars may have closed while nobody watched). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unwatch = this.options.bars.watch(() => this.written());
    void this.run();
  }

  /** Stops watching; resolves once the round in progress (if any) is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unwatch?.();
    for (const t of [this.settleTimer, this.clockTimer, this.retryTimer]) t?.abort();
    await this.running?.catch(() => undefined);
  }

  /** Runs a round now (or once more right after the one in progress); resolves when that one is done. */
  run(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const running = (async () => {
      do {
        this.again = false;
        await this.once();
      } while (this.again && !this.stopped);
    })().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  private written(): void {
    if (this.stopped) return;
    const now = Date.now();
    if (this.settleTimer) {
      this.settleTimer.abort();
      if (now - this.settleStarted >= MAX_SETTLE_MS) {
        this.settleTimer = undefined;
        void this.run();
        return;
      }
    } else this.settleStarted = now;
    this.settleTimer = timer(this.sleep, this.options.settleMs ?? DEFAULT_SETTLE_MS, () => {
      this.settleTimer = undefined;
      void this.run();
    });
  }

  private async once(): Promise<void> {
    let nextClose: number | undefined;
    try {
      nextClose = await this.options.round();
      this.failures = 0;
    } catch (error) {
      this.failures++;
      const pause = Math.min(30_000, 500 * 2 ** Math.min(this.failures - 1, 6));
      this.options.onFailure?.(error, pause);
      this.retryTimer?.abort();
      this.retryTimer = timer(this.sleep, pause, () => void this.run());
      return;
    }
    this.clockTimer?.abort();
    this.clockTimer = undefined;
    if (nextClose === undefined || this.stopped) return;
    // A clock that stands still must not spin: at least a second between such looks.
    const wait = nextClose - this.options.clock.now();
    this.clockTimer = timer(this.sleep, wait > 0 ? Math.min(wait + 5, 3_600_000) : 1_000, () => void this.run());
  }
}
