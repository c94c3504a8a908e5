/**
 * The stream of deliveries (decisions §7, `GET /xql/alerts/stream`): each open stream sends its
 * account's deliveries in commit order (the outbox's seq) as Server-Sent Events, from the one
 * after `Last-Event-ID` when given (within 24 h), else from those committed after it opened.
 * One hub per process watches the outbox's latest seq — at once after a local commit, on a
 * timer for other processes' and replicas' — and wakes the streams, which each read their
 * account's new rows; an idle hub reads nothing.
 */
import type { AlertStore, StreamItem } from "./alerts.js";

/** 24 h: how far back `Last-Event-ID` resumes. */
export const RESUME_WINDOW_MS = 24 * 3_600_000;
/** Rows read per look. */
const PAGE = 200;

/** One server-sent event of a delivery: `id:` the delivery id, `event: alert`, `data:` the webhook body. */
export function sseEvent(item: Pick<StreamItem, "id" | "body">): string {
  return `id: ${item.id}\nevent: alert\ndata: ${item.body}\n\n`;
}

export interface StreamHubOptions {
  store: AlertStore;
  clock: { now(): number };
  /** How often to look for deliveries committed elsewhere, ms. Default 1,000. */
  pollMs?: number;
}

/** Where a stream writes; resolves once the text is handed over (waits for a slow reader's drain). */
export type StreamSink = (text: string) => Promise<void>;

export class StreamHub {
  private latest = 0;
  private readonly waiters = new Set<() => void>();
  private readonly streams = new Set<{ stop: () => void }>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private polling = false;
  private again = false;
  private closed = false;
  private readonly pollMs: number;

  constructor(private readonly options: StreamHubOptions) {
    this.pollMs = options.pollMs ?? 1_000;
  }

  /** A delivery was committed here: look now rather than on the next tick. */
  notify(): void {
    if (this.streams.size > 0) void this.poll();
  }

  /**
   * Sends the account's deliveries to `sink` until `signal` aborts or the hub closes: from the one
   * after `lastEventId` (an unknown or expired id replays the last 24 h: receivers deduplicate on
   * the id), else from the next one committed. Rejects when the store fails.
   */
  async serve(accountId: string, lastEventId: string | undefined, sink: StreamSink, signal: AbortSignal): Promise<void> {
    const { store, clock } = this.options;
    let stopped = false;
    let wake: (() => void) | undefined;
    const stream = {
      stop: () => {
        stopped = true;
        wake?.();
      },
    };
    this.streams.add(stream);
    signal.addEventListener("abort", stream.stop, { once: true });
    if (this.streams.size === 1) this.startPolling();
    try {
      let seq = lastEventId === undefined ? await store.latestSeq() : ((await store.seqOf(accountId, lastEventId)) ?? 0);
      while (!stopped && !this.closed) {
        const mark = this.latest;
        const items = await store.deliveriesAfter([accountId], seq, clock.now() - RESUME_WINDOW_MS, PAGE);
        for (const item of items) {
          if (stopped) return;
          await sink(sseEvent(item));
          seq = item.seq;
        }
        if (items.length === PAGE) continue;
        // Sleep until the outbox grows past what was just read (or the stream ends).
        await new Promise<void>((resolve) => {
          if (stopped || this.latest > mark) return resolve();
          wake = resolve;
          this.waiters.add(resolve);
        });
        if (wake) this.waiters.delete(wake);
        wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", stream.stop);
      this.streams.delete(stream);
      if (this.streams.size === 0) this.stopPolling();
    }
  }

  /** Ends every open stream (the server is closing). */
  close(): void {
    this.closed = true;
    for (const stream of [...this.streams]) stream.stop();
    this.stopPolling();
  }

  private startPolling(): void {
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref?.();
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async poll(): Promise<void> {
    // A look asked for during a look is made after it: the first may have read before a commit.
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    try {
      do {
        this.again = false;
        const latest = await this.options.store.latestSeq();
        if (latest > this.latest) {
          this.latest = latest;
          const waiting = [...this.waiters];
          this.waiters.clear();
          for (const resolve of waiting) resolve();
        }
      } while (this.again);
    } catch {
      // Looked at again on the next tick; the streams keep waiting.
    } finally {
      this.polling = false;
    }
  }
}
