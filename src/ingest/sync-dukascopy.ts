/**
 * Dukascopy's free history as a {@link SyncSource} (decisions §12), through the
 * `dukascopy-node` package (an optional peer dependency, loaded on first use): its URL
 * generator (`generateUrls`: minute candles per UTC day, hour candles per UTC month, `?from=`
 * for the bucket in progress), its fetcher (`BufferFetcher`, batches with its pause between
 * them, our bounded request injected as its fetch function) and its normaliser (`processData`:
 * the delta-encoded columns and their multiplier). `--api-url` replaces the API root
 * (`URL_ROOT`, `https://jetta.dukascopy.com/v1`).
 *
 * The API is undocumented: a reply the package cannot read is a failed request said as such
 * ("the API may have changed"), never an empty success. The source fills gaps inside a day with
 * flat zero-volume candles; those are not written (the store never fills, §2). Bid and ask come
 * from separate requests; `mid` is their mean, field by field. Coarser timeframes (m5 … m30
 * from minutes, h4 from hours) are built here on the FOREX session's periods, from every
 * bucket a period touches, so an h4 bar over a month's end is whole.
 */
import { aggregateBars } from "../sessions/aggregate.js";
import type { Candle, PageAnswer, PageRequest, Span, SyncSource } from "./sync.js";
import { FeedClient, type FeedClientOptions, FeedRequestError, parseJsonReply, snippet } from "./sync-http.js";
import { FOREX_MARKET, type PriceSide } from "./sync-forex.js";
import { XqlDataError, messageOf } from "../errors.js";

type DukascopyModule = typeof import("dukascopy-node");

/** dukascopy-node is not installed: `npm install xql` leaves it out. */
export class MissingDukascopyError extends XqlDataError<"package-missing"> {
  override readonly name: string = "MissingDukascopyError";
  constructor() {
    super("package-missing", { name: "dukascopy-node" });
  }
}

/** Loads dukascopy-node, or says it is missing. */
export async function loadDukascopy(): Promise<DukascopyModule> {
  try {
    return await import("dukascopy-node");
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new MissingDukascopyError();
    throw error;
  }
}

export interface DukascopyOptions extends FeedClientOptions {
  price: PriceSide;
  /** The API root instead of the package's `URL_ROOT` (a mirror, a test stand-in). */
  apiUrl?: string;
  /** Buckets (days of minutes, months of hours) per page. Default 10. */
  bucketsPerPage?: number;
  /** Requests the package's fetcher runs at once, and its pause between such batches. Defaults 5 and 1000 ms (the package's pause). */
  fetchBatch?: number;
  pauseBetweenBatchesMs?: number;
}

/** The source's name of a pair (its code, `EUR-USD`), or undefined when it has none. */
export function dukascopyInstrument(lib: DukascopyModule, base: string, quote: string): string | undefined {
  const key = instrumentKey(base + quote);
  return Object.hasOwn(lib.instrumentMetaData, key) ? lib.instrumentMetaData[key as keyof DukascopyModule["instrumentMetaData"]].code : undefined;
}

/** The package's key of an instrument (`eurusd`) from its code (`EUR-USD`) or six letters. */
function instrumentKey(code: string): string {
  return code.replace("-", "").toLowerCase();
}

const DAY = 86_400_000;

/** How long after a period's close its last minute (or hour) may still be missing for lag rather than quiet. */
const RECENT_MS = 60_000;

export class DukascopySource implements SyncSource {
  readonly id = "dukascopy";
  readonly market = FOREX_MARKET;
  readonly price: PriceSide;
  /** A page is many requests already (up to 10 buckets, twice for mid): two pairs at a time. */
  readonly batchSymbols = 2;
  private readonly client: FeedClient;
  private readonly root: string | undefined;

  constructor(
    private readonly lib: DukascopyModule,
    private readonly options: DukascopyOptions,
  ) {
    this.price = options.price;
    this.root = options.apiUrl?.replace(/\/+$/, "");
    this.client = new FeedClient("dukascopy", options);
  }

