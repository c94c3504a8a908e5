/**
 * Telling readers that bars changed (decisions §6: "every write advances the store's data
 * version; readers in other processes notice it"). A store publishes its own commits at once
 * and finds other processes' commits by a cheap check on a timer (SQLite's `PRAGMA
 * data_version`) or a notification (PostgreSQL's `LISTEN`); listeners get each new data
 * version once, in increasing order.
 */
import type { DataChange, DataListener, TouchedSeries } from "./store.js";

/** The listeners of one store, and the timer that looks for other processes' writes while there are any. */
export class ChangeFeed {
  private readonly listeners = new Set<DataListener>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private last = -Infinity;
  private polling = false;
  /** Versions this store is committing ({@link expect}), and those of them already seen from outside. */
  private readonly expected = new Set<number>();
  private readonly held = new Set<number>();

  /**
   * `check` returns the store's current data version (or undefined when nothing can have
   * changed since the last call); it runs every `intervalMs` while someone listens.
   */
  constructor(
    private readonly check: () => Promise<number | undefined> | number | undefined,
    private readonly intervalMs: number,
    /** Called when the first listener arrives and after the last one leaves (a PostgreSQL LISTEN connection). */
    private readonly onActive?: (active: boolean) => void,
  ) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: DataListener): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0) this.stop();
    };
  }

  /**
   * This store is committing `version` and will publish it as its own. Until it does (or
   * {@link abandon}s it), the same version seen from outside (a notification delivered, or the
   * timer reading it, before the commit's own continuation runs) is held back, so listeners
   * learn of the write once, as local, with what it touched.
   */
  expect(version: number): void {
    this.expected.add(version);
  }

  /** The write of an expected `version` did not commit: a version held back meanwhile was another writer's, told now. */
  abandon(version: number): void {
    this.expected.delete(version);
    if (this.held.delete(version)) this.publish(version, "remote");
  }

  /** Tells every listener about `version` (once: versions at or below the last one told are dropped). */
  publish(version: number, origin: DataChange["origin"], touched?: readonly TouchedSeries[]): void {
    if (origin === "remote" && this.expected.has(version)) {
      this.held.add(version);
      return;
    }
    if (origin === "local") {
      this.expected.delete(version);
      this.held.delete(version);
    }
    if (!(version > this.last)) return;
    this.last = version;
    const change: DataChange = touched ? { version, origin, touched } : { version, origin };
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own; the others are still told.
      }
    }
  }

  /** Stops the timer and forgets every listener (the store is closing). */
  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private start(): void {
    this.onActive?.(true);
    // The version at subscription is the baseline: only later writes are news.
    void this.poll(true);
    this.timer = setInterval(() => void this.poll(false), this.intervalMs);
    this.timer.unref?.();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.onActive?.(false);
  }

  private async poll(baseline: boolean): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const version = await this.check();
      if (version === undefined) return;
      if (baseline && this.last === -Infinity) this.last = version;
      else this.publish(version, "remote");
    } catch {
      // A store that cannot be read now is asked again on the next tick.
    } finally {
      this.polling = false;
    }
  }
}
