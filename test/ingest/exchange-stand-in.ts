/**
 * A local stand-in for Binance's public REST API, the endpoints ccxt's `binance` calls for
 * spot market data: `/api/v3/exchangeInfo`, `/api/v3/klines` and `/api/v3/ticker/24hr`, as
 * Binance documents them (klines include the still-open bar last, with its values so far).
 * Bars are a pure function of (symbol, open time), so a test knows every value served.
 * Anything else ccxt asks for is answered 404 and recorded in `unanswered` (tests fail on it),
 * and faults can be injected: 429/418 with Retry-After, dropped connections, klines answers held
 * until the test lets them go.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Gate } from "../kit/index.js";

export const INTERVAL_MS: Readonly<Record<string, number>> = {
  "1m": 60_000,
  "5m": 300_000,
  "15m": 900_000,
  "30m": 1_800_000,
  "1h": 3_600_000,
  "4h": 14_400_000,
  "1d": 86_400_000,
};

export interface StandInPair {
  base: string;
  quote: string;
  /** Open time of the first bar the exchange has (default: forever). */
  listed?: number;
  /** `TRADING` (default) or a halt such as `BREAK`. */
  status?: string;
  /** 24 h quote volume reported by the ticker. */
  quoteVolume?: number;
  /** Open times of bars the exchange never had (its own outages). */
  holes?: readonly number[];
}

