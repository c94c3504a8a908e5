/**
 * What the alert tests share: a clock that runs from a chosen instant, a webhook receiver on
 * loopback whose answers the test chooses per request, the expected events of an alert from
 * the library's `history`, and the outbox as delivered.
 */
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { compile, historyAnchoredAsync } from "../../src/api.js";
import type { AlertEvent, AlertStore, MatchRow } from "../../src/alerts/alerts.js";
import { signatureOf } from "../../src/alerts/sign.js";
import { systemClock } from "../../src/clock.js";
import type { Instrument, XqlOptions } from "../../src/types.js";
import type { ServerOptions } from "../../src/server/app.js";
import { startServer, type Running } from "../server/helpers.js";
import { Gate, type MovableClock, Signal, until } from "../kit/index.js";
import type { Clock, Sleep } from "../../src/clock.js";

/** A clock that runs in real time from `start`, and can be moved on. */
export class RunningClock implements MovableClock {
  private readonly origin = Date.now();
  private offset = 0;
  constructor(private readonly start: number) {}
  now(): number {
    return this.start + this.offset + (Date.now() - this.origin);
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

/**
 * The delivery worker's attempt timeouts (`alertTiming.deliveryTimeout`), fired by the test: an
 * attempt without an answer times out when the test fires it, never by itself, so a receiver
 * that answers late but in time is never raced by a timer on a loaded machine.
 */
export class FiredTimeouts {
  private readonly pending = new Set<() => void>();

  /** Waits until fired, or until the attempt is answered (its signal aborts). */
  readonly sleep: Sleep = (_ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const wake = (): void => {
        this.pending.delete(wake);
        signal.removeEventListener("abort", wake);
        resolve();
      };
      this.pending.add(wake);
      signal.addEventListener("abort", wake, { once: true });
    });

  /** Attempts waiting for an answer now. */
  get waiting(): number {
    return this.pending.size;
  }

  /** Every attempt waiting for an answer times out now. */
  fire(): void {
    for (const wake of [...this.pending]) wake();
  }
}

/** One POST the receiver got. */
export interface Received {
  delivery: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Every header as received (both signature schemes among them). */
  headers: IncomingHttpHeaders;
  /** The answer given: `ok`, `fail`, `timeout`, `late`, `reset`, `slow`, or a redirect. */
  answer: Answer;
  /** When it arrived, by the receiver's clock (ms). */
  at: number;
}

/**
 * `timeout`: no answer ever. `late`: 200, but only once the sender has given up on the request
 * (closed it). `slow`: 200 once the test lets it through the receiver's {@link Receiver.slow} gate.
 */
export type Answer = "ok" | "fail" | "timeout" | "late" | "reset" | "slow" | { redirect: string };

/** A webhook receiver on 127.0.0.1; `answer` picks each request's fate from its number (1-based) and delivery id. */
export class Receiver {
  readonly received: Received[] = [];
  /** TCP connections accepted, requests or not (a TLS hello to this plain HTTP server is one). */
  connections = 0;
  url = "";
  port = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((request, response) => this.handle(request, response));
  /** Fires after each request is recorded. */
  readonly arrived = new Signal();
  /** Where `slow` answers wait until the test lets them go. */
  readonly slow = new Gate();

