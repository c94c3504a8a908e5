/**
 * When to evaluate alerts (decisions §7: "when base bar t is in the store and the clock is past
 * t + duration"): after each committed write of bars (`BarStore.watch`: this process's writes at
 * once, other processes' within the store's watch interval), a short settle later so that the
 * writes of one batch (a sync's symbols, an import's files) are evaluated together; and by the
 * clock, when a bar stored while still in progress closes. Rounds never overlap: a trigger
 * during a round runs one more right after it. A failed round (the store down or busy) is
 * tried again with a growing pause. The service's engine and `xql watch` both run on it.
 */
import type { BarStore } from "../store/store.js";

/** 100 ms: how long after a write a round waits for the rest of its batch. */
export const DEFAULT_SETTLE_MS = 100;
/** The longest a stream of writes can put a round off. */
const MAX_SETTLE_MS = 1_000;

export interface RoundSchedulerOptions {
  bars: BarStore;
  clock: { now(): number };
  /** One round; resolves to the close (ms) of the next stored bar still in progress, if any. */
  round(): Promise<number | undefined>;
  /** How long after a write a round starts, ms. Default 100. */
  settleMs?: number;
  /** Told about a failed round and the pause before the next try. */
  onFailure?(error: unknown, retryInMs: number): void;
}

export class RoundScheduler {
  private stopped = true;
  private unwatch: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private settleStarted = 0;
  private clockTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;

  constructor(private readonly options: RoundSchedulerOptions) {}

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
    for (const timer of [this.settleTimer, this.clockTimer, this.retryTimer]) if (timer) clearTimeout(timer);
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
      clearTimeout(this.settleTimer);
      if (now - this.settleStarted >= MAX_SETTLE_MS) {
        this.settleTimer = undefined;
        void this.run();
        return;
      }
    } else this.settleStarted = now;
    this.settleTimer = setTimeout(() => {
      this.settleTimer = undefined;
      void this.run();
    }, this.options.settleMs ?? DEFAULT_SETTLE_MS);
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
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => void this.run(), pause);
      this.retryTimer.unref?.();
      return;
    }
    if (this.clockTimer) clearTimeout(this.clockTimer);
    this.clockTimer = undefined;
    if (nextClose === undefined || this.stopped) return;
    // A clock that stands still (tests) must not spin: at least a second between such looks.
    const wait = nextClose - this.options.clock.now();
    this.clockTimer = setTimeout(() => void this.run(), wait > 0 ? Math.min(wait + 5, 3_600_000) : 1_000);
    this.clockTimer.unref?.();
  }
}
