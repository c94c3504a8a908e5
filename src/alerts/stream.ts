/**
 * The stream of deliveries (decisions §7 and §14, `GET /xql/alerts/stream`): each open stream
 * sends its account's deliveries in commit order (the outbox's seq) as Server-Sent Events.
 *
 * What one key may cost everyone else is bounded:
 * - an account holds at most free 2 / essential 5 / plus 10 open streams ({@link STREAM_LIMITS});
 * - a delivery is read from the store and serialised once for all the streams of its account:
 *   each account with open streams has one feed, which reads the account's new deliveries
 *   once, makes each event's bytes once and hands the same bytes to every stream;
 * - `Last-Event-ID` resumes from one of the account's deliveries (within 24 h), replaying at
 *   most 1,000 ({@link MAX_REPLAY}), then a comment says how many were skipped; an id that is
 *   not one of the account's deliveries starts the stream from now, and a comment says so;
 * - a stream whose reader falls behind holds at most {@link MAX_QUEUED} events; beyond, it
 *   drops them and catches up from the store as a resume does.
 *
 * One hub per process watches the outbox's latest seq — at once after a local commit, on a timer
 * for other processes' and replicas' — and wakes the feeds; an idle hub reads nothing.
 */
import { Buffer } from "node:buffer";
import type { Tier } from "../accounts/accounts.js";
import type { AlertStore, StreamItem } from "./alerts.js";
import type { Clock } from "../clock.js";

/** 24 h: how far back `Last-Event-ID` resumes. */
export const RESUME_WINDOW_MS = 24 * 3_600_000;
/** Open streams an account may hold at once, by tier. */
export const STREAM_LIMITS: Readonly<Record<Tier, number>> = { free: 2, essential: 5, plus: 10 };
/** The most deliveries one resume (or one catch-up of a stream that fell behind) replays. */
export const MAX_REPLAY = 1_000;
/** Events one stream may have waiting for its reader before it catches up from the store instead. */
export const MAX_QUEUED = 1_000;
/** Rows read per look. */
const PAGE = 200;

/** The comment of a stream whose `Last-Event-ID` is not one of the account's deliveries. */
export const UNKNOWN_LAST_EVENT_ID = ": Last-Event-ID is not one of this account's deliveries: the stream starts from now\n\n";

/** The comment after a replay that stopped at {@link MAX_REPLAY}. */
export function skippedComment(skipped: number): string {
  return `: ${skipped} ${skipped === 1 ? "delivery" : "deliveries"} skipped: a resume replays at most ${MAX_REPLAY}; the stream goes on from now\n\n`;
}

/** One server-sent event of a delivery: `id:` the delivery id, `event: alert`, `data:` the webhook body. */
export function sseEvent(item: Pick<StreamItem, "id" | "body">): string {
  return `id: ${item.id}\nevent: alert\ndata: ${item.body}\n\n`;
}

export interface StreamHubOptions {
  store: AlertStore;
  clock: Clock;
  /** How often to look for deliveries committed elsewhere, ms. Default 1,000. */
  pollMs?: number;
}

/** Where a stream writes; resolves once the bytes are handed over (waits for a slow reader's drain). */
export type StreamSink = (chunk: string | Uint8Array) => Promise<void>;

/** One of an account's stream places, taken before the stream opens and given back when it ends. */
export interface StreamSlot {
  readonly accountId: string;
  release(): void;
}

/** A delivery's event, made once: the same bytes go to every stream of the account. */
interface Frame {
  seq: number;
  bytes: Uint8Array;
}

/** One open stream: the events handed to it that its reader has not taken yet. */
class OpenStream {
  queue: Frame[] = [];
  /** Fell more than {@link MAX_QUEUED} events behind: it catches up from the store. */
  behind = false;
  stopped = false;
  wake: (() => void) | undefined;

  push(frame: Frame): void {
    if (this.behind) return;
    if (this.queue.length >= MAX_QUEUED) {
      this.queue = [];
      this.behind = true;
    } else this.queue.push(frame);
    this.wake?.();
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }
}

/** The open streams of one account and how far its deliveries have been handed to them. */
class AccountFeed {
  readonly streams = new Set<OpenStream>();
  /** Every delivery of the account up to this seq has been handed to the streams open then. */
  cursor = 0;
  /** The outbox's end when the feed was made (the cursor's start); undefined until read. */
  started: number | undefined;
  ready: Promise<number> | undefined;
  reading = false;
  again = false;
  constructor(readonly accountId: string) {}
}

export class StreamHub {
  private latest = 0;
  private readonly feeds = new Map<string, AccountFeed>();
  private readonly places = new Map<string, number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private polling = false;
  private again = false;
  private closed = false;
  private readonly pollMs: number;

  constructor(private readonly options: StreamHubOptions) {
    this.pollMs = options.pollMs ?? 1_000;
  }

