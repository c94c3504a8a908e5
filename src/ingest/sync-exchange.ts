/**
 * A ccxt exchange as a {@link SyncSource} of `xql data sync` (decisions §6): its spot markets,
 * 24 h quote volumes, and pages of OHLCV candles, through the `ccxt` library (an optional peer
 * dependency, loaded on first use). ccxt's own rate limiter spaces the requests
 * (`enableRateLimit`); every HTTP request goes through the sync's one {@link FeedClient} (ccxt's
 * `fetchImplementation`), so replies are bounded, a 429/418 pauses every request until its
 * `Retry-After`, a reply that is not JSON is a failed request, and a stop request aborts what
 * is in flight.
 */
import { redactUrl } from "../redact.js";
import type { PageAnswer, PageRequest, SyncSource, SyncTimeframe } from "./sync.js";
import { FeedClient, type FeedClientOptions, FeedRequestError, boundedFetch, parseJsonReply, throwForStatus } from "./sync-http.js";
import { XqlDataError, messageOf } from "../errors.js";

export { retryAfterMs } from "./sync-http.js";

/** ccxt's names of the timeframes: the exchanges' own `1m`, `4h`, `1d`. */
const CCXT_TIMEFRAMES: Readonly<Record<SyncTimeframe, string>> = { m1: "1m", m5: "5m", m15: "15m", m30: "30m", h1: "1h", h4: "4h", d: "1d" };

/** A spot market: ccxt's unified symbol (`BTC/USDT`), its parts, and whether it trades. */
export interface SpotMarket {
  symbol: string;
  base: string;
  quote: string;
  active: boolean;
}

/** What a sync needs of an exchange: a source of candles, and its markets for choosing the pairs. */
export interface Exchange extends SyncSource {
  /** The most candles one request returns. */
  readonly pageLimit: number;
  /** Every spot market. */
  spotMarkets(): Promise<SpotMarket[]>;
  /** True when the exchange reports 24 h volumes for all its tickers at once. */
  readonly hasTickers: boolean;
  /** The 24 h quote volume of each symbol it reports (base volume × last price where it gives no quote volume). */
  quoteVolumes(): Promise<Map<string, number>>;
}

/** ccxt is not installed: `npm install xql` leaves it out (it is 60 MB a library user does not need). */
export class MissingCcxtError extends XqlDataError<"package-missing"> {
  override readonly name: string = "MissingCcxtError";
  constructor() {
    super("package-missing", { name: "ccxt" });
  }
}

/** The exchange id is not one ccxt knows; `suggestion` is the closest that is. */
export class UnknownExchangeError extends XqlDataError<"feed-unknown-exchange"> {
  override readonly name: string = "UnknownExchangeError";
  constructor(
    readonly exchange: string,
    readonly known: readonly string[],
  ) {
    super("feed-unknown-exchange", { exchange });
  }
}

export interface OpenExchangeOptions extends FeedClientOptions {
  /** The exchange's REST base URL instead of its own (a regional mirror, a proxy, a test stand-in). */
  apiUrl?: string;
}

type CcxtModule = typeof import("ccxt");
type CcxtExchange = InstanceType<CcxtModule["Exchange"]>;

/** Loads ccxt, or says it is missing. */
export async function loadCcxt(): Promise<CcxtModule> {
  try {
    return await import("ccxt");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new MissingCcxtError();
    throw error;
  }
}

/**
 * Opens `id` (a ccxt exchange id) for public spot data: the rate limiter on, every market type
 * but spot switched off where the exchange loads them (Binance would otherwise also ask its
 * futures hosts), and every REST URL moved to `apiUrl` when given (its path kept).
 */
export async function openExchange(id: string, options: OpenExchangeOptions = {}): Promise<Exchange> {
  const ccxt = await loadCcxt();
  // The named export maps each exchange id to its class.
  const classes = ccxt.exchanges as unknown as Record<string, new (config: object) => CcxtExchange>;
  if (!Object.hasOwn(classes, id)) throw new UnknownExchangeError(id, Object.keys(classes));
  const Constructor = classes[id]!;
  const exchange = new Constructor({ enableRateLimit: true, timeout: options.timeoutMs ?? 30_000 });
  const client = new FeedClient(id, options);
  throughClient(exchange, client);
  spotOnly(exchange);
  if (options.apiUrl !== undefined) moveApi(exchange, options.apiUrl);
  if (!exchange.has.fetchOHLCV) throw new XqlDataError("feed-no-ohlcv", { exchange: id });
  return new CcxtSpot(exchange, ccxt, client, options.apiUrl);
}