/** A bar's final values as Binance writes them: decimal text. */
export interface ServedBar {
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** One answered klines request. */
export interface KlinesServed {
  symbol: string;
  interval: string;
  startTime: number;
  limit: number;
  /** Open times of the closed bars in the answer. */
  closed: number[];
  /** Open time of the still-open bar in the answer, if any. */
  open: number | undefined;
}

function hash(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

/** The final values of `symbol`'s bar opening at `time`: deterministic, positive, consistent (low ≤ open, close ≤ high). */
export function finalBar(symbol: string, time: number): ServedBar {
  const base = 10 + (hash(symbol) % 50_000) / 10;
  const h = hash(`${symbol}|${time}`);
  const open = base + (h % 10_000) / 100;
  const close = base + ((h >>> 7) % 10_000) / 100;
  const high = Math.max(open, close) + ((h >>> 3) % 500) / 100;
  const low = Math.min(open, close) - ((h >>> 11) % 500) / 100;
  const volume = ((h >>> 5) % 9_000_000) / 1000;
  return { open: open.toFixed(2), high: high.toFixed(2), low: low.toFixed(2), close: close.toFixed(2), volume: volume.toFixed(3) };
}

/** The values of the bar still open: different from its final ones, so a test sees if one was stored. */
export function partialBar(symbol: string, time: number): ServedBar {
  const bar = finalBar(symbol, time);
  return { open: bar.open, high: bar.open, low: bar.open, close: bar.open, volume: "0.001" };
}

export class ExchangeStandIn {
  readonly pairs: Map<string, StandInPair & { symbol: string }>;
  readonly requests: string[] = [];
  readonly unanswered: string[] = [];
  readonly klines: KlinesServed[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private faults: { kind: "status"; status: number; retryAfter?: string } | { kind: "drop" } | { kind: "html" } | { kind: "huge"; bytes: number } | { kind: "hang" } | undefined;
  private faultCount = 0;
  /** Answer every bar from startTime to the open one whatever the limit (as Kraken does), not Binance's `limit`. */
  ignoreLimit = false;
  /**
   * A slow exchange, slow when the test says: each klines answer, once built, waits here until
   * the test lets it through ({@link Gate.pass}, {@link Gate.open}). None: answered at once.
   */
  klinesGate: Gate | undefined;
  /** Told after each klines answer is sent. */
  onKlines: ((served: KlinesServed) => void) | undefined;
  url = "";

  constructor(
    pairs: readonly StandInPair[],
    /** The exchange's clock: which bars exist and which one is open. */
    readonly now: () => number = () => Date.now(),
  ) {
    this.pairs = new Map(pairs.map((p) => [`${p.base}${p.quote}`, { ...p, symbol: `${p.base}${p.quote}` }]));
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => void this.answer(request, response));
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

  /** The next `count` requests answer `status` (429 or 418) with `Retry-After: retryAfter`. */
  limitNext(count: number, status: 429 | 418, retryAfter?: string): void {
    this.faults = { kind: "status", status, retryAfter };
    this.faultCount = count;
  }

  /** The next `count` requests lose their connection before any answer. */
  dropNext(count: number): void {
    this.faults = { kind: "drop" };
    this.faultCount = count;
  }

  /** The next `count` requests answer 200 with an HTML page (a proxy's error page), not JSON. */
  htmlNext(count: number): void {
    this.faults = { kind: "html" };
    this.faultCount = count;
  }

  /** The next request answers 200 with a JSON array of `bytes` bytes and more (a hostile mirror). */
  hugeNext(bytes: number): void {
    this.faults = { kind: "huge", bytes };
    this.faultCount = 1;
  }

  /** The next `count` requests are never answered. */
  hangNext(count: number): void {
    this.faults = { kind: "hang" };
    this.faultCount = count;
  }

  /** Every bar of `symbol` the exchange has in [from, to] (open times), closed at `now`. */
  closedTimes(symbol: string, interval: string, from: number, to: number, now = this.now()): number[] {
    const dur = INTERVAL_MS[interval]!;
    const pair = this.pairs.get(symbol)!;
    const times: number[] = [];
    for (let t = Math.ceil(Math.max(from, pair.listed ?? -Infinity) / dur) * dur; t <= to && t + dur <= now; t += dur) {
      if (pair.holes?.includes(t)) continue;
      times.push(t);
    }
    return times;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://x");
    this.requests.push(`${request.method} ${url.pathname}${url.search}`);
    if (this.faults && this.faultCount > 0) {
      this.faultCount--;
      const fault = this.faults;
      if (this.faultCount === 0) this.faults = undefined;
      if (fault.kind === "drop") {
        request.socket.destroy();
        return;
      }
      if (fault.kind === "hang") return;
      if (fault.kind === "html") {
        response.writeHead(200, { "content-type": "text/html" }).end("<!DOCTYPE html><html><head><title>Attention Required!</title></head><body>blocked</body></html>");
        return;
      }
      if (fault.kind === "huge") {
        response.writeHead(200, { "content-type": "application/json" });
        response.on("error", () => {});
        const row = Buffer.from(`[${Date.now()},"1","1","1","1","1",0,"0",1,"0","0","0"],`.repeat(1000));
        let sent = 0;
        const pump = (): void => {
          if (sent === 0) response.write("[");
          while (sent < fault.bytes) {
            sent += row.length;
            if (!response.write(row)) {
              response.once("drain", pump);
              return;
            }
          }
          response.end("[]]");
        };
        pump();
        return;
      }
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      response.writeHead(fault.status, headers).end(JSON.stringify({ code: -1003, msg: "Too many requests; current limit of IP is 6000 request weight per 1 MINUTE." }));
      return;
    }
    if (request.method === "GET" && url.pathname === "/api/v3/exchangeInfo") return this.json(response, this.exchangeInfo());
    if (request.method === "GET" && url.pathname === "/api/v3/ticker/24hr") return this.json(response, this.tickers(url.searchParams));
    if (request.method === "GET" && url.pathname === "/api/v3/klines") {
      const body = this.klinesAnswer(url.searchParams);
      if (typeof body === "string") {
        response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ code: -1121, msg: body }));
        return;
      }
      await this.klinesGate?.wait();
      if (response.destroyed || request.socket.destroyed) return;
      this.json(response, body.rows);
      this.klines.push(body.served);
      this.onKlines?.(body.served);
      return;
    }
    this.unanswered.push(`${request.method} ${url.pathname}${url.search}`);
    response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ code: -1, msg: "not served by the stand-in" }));
  }

  private json(response: ServerResponse, body: unknown): void {
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  private exchangeInfo(): unknown {
    return {
      timezone: "UTC",
      serverTime: this.now(),
      rateLimits: [{ rateLimitType: "REQUEST_WEIGHT", interval: "MINUTE", intervalNum: 1, limit: 6000 }],
      exchangeFilters: [],
      symbols: [...this.pairs.values()].map((p) => ({
        symbol: p.symbol,
        status: p.status ?? "TRADING",
        baseAsset: p.base,
        baseAssetPrecision: 8,
        quoteAsset: p.quote,
        quotePrecision: 8,
        quoteAssetPrecision: 8,
        orderTypes: ["LIMIT", "MARKET"],
        icebergAllowed: true,
        ocoAllowed: true,
        isSpotTradingAllowed: true,
        isMarginTradingAllowed: false,
        filters: [
          { filterType: "PRICE_FILTER", minPrice: "0.01000000", maxPrice: "1000000.00000000", tickSize: "0.01000000" },
          { filterType: "LOT_SIZE", minQty: "0.00001000", maxQty: "9000.00000000", stepSize: "0.00001000" },
        ],
        permissions: ["SPOT"],
        permissionSets: [["SPOT"]],
      })),
    };
  }

  private tickers(params: URLSearchParams): unknown {
    const wanted = params.get("symbols");
    const only = wanted === null ? undefined : new Set(JSON.parse(wanted) as string[]);
    const now = this.now();
    return [...this.pairs.values()]
      .filter((p) => only === undefined || only.has(p.symbol))
      .map((p) => {
        const last = finalBar(p.symbol, Math.floor(now / 60_000) * 60_000 - 60_000).close;
        return {
          symbol: p.symbol,
          priceChange: "0.00",
          priceChangePercent: "0.000",
          weightedAvgPrice: last,
          prevClosePrice: last,
          lastPrice: last,
          lastQty: "0.1",
          bidPrice: last,
          bidQty: "1",
          askPrice: last,
          askQty: "1",
          openPrice: last,
          highPrice: last,
          lowPrice: last,
          volume: "1000",
          quoteVolume: String(p.quoteVolume ?? 0),
          openTime: now - 86_400_000,
          closeTime: now,
          firstId: 1,
          lastId: 2,
          count: 2,
        };
      });
  }

  private klinesAnswer(params: URLSearchParams): { rows: unknown[]; served: KlinesServed } | string {
    const symbol = params.get("symbol") ?? "";
    const interval = params.get("interval") ?? "";
    const pair = this.pairs.get(symbol);
    if (!pair) return "Invalid symbol.";
    const dur = INTERVAL_MS[interval];
    if (dur === undefined) return "Invalid interval.";
    const limit = Math.min(1000, Number(params.get("limit") ?? 500));
    const now = this.now();
    const openBar = Math.floor(now / dur) * dur;
    const start = params.has("startTime") ? Number(params.get("startTime")) : openBar - (limit - 1) * dur;
    const end = params.has("endTime") ? Number(params.get("endTime")) : Infinity;
    const rows: unknown[] = [];
    const served: KlinesServed = { symbol, interval, startTime: start, limit, closed: [], open: undefined };
    for (let t = Math.ceil(Math.max(start, pair.listed ?? -Infinity) / dur) * dur; t <= openBar && t <= end && (this.ignoreLimit || rows.length < limit); t += dur) {
      if (pair.holes?.includes(t)) continue;
      const bar = t === openBar ? partialBar(symbol, t) : finalBar(symbol, t);
      rows.push([t, bar.open, bar.high, bar.low, bar.close, bar.volume, t + dur - 1, "0", 10, "0", "0", "0"]);
      if (t === openBar) served.open = t;
      else served.closed.push(t);
    }
    return { rows, served };
  }
}