  constructor(
    public answer: (n: number, delivery: string) => Answer = () => "ok",
    private readonly clock: Clock = systemClock,
  ) {
    this.server.on("connection", (socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  async start(path = "/hook"): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}${path}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The requests answered `ok`, in arrival order. */
  get delivered(): Received[] {
    return this.received.filter((r) => r.answer === "ok" || r.answer === "slow");
  }

  /** Resolves once `test` holds, checked after every request; `timeoutMs` only guards a test that would hang. */
  until(test: () => boolean, timeoutMs?: number): Promise<void> {
    return until(test, { signal: this.arrived, timeoutMs, what: "the receiver's condition" });
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      const delivery = String(request.headers["x-xql-delivery"] ?? "");
      const answer = this.answer(this.received.length + 1, delivery);
      this.received.push({
        delivery,
        timestamp: String(request.headers["x-xql-timestamp"] ?? ""),
        signature: String(request.headers["x-xql-signature"] ?? ""),
        body: Buffer.concat(chunks).toString("utf8"),
        headers: request.headers,
        answer,
        at: this.clock.now(),
      });
      this.arrived.notify();
      if (answer === "ok") response.end("ok");
      else if (answer === "fail") response.writeHead(500).end("no");
      else if (answer === "reset") request.socket.destroy();
      else if (answer === "slow") void this.slow.wait().then(() => response.end("ok, slowly"));
      else if (answer === "late") request.socket.once("close", () => response.end("ok, too late"));
      else if (answer === "timeout") {
        // Never answers; the socket is closed when the receiver stops.
      } else response.writeHead(302, { location: answer.redirect }).end();
    });
  }
}

/** True when the request's signature is the HMAC of its timestamp and body under `secret`. */
export function signedBy(received: Received, secret: string): boolean {
  return received.signature === signatureOf(secret, Number(received.timestamp), received.body);
}

/** A delivery body as parsed. */
export interface DeliveryBody {
  alert: { id: string; name: string };
  timeframe: string;
  time: number;
  events: AlertEvent[];
  delivery: string;
}

/** Every delivery of the account in the outbox, in commit order. */
export async function outbox(alerts: AlertStore, accountId: string): Promise<DeliveryBody[]> {
  const items = await alerts.deliveriesAfter([accountId], 0, 0, 100_000);
  return items.map((i) => JSON.parse(i.body) as DeliveryBody);
}

/**
 * The deliveries an alert created at `createdAt` should have made over `universe`: the
 * transitions of the service's history (from each bar's anchors) per symbol over its own bars —
 * a symbol without a bar at t has no event there and keeps its state (decisions §14), an exit
 * carries the columns at its bar (§7) — and the symbols matching at the end (absent ones carried).
 */
export async function expectedAlert(
  query: string,
  universe: Instrument[],
  createdAt: number | null,
  options: XqlOptions = {},
): Promise<{ deliveries: { time: number; events: AlertEvent[] }[]; matching: string[] }> {
  const compiled = compile(query, options);
  const times = [...new Set(universe.flatMap((i) => baseTimes(query, i)))].sort((a, b) => a - b);
  const window = times.filter((t) => createdAt === null || t >= createdAt);
  const { result, tracked } = await historyAnchoredAsync(compiled, universe, {
    bars: Math.max(1, window.length),
    track: new Set(universe.map((i) => i.symbol)),
  });
  const matches = new Set(result.matches.map((m) => `${m.time}\n${m.symbol}`));
  // Present at t: the matching rows (with their columns) and the tracked ones that do not match.
  const present = new Map<number, Map<string, MatchRow["columns"]>>();
  for (const row of [...result.matches, ...tracked]) {
    let at = present.get(row.time);
    if (!at) present.set(row.time, (at = new Map()));
    at.set(row.symbol, row.columns);
  }
  const out: { time: number; events: AlertEvent[] }[] = [];
  const state = new Set<string>();
  if (createdAt !== null) for (const m of result.matches) if (m.time === createdAt) state.add(m.symbol);
  for (const t of window) {
    if (t === createdAt) continue;
    const events: AlertEvent[] = [];
    for (const [symbol, columns] of [...(present.get(t) ?? new Map<string, MatchRow["columns"]>())].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const is = matches.has(`${t}\n${symbol}`);
      if (is && !state.has(symbol)) events.push({ symbol, kind: "enter", columns });
      if (!is && state.has(symbol)) events.push({ symbol, kind: "exit", columns });
      if (is) state.add(symbol);
      else state.delete(symbol);
    }
    if (events.length > 0) out.push({ time: t, events });
  }
  return { deliveries: JSON.parse(JSON.stringify(out)) as { time: number; events: AlertEvent[] }[], matching: [...state].sort() };
}

function baseTimes(query: string, instrument: Instrument): number[] {
  const base = compile(query).plan.sources[0]!.timeframe;
  return Array.from(instrument.bars[base]?.time ?? []);
}

export const HOUR = 3_600_000;
/** Monday 2026-11-02 00:00 UTC: bar 0 of the feed of {@link startFeedServer}. */
export const FEED_START = Date.UTC(2026, 10, 2);
export const FEED_SYMBOLS = ["AAA", "BBB", "CCC"];

export { until };

export interface FeedServer {
  server: Running;
  clock: MovableClock;
  /**
   * Writes the h1 bar of hour 9 + `step` of every symbol, at the closes given or its last close
   * (a symbol without a bar at t does not match at t); resolves to the bar's open time.
   */
  push(step: number, closes: Record<string, number>): Promise<number>;
}

/**
 * A server on a fresh SQLite file holding ten closed h1 bars (hours 0–9) of AAA, BBB and CCC
 * (CRYPTO) closing at 50, with a clock running from 1,000 hours later (or the one given, which
 * must be past the bars): every bar written is closed when written.
 */
export async function startFeedServer(options: Partial<ServerOptions> & { clock?: MovableClock } = {}): Promise<FeedServer> {
  const clock = options.clock ?? new RunningClock(FEED_START + 1000 * HOUR);
  const server = await startServer({ seed: false, allowPrivateWebhooks: true, alertTiming: { settleMs: 10, pollMs: 100, deliveryTimeoutMs: 400 }, ...options, clock });
  const column = (value: number) => new Array<number>(10).fill(value);
  await server.store.upsertBars([
    {
      market: "CRYPTO",
      timeframe: "h1",
      symbols: FEED_SYMBOLS.map((symbol) => ({
        symbol,
        bars: { time: Array.from({ length: 10 }, (_, i) => FEED_START + i * HOUR), open: column(50), high: column(50), low: column(50), close: column(50), volume: column(1) },
      })),
    },
  ]);
  const last: Record<string, number> = Object.fromEntries(FEED_SYMBOLS.map((symbol) => [symbol, 50]));
  return {
    server,
    clock,
    async push(step, closes) {
      const time = FEED_START + (9 + step) * HOUR;
      Object.assign(last, closes);
      const bars = (close: number) => ({ time: [time], open: [close], high: [close], low: [close], close: [close], volume: [1] });
      await server.store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: Object.entries(last).map(([symbol, close]) => ({ symbol, bars: bars(close) })) }]);
      return time;
    },
  };
}

/** One server-sent event as received. */
export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

/** An open `GET /xql/alerts/stream`, read as it comes. */
export interface SseStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Comment lines (`: heartbeat`), without the colon. */
  comments: string[];
  /** True once the server ended the stream. */
  ended: boolean;
  close(): void;
}

/** Opens the stream with the key (and `Last-Event-ID` when given) and parses events as they arrive. */
export async function openStream(baseUrl: string, key: string, lastEventId?: string): Promise<SseStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "text/event-stream" };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const response = await fetch(`${baseUrl}/xql/alerts/stream`, { headers, signal: abort.signal });
  const stream: SseStream = { status: response.status, headers: response.headers, events: [], comments: [], ended: false, close: () => abort.abort() };
  if (!response.body) return stream;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: Partial<SseEvent> = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) stream.comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(":");
              const field = line.slice(0, colon);
              const text = line.slice(colon + 1).replace(/^ /, "");
              if (field === "id" || field === "event" || field === "data") event[field] = text;
            }
          }
          if (event.data !== undefined) stream.events.push({ id: event.id ?? "", event: event.event ?? "message", data: event.data });
        }
      }
    } catch {
      // Closed by the test.
    }
    stream.ended = true;
  })();
  return stream;
}
