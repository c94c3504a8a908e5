/**
 * An exchange as `xql data sync` sees it, through the `ccxt` library (an optional peer
 * dependency, loaded on first use): its spot markets, 24 h quote volumes, and pages of OHLCV
 * candles. ccxt's own rate limiter spaces the requests (`enableRateLimit`); on top of it, a
 * 429 or 418 pauses every request until the exchange's `Retry-After` has passed, and a
 * network failure is retried with exponential backoff, each said on one line.
 */
import { redactUrl } from "../redact.js";

/** The timeframes an exchange sync stores (a week is derived from days). */
export const SYNC_TIMEFRAMES = ["m1", "m5", "m15", "m30", "h1", "h4", "d"] as const;
export type SyncTimeframe = (typeof SYNC_TIMEFRAMES)[number];

/** ccxt's names of the timeframes: the exchanges' own `1m`, `4h`, `1d`. */
const CCXT_TIMEFRAMES: Readonly<Record<SyncTimeframe, string>> = { m1: "1m", m5: "5m", m15: "15m", m30: "30m", h1: "1h", h4: "4h", d: "1d" };

export function isSyncTimeframe(name: string): name is SyncTimeframe {
  return (SYNC_TIMEFRAMES as readonly string[]).includes(name);
}

/** A spot market: ccxt's unified symbol (`BTC/USDT`), its parts, and whether it trades. */
export interface SpotMarket {
  symbol: string;
  base: string;
  quote: string;
  active: boolean;
}

/** One candle: open time (ms), open, high, low, close, volume. */
export type Candle = readonly [number, number, number, number, number, number];

/** What a sync needs of an exchange. */
export interface Exchange {
  /** ccxt's id, such as `binance`. */
  readonly id: string;
  /** The most candles one request returns. */
  readonly pageLimit: number;
  /** Every spot market. */
  spotMarkets(): Promise<SpotMarket[]>;
  /** True when the exchange reports 24 h volumes for all its tickers at once. */
  readonly hasTickers: boolean;
  /** The 24 h quote volume of each symbol it reports (base volume × last price where it gives no quote volume). */
  quoteVolumes(): Promise<Map<string, number>>;
  /** Up to `limit` candles of `symbol` opening at or after `since`, oldest first (the last may still be open). */
  candles(symbol: string, timeframe: SyncTimeframe, since: number, limit: number): Promise<Candle[]>;
}

/** ccxt is not installed: `npm install xql` leaves it out (it is 60 MB a library user does not need). */
export class MissingCcxtError extends Error {
  override readonly name = "MissingCcxtError";
}

/** The exchange id is not one ccxt knows; `suggestion` is the closest that is. */
export class UnknownExchangeError extends Error {
  override readonly name = "UnknownExchangeError";
  constructor(
    readonly exchange: string,
    readonly known: readonly string[],
  ) {
    super(`ccxt knows no exchange '${exchange}'`);
  }
}

/** How a failed request is retried. */
export interface RetryPolicy {
  /** First wait after a network error, doubled on each attempt up to `maxDelayMs`. Default 1000. */
  baseDelayMs?: number;
  /** Longest wait between attempts. Default 60 000. */
  maxDelayMs?: number;
  /** Attempts per request before it fails. Default 8 (about 4 minutes of an unreachable exchange). */
  attempts?: number;
}

export interface OpenExchangeOptions extends RetryPolicy {
  /** The exchange's REST base URL instead of its own (a regional mirror, a proxy, a test stand-in). */
  apiUrl?: string;
  /** Told each wait: a 429/418 or a network error, and how long until the retry. */
  onRetry?: (message: string) => void;
  /** ms a request may take (ccxt's `timeout`). Default 30 000. */
  timeoutMs?: number;
}

type CcxtModule = typeof import("ccxt");
type CcxtExchange = InstanceType<CcxtModule["Exchange"]>;