  /**
   * Takes one of the account's `limit` stream places, or undefined when all are taken. It
   * decides at once (no await), so concurrent openings cannot pass the limit together.
   */
  reserve(accountId: string, limit: number): StreamSlot | undefined {
    const taken = this.places.get(accountId) ?? 0;
    if (this.closed || taken >= limit) return undefined;
    this.places.set(accountId, taken + 1);
    let released = false;
    return {
      accountId,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.places.get(accountId) ?? 1) - 1;
        if (left > 0) this.places.set(accountId, left);
        else this.places.delete(accountId);
      },
    };
  }

  /** A delivery was committed here: look now rather than on the next tick. */
  notify(): void {
    if (this.feeds.size > 0) void this.poll();
  }

  /**
   * Sends the slot's account's deliveries to `sink` until `signal` aborts or the hub closes:
   * after `lastEventId` when it is one of the account's deliveries, else from the next one
   * committed. Gives the slot back when it ends. Rejects when the store fails.
   */
  async serve(slot: StreamSlot, lastEventId: string | undefined, sink: StreamSink, signal: AbortSignal): Promise<void> {
    const { accountId } = slot;
    const stream = new OpenStream();
    const feed = this.join(accountId, stream);
    // Everything handed to the feed from here on is the stream's: it stands where the feed stood when it joined.
    const joinedAt = feed.started === undefined ? undefined : feed.cursor;
    const stop = () => stream.stop();
    signal.addEventListener("abort", stop, { once: true });
    try {
      if (signal.aborted || this.closed) return;
      const started = await feed.ready!;
      let sent = joinedAt ?? started;
      if (lastEventId !== undefined) {
        const from = await this.options.store.seqOf(accountId, lastEventId);
        if (from === undefined) await sink(UNKNOWN_LAST_EVENT_ID);
        else sent = await this.replay(accountId, from, feed.cursor, sink, stream);
      }
      while (!stream.stopped && !this.closed) {
        if (stream.behind) {
          // Events were dropped: read what the feed has handed out since the last one sent.
          stream.behind = false;
          sent = await this.replay(accountId, sent, feed.cursor, sink, stream);
          continue;
        }
        const frame = stream.queue.shift();
        if (frame) {
          if (frame.seq > sent) {
            await sink(frame.bytes);
            sent = frame.seq;
          }
          continue;
        }
        await new Promise<void>((resolve) => {
          if (stream.stopped || stream.behind || stream.queue.length > 0) return resolve();
          stream.wake = resolve;
        });
        stream.wake = undefined;
      }
    } finally {
      signal.removeEventListener("abort", stop);
      this.leave(feed, stream);
      slot.release();
    }
  }

  /** Ends every open stream (the server is closing). */
  close(): void {
    this.closed = true;
    for (const feed of this.feeds.values()) for (const stream of feed.streams) stream.stop();
    this.stopPolling();
  }

  /**
   * Sends the account's deliveries after seq `after` up to seq `through` (those after come from
   * the feed), at most {@link MAX_REPLAY} of them, then a comment with the number skipped.
   * Resolves to the seq the stream stands at.
   */
  private async replay(accountId: string, after: number, through: number, sink: StreamSink, stream: OpenStream): Promise<number> {
    const { store, clock } = this.options;
    const since = clock.now() - RESUME_WINDOW_MS;
    let at = after;
    let replayed = 0;
    while (at < through && replayed < MAX_REPLAY && !stream.stopped) {
      const limit = Math.min(PAGE, MAX_REPLAY - replayed);
      const items = await store.deliveriesAfter([accountId], at, since, limit);
      for (const item of items) {
        if (item.seq > through || stream.stopped) return Math.max(at, through);
        await sink(sseEvent(item));
        at = item.seq;
        replayed++;
      }
      if (items.length < limit) break;
    }
    if (replayed === MAX_REPLAY && at < through && !stream.stopped) {
      const skipped = await store.countDeliveries(accountId, at, through, since);
      if (skipped > 0) await sink(skippedComment(skipped));
    }
    return Math.max(at, through);
  }

  private join(accountId: string, stream: OpenStream): AccountFeed {
    let feed = this.feeds.get(accountId);
    if (!feed) {
      const created = new AccountFeed(accountId);
      this.feeds.set(accountId, created);
      // A new feed starts at the outbox's end, then looks once more: a commit may have raced the read.
      created.ready = this.options.store.latestSeq().then((seq) => {
        created.started = seq;
        created.cursor = Math.max(created.cursor, seq);
        void this.advance(created);
        return seq;
      });
      feed = created;
      if (this.feeds.size === 1) this.startPolling();
    }
    feed.streams.add(stream);
    return feed;
  }

  private leave(feed: AccountFeed, stream: OpenStream): void {
    feed.streams.delete(stream);
    if (feed.streams.size === 0 && this.feeds.get(feed.accountId) === feed) {
      this.feeds.delete(feed.accountId);
      if (this.feeds.size === 0) this.stopPolling();
    }
  }

  /** Reads the account's deliveries after the feed's cursor and hands each, made once, to every stream. */
  private async advance(feed: AccountFeed): Promise<void> {
    if (feed.reading) {
      feed.again = true;
      return;
    }
    feed.reading = true;
    try {
      do {
        feed.again = false;
        for (;;) {
          const items = await this.options.store.deliveriesAfter([feed.accountId], feed.cursor, this.options.clock.now() - RESUME_WINDOW_MS, PAGE);
          // No await from here to the cursor's move: a stream reading the cursor sees every event below it handed out.
          for (const item of items) {
            const frame: Frame = { seq: item.seq, bytes: Buffer.from(sseEvent(item), "utf8") };
            for (const stream of feed.streams) stream.push(frame);
            feed.cursor = Math.max(feed.cursor, item.seq);
          }
          if (items.length < PAGE || feed.streams.size === 0) break;
        }
      } while (feed.again && feed.streams.size > 0);
    } catch {
      // Read again on the next look (which the lowered mark makes happen); the streams keep waiting.
      this.latest = Math.min(this.latest, feed.cursor);
    } finally {
      feed.reading = false;
    }
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
          for (const feed of this.feeds.values()) {
            if (feed.cursor < latest) void feed.ready?.then(() => this.advance(feed)).catch(() => undefined);
          }
        }
      } while (this.again);
    } catch {
      // Looked at again on the next tick; the streams keep waiting.
    } finally {
      this.polling = false;
    }
  }
}
