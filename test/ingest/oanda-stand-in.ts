/**
 * A local stand-in for OANDA's v20 REST API, the one endpoint a sync calls:
 * `GET /v3/instruments/{instrument}/candles`, as OANDA documents it — `Authorization: Bearer`,
 * `price` B/A/M, `granularity` M1…H4 (H4 aligned on 17:00 New York), `from`/`to` in RFC 3339,
 * `count` up to 5,000 (more is a 400, as the real API answers), `includeFirst`, candles with
 * `complete`, string prices and RFC 3339 times with nanoseconds.
 *
 * Candles exist while the FX market trades (Sunday 17:00 to Friday 17:00 New York, read with
 * `Intl` here, sharing no code with src/) and are a pure function of (instrument, side, time),
 * so a test knows every value served. Faults can be injected: statuses with Retry-After, HTML
 * and malformed bodies, a huge body, a server that never answers, a candle left incomplete.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export const GRANULARITY_MS: Readonly<Record<string, number>> = { M1: 60_000, M5: 300_000, M15: 900_000, M30: 1_800_000, H1: 3_600_000, H4: 14_400_000 };

const newYork = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hourCycle: "h23", weekday: "short", hour: "2-digit", minute: "2-digit" });
const wallCache = new Map<number, { weekday: string; hour: number }>();

/** New York's weekday and hour at `t` (cached per minute). */
function newYorkWall(t: number): { weekday: string; hour: number } {
  const key = Math.floor(t / 60_000);
  let wall = wallCache.get(key);
  if (!wall) {
    const parts = Object.fromEntries(newYork.formatToParts(t).map((p) => [p.type, p.value]));
    wall = { weekday: parts.weekday!, hour: Number(parts.hour) };
    if (wallCache.size > 2_000_000) wallCache.clear();
    wallCache.set(key, wall);
  }
  return wall;
}

/** True while the market trades: from Sunday 17:00 to Friday 17:00 New York. */
export function marketOpen(t: number): boolean {
  const { weekday, hour } = newYorkWall(t);
  if (weekday === "Sat") return false;
  if (weekday === "Sun") return hour >= 17;
  if (weekday === "Fri") return hour < 17;
  return true;
}

/** True when a candle of `granularity` opens at `t` (`allWeek`: as if the market never closed). */
export function candleOpens(t: number, granularity: string, allWeek = false): boolean {
  const dur = GRANULARITY_MS[granularity]!;
  if (granularity === "H4") return t % 3_600_000 === 0 && newYorkWall(t).hour % 4 === 1 && (allWeek || marketOpen(t));
  return t % dur === 0 && (allWeek || marketOpen(t));
}

/** Open time of the next candle after `t`, the end of the candle opening at `t`: H4 candles close at the next H4 boundary. */
function candleEnd(t: number, granularity: string): number {
  if (granularity !== "H4") return t + GRANULARITY_MS[granularity]!;
  let u = t + 3_600_000;
  while (newYorkWall(u).hour % 4 !== 1) u += 3_600_000;
  return u;
}