/** Loads ccxt, or says it is missing. */
export async function loadCcxt(): Promise<CcxtModule> {
  try {
    return await import("ccxt");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new MissingCcxtError("ccxt is not installed");
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
  spotOnly(exchange);
  if (options.apiUrl !== undefined) moveApi(exchange, options.apiUrl);
  if (!exchange.has.fetchOHLCV) throw new Error(`${id} offers no OHLCV candles through ccxt`);
  return new CcxtSpot(exchange, ccxt, options);
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

/** Points every REST URL of the exchange at `apiUrl`, keeping each URL's path. */
function moveApi(exchange: CcxtExchange, apiUrl: string): void {
  let base: URL;
  try {
    base = new URL(apiUrl);
  } catch {
    throw new Error(`--api-url '${apiUrl}' is not a URL (e.g. http://127.0.0.1:8080 or https://api1.binance.com)`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error(`--api-url '${apiUrl}' must be http:// or https://`);
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

/** `Retry-After` in ms: seconds, or an HTTP date. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Network failures that ccxt leaves unwrapped (a connection dropped while the body was read). */
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

class CcxtSpot implements Exchange {
  readonly id: string;
  readonly pageLimit: number;
  readonly hasTickers: boolean;
  /** No request starts before this time: a 429/418 pauses them all (the limit is per address). */
  private pausedUntil = 0;
  /** The Retry-After of the last 429/418, read where ccxt handles the response. */
  private retryAfter: number | undefined;
  private readonly apiUrl: string | undefined;

  constructor(
    private readonly exchange: CcxtExchange,
    private readonly ccxt: CcxtModule,
    private readonly options: OpenExchangeOptions,
  ) {
    this.id = exchange.id;
    const features = exchange.features as { spot?: { fetchOHLCV?: { limit?: number } } } | undefined;
    this.pageLimit = features?.spot?.fetchOHLCV?.limit ?? 500;
    this.hasTickers = exchange.has.fetchTickers === true;
    this.apiUrl = options.apiUrl;
    // ccxt turns a 429/418 into an error without its headers; this sees them first, and pauses
    // every request from then on: the limit is per address, so the requests already waiting in
    // ccxt's limiter must wait too.
    const handleErrors = exchange.handleErrors.bind(exchange);
    exchange.handleErrors = ((code: number, reason: string, url: string, method: string, headers: Record<string, string>, ...rest: unknown[]) => {
      if (code === 429 || code === 418) {
        this.retryAfter = retryAfterMs(headers?.["Retry-After"] ?? headers?.["retry-after"], Date.now());
        this.pausedUntil = Math.max(this.pausedUntil, Date.now() + (this.retryAfter ?? options.baseDelayMs ?? 1000));
      }
      return (handleErrors as (...args: unknown[]) => unknown)(code, reason, url, method, headers, ...rest);
    }) as typeof exchange.handleErrors;
    // Every HTTP request, after ccxt's limiter has let it go, waits out a pause first.
    const fetch = exchange.fetch.bind(exchange);
    exchange.fetch = (async (...args: Parameters<typeof exchange.fetch>) => {
      for (let wait = this.pausedUntil - Date.now(); wait > 0; wait = this.pausedUntil - Date.now()) await sleep(wait);
      return fetch(...args);
    }) as typeof exchange.fetch;
  }

  async spotMarkets(): Promise<SpotMarket[]> {
    const markets = await this.retrying("loading markets", () => this.exchange.loadMarkets());
    return Object.values(markets)
      .filter((m): m is NonNullable<typeof m> => m !== undefined && m.spot === true)
      .map((m) => ({ symbol: m.symbol, base: m.base, quote: m.quote, active: m.active !== false }));
  }

  async quoteVolumes(): Promise<Map<string, number>> {
    const tickers = await this.retrying("loading 24 h tickers", () => this.exchange.fetchTickers());
    const volumes = new Map<string, number>();
    for (const ticker of Object.values(tickers)) {
      const quote = ticker.quoteVolume ?? (ticker.baseVolume !== undefined && ticker.last !== undefined ? ticker.baseVolume * ticker.last : undefined);
      if (typeof quote === "number" && Number.isFinite(quote) && ticker.symbol !== undefined) volumes.set(ticker.symbol, quote);
    }
    return volumes;
  }

  async candles(symbol: string, timeframe: SyncTimeframe, since: number, limit: number): Promise<Candle[]> {
    const rows = await this.retrying(`${symbol} ${timeframe} candles`, () => this.exchange.fetchOHLCV(symbol, CCXT_TIMEFRAMES[timeframe], since, limit));
    return rows.map((r) => [Number(r[0]), Number(r[1]), Number(r[2]), Number(r[3]), Number(r[4]), Number(r[5] ?? 0)] as const);
  }

  /** Runs one request: waits out a pause, retries 429/418 after Retry-After and network errors with backoff. */
  private async retrying<T>(what: string, request: () => Promise<T>): Promise<T> {
    const attempts = this.options.attempts ?? 8;
    const base = this.options.baseDelayMs ?? 1000;
    const max = this.options.maxDelayMs ?? 60_000;
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        const limited = error instanceof this.ccxt.DDoSProtection || error instanceof this.ccxt.RateLimitExceeded;
        if (!limited && !this.isNetworkFailure(error)) throw error;
        if (attempt >= attempts) throw error;
        const backoff = Math.min(max, base * 2 ** (attempt - 1));
        const told = limited ? this.retryAfter : undefined;
        // Limited: the pause set when the answer came (its Retry-After) holds every request; this one waits with them.
        const delay = limited ? Math.max(0, this.pausedUntil - Date.now(), told === undefined ? backoff : 0) : backoff;
        if (limited && told === undefined) this.pausedUntil = Math.max(this.pausedUntil, Date.now() + delay);
        this.options.onRetry?.(
          limited
            ? `${this.id} is limiting requests (${statusOf(error)}); waiting ${seconds(delay)}${told !== undefined ? " as its Retry-After says" : ""}, then retrying ${what}`
            : `${this.id} did not answer (${this.describe(error)}); retrying ${what} in ${seconds(delay)} (attempt ${attempt + 1} of ${attempts})`,
        );
        await sleep(delay);
      }
    }
  }

  private isNetworkFailure(error: unknown): boolean {
    if (error instanceof this.ccxt.NetworkError) return true;
    const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    if (code !== undefined && NETWORK_CODES.has(code)) return true;
    // undici's "terminated": the connection closed while the body was being read.
    return error instanceof TypeError && /terminated|fetch failed|socket/i.test(error.message);
  }

  /** The failure in a few words, without the exchange's URL (or a proxy's credentials). */
  private describe(error: unknown): string {
    const message = error instanceof Error ? error.message : String(error);
    const cause = /fetch failed: (.*)$|fetch failed(.*)$|(timed out)/.exec(message);
    const text = cause ? (cause[1] ?? cause[2] ?? cause[3] ?? "").replace(/^: /, "").trim() || "connection failed" : message;
    return this.apiUrl === undefined ? text : text.replaceAll(this.apiUrl, redactUrl(this.apiUrl));
  }
}

function statusOf(error: unknown): string {
  const match = /\b(418|429)\b/.exec(error instanceof Error ? error.message : "");
  return match ? `HTTP ${match[1]}` : "rate limit";
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