/** Turns off every market type but spot in the options ccxt's exchanges read. */
function spotOnly(exchange: CcxtExchange): void {
  const options = exchange.options as Record<string, unknown>;
  const fetchMarkets = options.fetchMarkets;
  if (Array.isArray(fetchMarkets)) options.fetchMarkets = ["spot"];
  else if (fetchMarkets !== null && typeof fetchMarkets === "object") {
    const types = (fetchMarkets as { types?: unknown }).types;
    if (Array.isArray(types)) options.fetchMarkets = { ...fetchMarkets, types: ["spot"] };
    else if (types !== null && typeof types === "object") {
      options.fetchMarkets = { ...fetchMarkets, types: Object.fromEntries(Object.keys(types).map((t) => [t, t === "spot"])) };
    }
  }
  if ("defaultType" in options) options.defaultType = "spot";
}

/** `--api-url` as a URL: http:// or https://, else the `feed-api-url` error saying which it is not. */
export function apiBase(apiUrl: string): URL {
  let base: URL;
  try {
    base = new URL(apiUrl);
  } catch {
    throw new XqlDataError("feed-api-url", { url: apiUrl, fault: "not-url" });
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new XqlDataError("feed-api-url", { url: apiUrl, fault: "protocol" });
  return base;
}

/** Points every REST URL of the exchange at `apiUrl`, keeping each URL's path. */
function moveApi(exchange: CcxtExchange, apiUrl: string): void {
  const base = apiBase(apiUrl);
  const prefix = base.href.replace(/\/+$/, "");
  const move = (url: string): string => url.replace(/^https?:\/\/[^/]+/, prefix);
  const walk = (node: Record<string, unknown>): void => {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === "string") node[key] = move(value);
      else if (value !== null && typeof value === "object") walk(value as Record<string, unknown>);
    }
  };
  const urls = exchange.urls as Record<string, unknown>;
  if (typeof urls.api === "string") urls.api = move(urls.api);
  else if (urls.api !== null && typeof urls.api === "object") walk(urls.api as Record<string, unknown>);
}

/**
 * Every HTTP request of the exchange through `client`'s bounds: the reply read up to its limit,
 * 429/418 and 5xx thrown as their kinds (ccxt would drop the `Retry-After`), a 200 that is not
 * JSON thrown as a bad reply (ccxt would hand the text on, and a page of HTML would parse as no
 * candles: a silent success), and the stop request aborting the request.
 */
