/**
 * A local stand-in for Dukascopy's JSON data API, the candle endpoints `dukascopy-node` asks:
 * `/v1/candles/minute/{CODE}/{BID|ASK}/{y}/{m}/{d}` (a UTC day of minutes),
 * `/v1/candles/hour/{CODE}/{BID|ASK}/{y}/{m}` (a UTC month of hours) and
 * `/v1/candles/{minute|hour}/{CODE}/{BID|ASK}?from={ms}` (the bucket in progress, up to now).
 * Bodies have the layout of the recorded fixtures (`fixtures/dukascopy/`, served as they are for
 * the days they hold): a base candle, a multiplier, and delta-encoded columns, minutes without
 * trades left out as a time delta above 1 (the package fills them with flat zero-volume
 * candles). Candles exist while the FX market trades and are a pure function of (code, side,
 * time); the ask is 2 pips above the bid.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { marketOpen } from "./oanda-stand-in.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "dukascopy");
/** Days answered with a recorded body: `minute/EUR-USD/BID/2026/7/10` → its file. */
const RECORDED: Readonly<Record<string, string>> = {
  "minute/EUR-USD/BID/2026/7/10": "candles-minute-EUR-USD-BID-2026-7-10.json",
  "minute/EUR-USD/BID/2026/7/11": "candles-minute-EUR-USD-BID-2026-7-11-empty.json",
};

const MINUTE = 60_000;
const HOUR = 3_600_000;

