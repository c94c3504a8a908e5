/**
 * OANDA's v20 REST API as a {@link SyncSource} (decisions §12): `GET
 * /v3/instruments/{EUR_USD}/candles` with plain `fetch` (the published `@oanda/v20` client is
 * unmaintained). Candles are paged by count, as the API allows: forward `from` the last stored
 * bar with `includeFirst=false` and up to 5,000 candles, so a page skips the weekend instead of
 * spending its count on it; backward `to` the oldest stored bar with up to 5,000 before it.
 * Only candles marked `complete: true` are written. Prices come as decimal text and times as
 * RFC 3339 with nanoseconds; both are read exactly. Days and h4 bars are aligned on 17:00 New
 * York (`dailyAlignment=17`, `alignmentTimezone=America/New_York`), the FOREX session of §2.
 *
 * The token is read from `OANDA_API_TOKEN` by the command and never appears in a message.
 */
import type { Candle, PageAnswer, PageRequest, SyncSource, SyncTimeframe } from "./sync.js";
import { FeedClient, type FeedClientOptions, FeedRequestError, parseJsonReply, snippet } from "./sync-http.js";
import { FOREX_MARKET, type PriceSide } from "./sync-forex.js";

/** OANDA's hosts: the practice (demo) accounts' and the live accounts'. */
export const OANDA_PRACTICE_URL = "https://api-fxpractice.oanda.com";
export const OANDA_LIVE_URL = "https://api-fxtrade.oanda.com";

/** The environment variable the token is read from (never a flag: flags end up in shell history). */
export const OANDA_TOKEN_VARIABLE = "OANDA_API_TOKEN";

/** The most candles one request may ask for: the API refuses a larger `count`. */
export const OANDA_MAX_COUNT = 5000;

/** OANDA's limit per address: requests beyond it are answered 429. */
export const OANDA_REQUESTS_PER_SECOND = 120;

const GRANULARITY: Readonly<Record<Exclude<SyncTimeframe, "d">, string>> = { m1: "M1", m5: "M5", m15: "M15", m30: "M30", h1: "H1", h4: "H4" };
const PRICE_PARAM: Readonly<Record<PriceSide, string>> = { bid: "B", ask: "A", mid: "M" };

export interface OandaOptions extends FeedClientOptions {
  token: string;
  /** The API's base URL: {@link OANDA_PRACTICE_URL} (default), {@link OANDA_LIVE_URL}, or a mirror or stand-in. */
  apiUrl?: string;
  price: PriceSide;
}

/** One candle as the API writes it (only the fields read). */
interface OandaCandle {
  time: string;
  complete: boolean;
  volume: number;
  bid?: OandaPrices;
  ask?: OandaPrices;
  mid?: OandaPrices;
}

interface OandaPrices {
  o: string;
  h: string;
  l: string;
  c: string;
}

/** The source's spelling of a pair: `EUR_USD`. */
export function oandaInstrument(base: string, quote: string): string {
  return `${base}_${quote}`;
}

export class OandaSource implements SyncSource {
  readonly id = "oanda";
  readonly market = FOREX_MARKET;
  readonly price: PriceSide;
  /** All 28 majors in one batch: their requests are spaced by the 120/s limit anyway. */
  readonly batchSymbols = 28;
  private readonly client: FeedClient;
  private readonly base: string;

  constructor(private readonly options: OandaOptions) {
    this.price = options.price;
    this.base = (options.apiUrl ?? OANDA_PRACTICE_URL).replace(/\/+$/, "");
    this.client = new FeedClient("oanda", { perSecond: OANDA_REQUESTS_PER_SECOND, ...options });
  }

  requestsMade(): number {
    return this.client.requests;
  }