  requestsMade(): number {
    return this.client.requests;
  }

  async page(request: PageRequest): Promise<PageAnswer> {
    const { pair, grid, span, timeframe } = request;
    const instrument = instrumentKey(pair.symbol);
    if (timeframe === "d") throw new FeedRequestError("client", "dukascopy syncs m1 to h4; days are derived on the 17:00 New York session");
    const hours = timeframe === "h1" || timeframe === "h4";
    const meta = this.lib.instrumentMetaData[instrument as keyof DukascopyModule["instrumentMetaData"]];
    const historyStart = Date.parse(hours ? meta.startMonthForHourlyCandles : meta.startDayForMinuteCandles);
    const n = this.options.bucketsPerPage ?? 10;
    const next = (t: number, k: number): number => (hours ? monthStart(t, k) : Math.floor(t / DAY) * DAY + k * DAY);
    // The buckets fetched, [first, end): whole buckets around whole periods of the timeframe.
    let first: number;
    let end: number;
    // Only the buckets the stretch touches, at most n of them.
    const spanFirst = next(span.from, 0);
    const spanEnd = next(grid.close(span.to) - 1, 1);
    if (request.direction === "forward") {
      first = spanFirst;
      end = Math.min(next(first, n), spanEnd);
    } else {
      end = spanEnd;
      first = Math.max(next(end, -n), spanFirst);
    }
    const covered: Span =
      request.direction === "forward"
        ? { from: span.from, to: Math.min(span.to, grid.previous(grid.start(end))) }
        : { from: first <= historyStart ? -Infinity : grid.start(first) === first ? first : grid.close(grid.start(first)), to: span.to };
    const now = this.options.clock?.now() ?? Date.now();
    const sides: ("bid" | "ask")[] = this.price === "mid" ? ["bid", "ask"] : [this.price];
    const fine = await Promise.all(sides.map((side) => this.fetchSide(instrument, pair.symbol, hours ? "h1" : "m1", side, Math.max(first, historyStart), end, now)));
    const fineCandles = this.price === "mid" ? midOf(fine[0]!, fine[1]!) : fine[0]!;
    let candles = fineCandles;
    if (timeframe !== "m1" && timeframe !== "h1") {
      candles = coarser(fineCandles, timeframe);
      // Dukascopy publishes a minute a little after it closes: a period just closed whose last
      // minute is not there yet is asked for again at the next round, not written short.
      const step = hours ? 3_600_000 : 60_000;
      const fineTimes = new Set(fineCandles.map((c) => c[0]));
      const short = candles.find((c) => {
        const close = grid.close(c[0]);
        return close <= now && now - close < RECENT_MS && !fineTimes.has(close - step);
      });
      if (short) {
        candles = candles.filter((c) => c[0] < short[0]);
        if (request.direction === "forward") covered.to = Math.min(covered.to, grid.previous(short[0]));
      }
    }
    const lo = Math.max(span.from, covered.from);
    const hi = Math.min(span.to, covered.to);
    return { candles: candles.filter((c) => c[0] >= lo && c[0] <= hi), covered };
  }