function hash(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

/** The price step of a code: 0.001 for yen pairs, 0.00001 otherwise. */
export function multiplier(code: string): number {
  return code.endsWith("-JPY") ? 0.001 : 0.00001;
}

/** One candle in units of the multiplier. */
export interface UnitCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** True when the minute has no trade (left out of the answer; the package fills it flat). */
export function quietMinute(code: string, time: number): boolean {
  return hash(`${code}|quiet|${time}`) % 13 === 0;
}

/** The candle of `code` at `time` (a minute or an hour), in units, or undefined when there is none. */
export function unitCandle(code: string, side: "BID" | "ASK", kind: "minute" | "hour", time: number): UnitCandle | undefined {
  if (!marketOpen(time) || (kind === "minute" && quietMinute(code, time))) return undefined;
  const jpy = code.endsWith("-JPY");
  const base = jpy ? 150_000 : 110_000;
  const h = hash(`${code}|${kind}|${time}`);
  const open = base + (h % 3000);
  const close = base + ((h >>> 8) % 3000);
  const high = Math.max(open, close) + ((h >>> 4) % 40);
  const low = Math.min(open, close) - ((h >>> 12) % 40);
  const spread = side === "ASK" ? 20 : 0;
  const volume = Number((((h >>> 6) % 50_000) / 1000 + 0.01).toFixed(2));
  return { time, open: open + spread, high: high + spread, low: low + spread, close: close + spread, volume };
}

/** A candle's values as the package reads them: units × multiplier, rounded to the multiplier's decimals. */
export function priced(code: string, c: UnitCandle): { time: number; open: number; high: number; low: number; close: number; volume: number } {
  const m = multiplier(code);
  const d = code.endsWith("-JPY") ? 3 : 5;
  const p = (u: number): number => Number((u * m).toFixed(d));
  return { time: c.time, open: p(c.open), high: p(c.high), low: p(c.low), close: p(c.close), volume: c.volume };
}

/** The body of a bucket, in the API's layout. */
export function encode(code: string, start: number, shift: number, candles: readonly UnitCandle[]): unknown {
  const m = multiplier(code);
  const first = candles[0];
  const body = {
    timestamp: start,
    multiplier: m,
    open: first ? first.open * m : null,
    high: first ? first.high * m : null,
    low: first ? first.low * m : null,
    close: first ? first.close * m : null,
    shift,
    times: [] as number[],
    opens: [] as number[],
    highs: [] as number[],
    lows: [] as number[],
    closes: [] as number[],
    volumes: [] as number[],
  };
  let previous: UnitCandle | undefined;
  let at = start;
  for (const c of candles) {
    body.times.push((c.time - at) / shift);
    at = c.time;
    body.opens.push(previous ? c.open - previous.open : 0);
    body.highs.push(previous ? c.high - previous.high : 0);
    body.lows.push(previous ? c.low - previous.low : 0);
    body.closes.push(previous ? c.close - previous.close : 0);
    body.volumes.push(c.volume);
    previous = c;
  }
  return body;
}

type Fault = { kind: "format" } | { kind: "status"; status: number; retryAfter?: string } | { kind: "hang" };

export class DukascopyStandIn {
  readonly requests: string[] = [];
  url = "";
  /** The API root to give `--api-url`. */
  get root(): string {
    return `${this.url}/v1`;
  }
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private faults: Fault[] = [];
  /** ms after its close before a candle is published (Dukascopy's own lag). */
  lagMs = 0;

  constructor(readonly now: () => number = () => Date.now()) {}

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

  failNext(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** Every candle the API has of `code` with an open time in [from, to), closed at `now`, in units. */
  candles(code: string, side: "BID" | "ASK", kind: "minute" | "hour", from: number, to: number, now = this.now()): UnitCandle[] {
    const step = kind === "minute" ? MINUTE : HOUR;
    const out: UnitCandle[] = [];
    for (let t = Math.ceil(from / step) * step; t < to && t + step <= now - this.lagMs; t += step) {
      const c = unitCandle(code, side, kind, t);
      if (c) out.push(c);
    }
    return out;
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://x");
    this.requests.push(`${url.pathname}${url.search}`);
    const fault = this.faults.shift();
    if (fault?.kind === "hang") return;
    if (fault?.kind === "status") {
      const headers: Record<string, string> = { "content-type": "text/plain" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      response.writeHead(fault.status, headers).end("busy");
      return;
    }
    if (fault?.kind === "format") {
      // What a changed API could send: JSON, but not the columns the package reads.
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [[1783641600000, 1.1, 1.2, 1.0, 1.1]] }));
      return;
    }
    const match = /^\/v1\/candles\/(minute|hour)\/([A-Z]+-[A-Z]+)\/(BID|ASK)(?:\/(\d{4})\/(\d{1,2})(?:\/(\d{1,2}))?)?$/.exec(url.pathname);
    if (!match) {
      response.writeHead(404, { "content-type": "text/html" }).end("<html><body>Not found</body></html>");
      return;
    }
    const [, kind, code, side, y, m, d] = match as unknown as [string, "minute" | "hour", string, "BID" | "ASK", string?, string?, string?];
    const recorded = RECORDED[`${kind}/${code}/${side}/${y}/${m}/${d}`];
    if (recorded) {
      response.writeHead(200, { "content-type": "application/json" }).end(readFileSync(join(FIXTURES, recorded)));
      return;
    }
    const now = this.now();
    let start: number;
    let end: number;
    if (url.searchParams.has("from")) {
      start = Number(url.searchParams.get("from"));
      end = now;
    } else if (kind === "minute" && d !== undefined) {
      start = Date.UTC(Number(y), Number(m) - 1, Number(d));
      end = start + 86_400_000;
    } else if (kind === "hour" && d === undefined && m !== undefined) {
      start = Date.UTC(Number(y), Number(m) - 1, 1);
      end = Date.UTC(Number(y), Number(m), 1);
    } else {
      response.writeHead(404, { "content-type": "text/html" }).end("<html><body>Not found</body></html>");
      return;
    }
    const step = kind === "minute" ? MINUTE : HOUR;
    const candles = this.candles(code, side, kind, start, end, now);
    // The bucket in progress also holds the candle still open, with its values so far.
    if (url.searchParams.has("from")) {
      const open = Math.floor(now / step) * step;
      const partial = unitCandle(code, side, kind, open);
      if (partial && open >= start) candles.push({ ...partial, high: partial.open + 1, low: partial.open - 1, close: partial.open, volume: 0.5 });
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(encode(code, start, step, candles)));
  }
}