function hash(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

export type Side = "bid" | "ask" | "mid";

/** Decimals OANDA quotes a pair in: 3 for yen pairs, 5 for the others; mid one more. */
export function decimals(instrument: string, side: Side): number {
  return (instrument.endsWith("_JPY") ? 3 : 5) + (side === "mid" ? 1 : 0);
}

/** A candle's prices as OANDA writes them, for one side. */
export interface ServedPrices {
  o: string;
  h: string;
  l: string;
  c: string;
}

/** The values of `instrument`'s candle at `time` on `side`: bid from a hash, ask 2 pips above, mid their mean. */
export function servedPrices(instrument: string, granularity: string, time: number, side: Side): ServedPrices {
  const jpy = instrument.endsWith("_JPY");
  const pip = jpy ? 0.01 : 0.0001;
  const base = (jpy ? 100 : 0.7) + (hash(instrument) % 1000) * (jpy ? 0.1 : 0.001);
  const h = hash(`${instrument}|${granularity}|${time}`);
  const open = base + (h % 2000) * pip;
  const close = base + ((h >>> 9) % 2000) * pip;
  const high = Math.max(open, close) + ((h >>> 5) % 30) * pip;
  const low = Math.min(open, close) - ((h >>> 13) % 30) * pip;
  const scale = jpy ? 1000 : 100000;
  // Integers of the quote's smallest unit: bid, ask 2 pips above, mid their mean (half a unit shows as one more decimal).
  const units = [open, high, low, close].map((x) => Math.round(x * scale));
  const spread = Math.round(2 * pip * scale);
  const d = decimals(instrument, side);
  const text = (u: number): string => (side === "mid" ? ((u + (u + spread)) / 2 / scale).toFixed(d) : ((side === "bid" ? u : u + spread) / scale).toFixed(d));
  const [o, hi, l, c] = units.map(text);
  return { o: o!, h: hi!, l: l!, c: c! };
}

export function servedVolume(instrument: string, time: number): number {
  return 1 + (hash(`${instrument}|v|${time}`) % 500);
}

/** RFC 3339 with nanoseconds, as OANDA writes times. */
export function oandaTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z");
}

function parseTime(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  return Date.parse(text.replace(/\.(\d{3})\d*Z$/, ".$1Z"));
}

/** One answered candles request. */
export interface CandlesServed {
  instrument: string;
  params: Record<string, string>;
  /** Open times of the complete candles in the answer. */
  complete: number[];
}

type Fault =
  | { kind: "status"; status: number; retryAfter?: string; body?: string }
  | { kind: "html" }
  | { kind: "malformed" }
  | { kind: "huge"; bytes: number }
  | { kind: "hang" }
  | { kind: "drop" };

export class OandaStandIn {
  readonly served: CandlesServed[] = [];
  readonly requests: string[] = [];
  /** Requests that came while a fault was armed, by kind. */
  readonly faulted: string[] = [];
  /** Open times left `complete: false` although closed (OANDA's lag closing a candle). */
  readonly incomplete = new Set<number>();
  /** Candles on weekends too: for tests that run on the wall clock whatever the day. */
  allWeek = false;
  /** Open time of the first candle OANDA has of every instrument. */
  listed = Date.UTC(2020, 0, 1);
  /** Told when a request is received (before it is answered). */
  onRequest: ((instrument: string) => void) | undefined;
  /** Told after a candles answer is sent. */
  onCandles: ((served: CandlesServed) => void) | undefined;
  url = "";
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private faults: Fault[] = [];
  private readonly hung: ServerResponse[] = [];