  async page(request: PageRequest): Promise<PageAnswer> {
    const { pair, grid, span, timeframe } = request;
    if (timeframe === "d") throw new FeedRequestError("client", "oanda syncs m1 to h4; days are derived on the 17:00 New York session");
    const count = Math.min(OANDA_MAX_COUNT, Math.round((span.to - span.from) / grid.duration) + 1);
    const params = new URLSearchParams({ price: PRICE_PARAM[this.price], granularity: GRANULARITY[timeframe], count: String(count), dailyAlignment: "17", alignmentTimezone: "America/New_York" });
    if (request.direction === "forward") {
      // After the bar before the stretch: the last stored one when following (§12).
      params.set("from", rfc3339(grid.previous(span.from)));
      params.set("includeFirst", "false");
    } else {
      params.set("to", rfc3339(grid.close(span.to)));
    }
    const url = `${this.base}/v3/instruments/${encodeURIComponent(pair.symbol)}/candles?${params}`;
    const what = `${pair.symbol} ${timeframe} candles`;
    const candles = await this.client.run(what, async (signal) => {
      const reply = await this.client.get(url, { Authorization: `Bearer ${this.options.token}`, "Accept-Datetime-Format": "RFC3339" }, signal).catch((error: unknown) => {
        if (error instanceof FeedRequestError && error.kind === "refused") {
          throw new FeedRequestError("refused", `OANDA refused the token in ${OANDA_TOKEN_VARIABLE} (${error.message}); check it is a v20 API token of a ${this.base === OANDA_LIVE_URL ? "live" : "practice"} account${this.base === OANDA_LIVE_URL ? "" : " (--live for a live account's)"}`);
        }
        throw error;
      });
      if (reply.status !== 200) throw new FeedRequestError("client", `OANDA refused the request for ${what} (HTTP ${reply.status}: ${errorMessage(reply.body)})`, undefined, reply.status);
      return readCandles(parseJsonReply(reply, "OANDA's candles JSON"), this.price);
    });
    const firstIncomplete = candles.find((c) => !c.complete)?.time;
    const complete = candles.filter((c) => c.complete && (firstIncomplete === undefined || c.time < firstIncomplete)).map((c) => c.candle);
    if (request.direction === "forward") {
      // A bar not yet complete at OANDA is asked for again; a short page: nothing later yet.
      const reached = candles.reduce((max, c) => Math.max(max, c.time), -Infinity);
      const to = firstIncomplete !== undefined ? grid.previous(firstIncomplete) : candles.length < count ? Infinity : reached;
      return { candles: complete, covered: { from: span.from, to } };
    }
    // Fewer than asked before `to`: the instrument's history at OANDA ends there.
    const oldest = candles.reduce((min, c) => Math.min(min, c.time), Infinity);
    return { candles: complete, covered: { from: candles.length < count ? -Infinity : oldest, to: span.to } };
  }
}

/** The candles of a reply, or a bad reply naming what is wrong (the API's format changed, or this is not OANDA). */
function readCandles(body: unknown, price: PriceSide): { time: number; complete: boolean; candle: Candle }[] {
  const list = (body as { candles?: unknown } | null)?.candles;
  if (!Array.isArray(list)) throw new FeedRequestError("bad-reply", "OANDA's candles JSON expected, a reply without a `candles` list came");
  return list.map((raw: OandaCandle, i) => {
    const time = parseRfc3339(raw?.time);
    const prices = raw?.[price];
    const numbers = prices ? [prices.o, prices.h, prices.l, prices.c].map(decimal) : [];
    if (time === undefined || typeof raw.complete !== "boolean" || numbers.length !== 4 || numbers.some((n) => n === undefined)) {
      throw new FeedRequestError("bad-reply", `OANDA's candle ${i + 1} is not in the v20 format (time, complete, ${price}.o/h/l/c as decimal text): ${JSON.stringify(raw).slice(0, 120)}`);
    }
    const volume = typeof raw.volume === "number" && Number.isFinite(raw.volume) ? raw.volume : 0;
    return { time, complete: raw.complete, candle: [time, numbers[0]!, numbers[1]!, numbers[2]!, numbers[3]!, volume] as const };
  });
}

function decimal(text: unknown): number | undefined {
  if (typeof text !== "string" || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** RFC 3339 as OANDA writes it: `2025-03-10T21:00:00.000000000Z` (nanoseconds; whole ms kept). */
export function parseRfc3339(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z$/.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = ""] = match;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + Math.floor(Number(`0.${fraction || "0"}`) * 1000);
}

/** A time for the API: RFC 3339 in UTC with nanoseconds, as it writes them. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z");
}

function errorMessage(body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === "string") return parsed.errorMessage;
  } catch {
    // Not OANDA's error JSON: its start is shown instead.
  }
  return snippet(body);
}