function throughClient(exchange: CcxtExchange, client: FeedClient): void {
  const timeoutMs = client.timeoutMs;
  exchange.fetchImplementation = async (url: string, params: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => {
    await client.holdForPause();
    client.requests++;
    const signal = params.signal ? AbortSignal.any([params.signal, client.hardStop]) : client.hardStop;
    const reply = await boundedFetch(url, { method: params.method ?? "GET", headers: params.headers, body: params.body }, { signal, timeoutMs, maxBytes: client.maxReplyBytes });
    const { status } = reply;
    if (status === 429 || status === 418 || status >= 500) {
      // 401/403 stay ccxt's to explain: an exchange's public data never needs a key.
      throwForStatus(reply, client.now());
    }
    if (status === 200) parseJsonReply(reply, `${exchange.id}'s JSON`);
    const empty = status === 204 || status === 205 || status === 304 || reply.body.length === 0;
    return new Response(empty ? null : reply.body, { status, headers: reply.headers });
  };
}

class CcxtSpot implements Exchange {
  readonly id: string;
  readonly market = "CRYPTO";
  /** ccxt's candles are an exchange's trades: last prices, not a side of a quote. */
  readonly price = "trades";
  readonly pageLimit: number;
  readonly hasTickers: boolean;

  constructor(
    private readonly exchange: CcxtExchange,
    private readonly ccxt: CcxtModule,
    private readonly client: FeedClient,
    private readonly apiUrl: string | undefined,
  ) {
    this.id = exchange.id;
    const features = exchange.features as { spot?: { fetchOHLCV?: { limit?: number } } } | undefined;
    this.pageLimit = features?.spot?.fetchOHLCV?.limit ?? 500;
    this.hasTickers = exchange.has.fetchTickers === true;
  }

  requestsMade(): number {
    return this.client.requests;
  }

  async spotMarkets(): Promise<SpotMarket[]> {
    const markets = await this.request("loading markets", () => this.exchange.loadMarkets());
    return Object.values(markets)
      .filter((m): m is NonNullable<typeof m> => m !== undefined && m.spot === true)
      .map((m) => ({ symbol: m.symbol, base: m.base, quote: m.quote, active: m.active !== false }));
  }

  async quoteVolumes(): Promise<Map<string, number>> {
    const tickers = await this.request("loading 24 h tickers", () => this.exchange.fetchTickers());
    const volumes = new Map<string, number>();
    for (const ticker of Object.values(tickers)) {
      const quote = ticker.quoteVolume ?? (ticker.baseVolume !== undefined && ticker.last !== undefined ? ticker.baseVolume * ticker.last : undefined);
      if (typeof quote === "number" && Number.isFinite(quote) && ticker.symbol !== undefined) volumes.set(ticker.symbol, quote);
    }
    return volumes;
  }

  /**
   * ccxt pages by count: up to `limit` candles from `since`, holes skipped. Forward, a short page
   * means the exchange has nothing later yet; backward, a page with no candle in its stretch
   * means the pair's history (its listing) ends there.
   */
  async page(request: PageRequest): Promise<PageAnswer> {
    const { span, grid, pair, timeframe } = request;
    const dur = grid.duration;
    const since = request.direction === "forward" ? span.from : Math.max(span.from, span.to - (this.pageLimit - 1) * dur);
    const limit = request.direction === "forward" ? Math.min(this.pageLimit, (span.to - span.from) / dur + 1) : (span.to - since) / dur + 1;
    const rows = await this.request(`${pair.symbol} ${timeframe} candles`, () => this.exchange.fetchOHLCV(pair.symbol, CCXT_TIMEFRAMES[timeframe], since, limit));
    const candles = rows.map((r) => [Number(r[0]), Number(r[1]), Number(r[2]), Number(r[3]), Number(r[4]), Number(r[5] ?? 0)] as const);
    if (request.direction === "forward") {
      const reached = candles.reduce((max, c) => Math.max(max, c[0]), -Infinity);
      return { candles, covered: { from: span.from, to: candles.length < limit ? Infinity : reached } };
    }
    const any = candles.some((c) => c[0] >= since && c[0] <= span.to);
    return { candles, covered: { from: any ? since : -Infinity, to: span.to } };
  }

  /** One ccxt call through the client's retries, with ccxt's errors read as the client's kinds. */
  private request<T>(what: string, call: () => Promise<T>): Promise<T> {
    return this.client.run(what, async () => {
      try {
        return await call();
      } catch (error) {
        throw this.translate(error);
      }
    });
  }

  private translate(error: unknown): unknown {
    if (error instanceof FeedRequestError) return error;
    const message = this.describe(error);
    if (error instanceof this.ccxt.DDoSProtection || error instanceof this.ccxt.RateLimitExceeded) return new FeedRequestError("limited", message);
    if (error instanceof this.ccxt.NetworkError) return new FeedRequestError("network", message);
    return error;
  }

  /** The failure in a few words, without the exchange's URL (or a proxy's credentials). */
  private describe(error: unknown): string {
    const message = messageOf(error);
    const cause = /fetch failed: (.*)$|fetch failed(.*)$|(timed out)/.exec(message);
    const text = cause ? (cause[1] ?? cause[2] ?? cause[3] ?? "").replace(/^: /, "").trim() || "connection failed" : message;
    return this.apiUrl === undefined ? text : text.replaceAll(this.apiUrl, redactUrl(this.apiUrl));
  }
}