  constructor(
    readonly token: string,
    /** The server's clock: which candles exist and which is still open. */
    readonly now: () => number = () => Date.now(),
  ) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => this.answer(request, response));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next requests answer these faults, one each, in order. */
  failNext(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** Every complete candle of an instrument (all trade the same hours) with an open time in [from, to], as served at `now`. */
  candleTimes(_instrument: string, granularity: string, from: number, to: number, now = this.now()): number[] {
    const times: number[] = [];
    const step = granularity === "H4" ? 3_600_000 : GRANULARITY_MS[granularity]!;
    for (let t = Math.ceil(Math.max(from, this.listed) / step) * step; t <= to; t += step) {
      if (candleOpens(t, granularity, this.allWeek) && candleEnd(t, granularity) <= now && !this.incomplete.has(t)) times.push(t);
    }
    return times;
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://x");
    this.requests.push(`${request.method} ${url.pathname}${url.search}`);
    const match = /^\/v3\/instruments\/([A-Z]{3}_[A-Z]{3})\/candles$/.exec(url.pathname);
    this.onRequest?.(match?.[1] ?? "");
    const fault = this.faults.shift();
    if (fault) {
      this.faulted.push(fault.kind);
      switch (fault.kind) {
        case "status": {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
          response.writeHead(fault.status, headers).end(fault.body ?? JSON.stringify({ errorMessage: "Requests are being rate limited" }));
          return;
        }
        case "html":
          response.writeHead(200, { "content-type": "text/html" }).end("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>");
          return;
        case "malformed":
          response.writeHead(200, { "content-type": "application/json" }).end('{"instrument":"EUR_USD","granularity":"H1","candles":[{"complete":true,');
          return;
        case "huge": {
          // A valid-looking start, then more than the sync's bound, written as the reader drains it.
          response.writeHead(200, { "content-type": "application/json" });
          response.write('{"candles":[');
          const chunk = Buffer.alloc(64 * 1024, " ");
          let sent = 0;
          const pump = (): void => {
            while (sent < fault.bytes) {
              sent += chunk.length;
              if (!response.write(chunk)) {
                response.once("drain", pump);
                return;
              }
            }
            response.end("]}");
          };
          response.on("error", () => {});
          pump();
          return;
        }
        case "hang":
          this.hung.push(response);
          return;
        case "drop":
          request.socket.destroy();
          return;
      }
    }
    if (request.headers.authorization !== `Bearer ${this.token}`) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ errorMessage: "Insufficient authorization to perform request." }));
      return;
    }
    if (request.method !== "GET" || !match) {
      response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ errorMessage: "The requested resource was not found" }));
      return;
    }
    const body = this.candles(match[1]!, url.searchParams);
    if (typeof body === "string") {
      response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ errorMessage: body }));
      return;
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body.json));
    this.served.push(body.served);
    this.onCandles?.(body.served);
  }

  private candles(instrument: string, params: URLSearchParams): { json: unknown; served: CandlesServed } | string {
    const granularity = params.get("granularity") ?? "S5";
    if (!(granularity in GRANULARITY_MS)) return `Invalid value specified for 'granularity'`;
    const price = params.get("price") ?? "M";
    if (!/^[BAM]+$/.test(price)) return `Invalid value specified for 'price'`;
    const hasFrom = params.has("from");
    const hasTo = params.has("to");
    const hasCount = params.has("count");
    if (hasFrom && hasTo && hasCount) return "Count should not be specified if both the start and end parameters are provided";
    const count = Number(params.get("count") ?? 500);
    if (!Number.isInteger(count) || count < 1) return `Invalid value specified for 'count'`;
    if (count > 5000) return "Invalid value specified for 'count'. Maximum value is 5000.";
    const now = this.now();
    const dur = GRANULARITY_MS[granularity]!;
    const step = granularity === "H4" ? 3_600_000 : dur;
    const exists = (t: number): boolean => t >= this.listed && candleOpens(t, granularity, this.allWeek) && t <= now;
    const times: number[] = [];
    if (hasFrom) {
      const from = parseTime(params.get("from")!);
      const includeFirst = params.get("includeFirst") !== "false";
      const to = hasTo ? parseTime(params.get("to")!) : Infinity;
      if (hasTo && (to - from) / dur > 5000) return "Maximum value for 'count' exceeded";
      for (let t = Math.ceil(from / step) * step; t <= now && t < to && (hasTo || times.length < count); t += step) {
        if (t === from && !includeFirst) continue;
        if (exists(t)) times.push(t);
      }
    } else {
      const to = hasTo ? parseTime(params.get("to")!) : now;
      // The `count` candles before `to`, oldest first.
      for (let t = Math.ceil(to / step) * step - step; times.length < count && t >= this.listed; t -= step) {
        if (t < to && exists(t)) times.unshift(t);
      }
    }
    const served: CandlesServed = { instrument, params: Object.fromEntries(params), complete: [] };
    const candles = times.map((t) => {
      const complete = candleEnd(t, granularity) <= now && !this.incomplete.has(t);
      if (complete) served.complete.push(t);
      const candle: Record<string, unknown> = { complete, volume: servedVolume(instrument, t), time: oandaTime(t) };
      if (price.includes("B")) candle.bid = servedPrices(instrument, granularity, t, "bid");
      if (price.includes("A")) candle.ask = servedPrices(instrument, granularity, t, "ask");
      if (price.includes("M")) candle.mid = servedPrices(instrument, granularity, t, "mid");
      return candle;
    });
    return { json: { instrument, granularity, candles }, served };
  }
}