  /** One side's candles (minutes or hours) over the buckets [from, to), flat fillers left out, oldest first. */
  private async fetchSide(instrument: string, code: string, fine: "m1" | "h1", side: "bid" | "ask", from: number, to: number, now: number): Promise<Candle[]> {
    const { generateUrls, BufferFetcher, processData } = this.lib;
    const urls = generateUrls({ instrument: instrument as never, timeframe: fine as never, priceType: side as never, startDate: new Date(from), endDate: new Date(to), nowDate: new Date(now) });
    const rows = new Map<string, number[][]>();
    const fetcher = new BufferFetcher({
      batchSize: this.options.fetchBatch ?? 5,
      pauseBetweenBatchesMs: this.options.pauseBetweenBatchesMs ?? 1000,
      fetcherFn: async (url: string) => {
        const what = `${code} ${side} ${describeBucket(url)}`;
        return this.client.run(what, async (signal) => {
          const reply = await this.client.get(this.moved(url), { Accept: "application/json" }, signal).catch((error: unknown) => {
            if (error instanceof FeedRequestError && error.kind === "refused") {
              throw new FeedRequestError("refused", `Dukascopy refused ${what} (${error.message}): it needs no account, so it may be refusing this address`);
            }
            throw error;
          });
          if (reply.status !== 200) throw new FeedRequestError("client", `Dukascopy refused ${what} (HTTP ${reply.status}: ${snippet(reply.body)})`, undefined, reply.status);
          parseJsonReply(reply, "Dukascopy's candles JSON");
          try {
            // The package's own reader: its delta decoding, multiplier and flat fillers (dropped).
            const out = processData({ instrument: instrument as never, requestedTimeframe: fine as never, bufferObjects: [{ url, buffer: reply.body }], priceType: side as never, volumes: true, volumeUnits: "millions" as never, ignoreFlats: true });
            rows.set(url, out);
          } catch (error) {
            throw new FeedRequestError("bad-reply", `Dukascopy's reply for ${what} is not in the format dukascopy-node reads (${messageOf(error)}): the API may have changed; a newer dukascopy-node may read it`);
          }
          return reply.body;
        });
      },
    });
    await fetcher.fetch(urls);
    const candles: Candle[] = [];
    for (const url of urls) {
      for (const r of rows.get(url) ?? []) {
        // Flat fillers the package dropped come back empty (hours), or not at all (minutes).
        if (r.length < 6) continue;
        candles.push([r[0]!, r[1]!, r[2]!, r[3]!, r[4]!, r[5]!] as const);
      }
    }
    return candles.sort((a, b) => a[0] - b[0]);
  }

  /** The package's URL under `--api-url` instead of its own root. */
  private moved(url: string): string {
    return this.root === undefined ? url : this.root + url.slice(this.lib.URL_ROOT.length);
  }
}

/** The UTC month start `k` months after the one holding `t`. */
function monthStart(t: number, k: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1);
}

/** `minute candles of 2025-03-10` for a message, from the package's URL. */
function describeBucket(url: string): string {
  const match = /\/candles\/(minute|hour)\/[^/?]+\/(?:BID|ASK)(?:\/(\d+)\/(\d+)(?:\/(\d+))?|\?from=(\d+))/.exec(url);
  if (!match) return "candles";
  const [, kind, y, m, d, from] = match;
  const when = from !== undefined ? new Date(Number(from)).toISOString().slice(0, kind === "minute" ? 10 : 7) : [y, m!.padStart(2, "0"), d?.padStart(2, "0")].filter(Boolean).join("-");
  return `${kind} candles of ${when}`;
}

/** The mean of bid and ask, field by field, at the times both have a candle. */
function midOf(bid: readonly Candle[], ask: readonly Candle[]): Candle[] {
  const asks = new Map(ask.map((c) => [c[0], c]));
  const out: Candle[] = [];
  for (const b of bid) {
    const a = asks.get(b[0]);
    if (a) out.push([b[0], (b[1] + a[1]) / 2, (b[2] + a[2]) / 2, (b[3] + a[3]) / 2, (b[4] + a[4]) / 2, (b[5] + a[5]) / 2] as const);
  }
  return out;
}

/** Minutes or hours gathered into the timeframe's FOREX periods. */
function coarser(candles: readonly Candle[], timeframe: "m5" | "m15" | "m30" | "h4"): Candle[] {
  const column = (k: number): Float64Array => Float64Array.from(candles, (c) => c[k]!);
  const bars = aggregateBars({ time: column(0), open: column(1), high: column(2), low: column(3), close: column(4), volume: column(5) }, timeframe, FOREX_MARKET);
  return Array.from(bars.time, (t, i) => [t, bars.open[i]!, bars.high[i]!, bars.low[i]!, bars.close[i]!, bars.volume[i]!] as const);
}
