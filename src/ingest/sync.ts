/**
 * `xql data sync`: the one sync loop (decisions §6, §12). A {@link SyncSource} per provider
 * (ccxt exchanges in `sync-exchange.ts`, OANDA in `sync-oanda.ts`, Dukascopy in
 * `sync-dukascopy.ts`) answers pages of candles; everything else is here, once: resuming from
 * what is stored, batches, closed bars only, the one write path, progress, `--follow`, the stop.
 *
 * Each pair's stored bars are one run [first, last] (holes the source itself has aside);
 * a sync extends it both ways and never refetches inside it:
 * - the tail, oldest first: from the bar after `last` to the latest closed bar (or `until`);
 * - the backfill, newest first: from the bar before `first` down to `since`, a page at a time,
 *   stopping at `since` or where the source's history ends.
 * So whatever stops a sync (Ctrl-C, `kill -9`, a lost connection), the bars stored are still
 * one run per pair, and the next sync resumes at both of its ends.
 *
 * Work goes in batches: one page for each of up to `batchSymbols` pairs, fetched together and
 * written in one transaction (one `upsertBars` call), so a batch is stored whole or not at all.
 * Only closed bars are written: a bar whose period has not ended by the clock is dropped,
 * whatever the source sent. Bar times follow the market's session (§2): a FOREX h4 bar opens
 * at 17:00, 21:00, 01:00 … New York, so the grid of open times is the session's, not UTC's.
 */
import type { BarStore, SeriesInfo } from "../store/store.js";
import { periodRange } from "../sessions/periods.js";
import { TIMEFRAME_MS, type Timeframe } from "../types.js";
import { CsvImportError } from "./csv.js";
import { BarRowBatch } from "./rows.js";
import { FeedRequestError, type SyncClock, systemSyncClock } from "./sync-http.js";
import { messageOf } from "../errors.js";

export { type SyncClock, systemSyncClock } from "./sync-http.js";

/** The timeframes a sync stores (a week is derived from days). */
export const SYNC_TIMEFRAMES = ["m1", "m5", "m15", "m30", "h1", "h4", "d"] as const;
export type SyncTimeframe = (typeof SYNC_TIMEFRAMES)[number];

export function isSyncTimeframe(name: string): name is SyncTimeframe {
  return (SYNC_TIMEFRAMES as readonly string[]).includes(name);
}

/** Bars of the stored timeframe a sync fetches when no `since` is given: a screen's whole warm-up. */
export const DEFAULT_SYNC_BARS = 5000;

/** Pairs per batch: their pages are fetched together and written in one transaction. */
export const DEFAULT_BATCH_SYMBOLS = 50;

/** ms after a close before `--follow` asks for the bar: the source's own lag in closing it. */
export const DEFAULT_SETTLE_MS = 2000;

/** One candle: open time (ms), open, high, low, close, volume. */
export type Candle = readonly [number, number, number, number, number, number];

/** A stretch of bars by open time, both ends included. */
export interface Span {
  from: number;
  to: number;
}

/** A pair as the source names it (`BTC/USDT`, `EUR_USD`) and as it is stored (`BTCUSDT`, `EURUSD`). */
export interface ChosenPair {
  symbol: string;
  stored: string;
}

/**
 * A page asked of a source: the pair, the timeframe and its grid of open times, and the stretch
 * still wanted in one direction — `forward` from `span.from` (the tail), `backward` from
 * `span.to` (the backfill). The source answers as much of it as one request (or one batch of
 * its requests) gives.
 */
export interface PageRequest {
  pair: ChosenPair;
  timeframe: SyncTimeframe;
  grid: BarGrid;
  direction: "forward" | "backward";
  span: Span;
}

/**
 * What a source answered. `covered` is the stretch of open times the answer speaks for: every
 * bar the source has there is among `candles`. Forward, `covered.from` is `span.from` and
 * `covered.to` how far it reached (`Infinity`: the source has nothing later yet); backward,
 * `covered.to` is `span.to` and `covered.from` how far back it reached (`-Infinity`: the
 * source's history of the pair ends there).
 */
export interface PageAnswer {
  candles: Candle[];
  covered: Span;
}

/** A provider of candles: the one thing that differs between `data sync binance`, `oanda` and `dukascopy`. */
export interface SyncSource {
  /** Names the source in messages and in the store's record of where bars came from (`binance`, `oanda`). */
  readonly id: string;
  /** The market its pairs are stored in. */
  readonly market: string;
  /** The price its candles are of: `bid`, `ask`, `mid`, or `trades` (an exchange's last prices). */
  readonly price: string;
  /** Pairs per batch, when the source wants fewer than {@link DEFAULT_BATCH_SYMBOLS} at once. */
  readonly batchSymbols?: number;
  /** HTTP requests sent so far, when a page may take several (else each page counts one). */
  requestsMade?(): number;
  /** One page of one pair. @throws FeedRequestError (`refused` ends the sync; others fail the pair). */
  page(request: PageRequest): Promise<PageAnswer>;
}

/** Open times of one timeframe in one market: each bar's period, from the session rules (§2). */
export interface BarGrid {
  readonly timeframe: Timeframe;
  /** Nominal duration (ms): exact but for FOREX h4 bars over a daylight-saving night. */
  readonly duration: number;
  /** Open time of the bar holding `t`. */
  start(t: number): number;
  /** Close of the bar opening at `t` (the next bar's open). */
  close(t: number): number;
  /** Open time of the bar before the one opening at `t`. */
  previous(t: number): number;
}

export function barGrid(market: string, timeframe: Timeframe): BarGrid {
  return {
    timeframe,
    duration: TIMEFRAME_MS[timeframe],
    start: (t) => periodRange(t, timeframe, market).start,
    close: (t) => periodRange(t, timeframe, market).to,
    previous: (t) => periodRange(t - 1, timeframe, market).start,
  };
}

/** Open time of the newest bar closed at `now`. */
export function latestClosedOpen(grid: BarGrid, now: number): number {
  return grid.previous(grid.start(now));
}

export interface SyncOptions {
  source: SyncSource;
  store: BarStore;
  pairs: readonly ChosenPair[];
  timeframe: SyncTimeframe;
  /** The oldest bar wanted: the one open at this time (ms); default the latest {@link DEFAULT_SYNC_BARS} bars. */
  since?: number;
  /** The end of a backfill, exclusive: no bar opening at or after it is fetched (no `--follow` then). */
  until?: number;
  /** Keep running: after each close (plus `settleMs`), fetch what closed. */
  follow?: boolean;
  /** Aborting it stops the sync: the pages answered are written, waits end at once. */
  signal?: AbortSignal;
  clock?: SyncClock;
  batchSymbols?: number;
  settleMs?: number;
  /** Progress of the catch-up: bars done (written, or found missing at the source) of those expected. */
  onProgress?: (done: number, total: number) => void;
  /** One line for the user: a pair that failed, a bar the import's rules refused. */
  onNotice?: (line: string) => void;
  /** Each round of `--follow` once written. */
  onRound?: (round: FollowRound) => void;
}

/** One round of `--follow`: the bar it was for, what it wrote, and when the last write committed. */
export interface FollowRound {
  /** Open time of the newest bar the round asked for: the bar is named by it (issue 34). */
  bar: number;
  /** When that bar closed (ms). */
  close: number;
  written: number;
  symbols: number;
  /** ms from the close to the commit of the round's last batch. */
  lagMs: number;
  /** ms of it spent waiting for the source. */
  fetchMs: number;
  /** ms of it spent writing. */
  writeMs: number;
}

/** What a sync did. */
export interface SyncReport {
  written: number;
  replaced: number;
  /** HTTP requests sent (retries included), or pages asked for where the source does not count them. */
  requests: number;
  /** ms spent waiting for the source (requests, limiter and retries), summed over batches. */
  fetchMs: number;
  /** Batches written, and the ms they took. */
  writes: number;
  writeMs: number;
  /** Pairs whose candles could not be fetched, with the last reason. */
  failed: { symbol: string; reason: string }[];
  /** Bars the import's rules refused (left out, said on a notice line). */
  refused: number;
  /** True when the signal stopped it. */
  stopped: boolean;
  /** The oldest bar asked for. */
  since: number;
}

/** One pair's work: the tail to fetch forwards and the backfill to fetch backwards. */
interface PairWork {
  pair: ChosenPair;
  /** Open time of the newest bar stored, or undefined when none is. */
  last: number | undefined;
  tail: Span | undefined;
  back: Span | undefined;
  failed: string | undefined;
}

interface Page {
  work: PairWork;
  direction: "forward" | "backward";
  span: Span;
}

/**
 * Runs a sync; resolves when caught up (or, with `follow`, when stopped).
 *
 * @throws FeedRequestError of kind `refused` when the source refuses the credentials: no pair can succeed.
 */
export async function syncBars(options: SyncOptions): Promise<SyncReport> {
  const { source } = options;
  const clock = options.clock ?? systemSyncClock;
  const signal = options.signal ?? new AbortController().signal;
  const grid = barGrid(source.market, options.timeframe);
  const batchSymbols = options.batchSymbols ?? source.batchSymbols ?? DEFAULT_BATCH_SYMBOLS;
  const notice = options.onNotice ?? (() => {});
  // The newest bar wanted: the latest closed, or the last before `until`.
  const newest = (): number => {
    const latest = latestClosedOpen(grid, clock.now());
    return options.until === undefined ? latest : Math.min(latest, grid.start(options.until - 1));
  };
  const start = newest();
  const since = grid.start(options.since ?? start - (DEFAULT_SYNC_BARS - 1) * grid.duration);
  const report: SyncReport = { written: 0, replaced: 0, requests: 0, fetchMs: 0, writes: 0, writeMs: 0, failed: [], refused: 0, stopped: false, since };

  const stored = new Map<string, SeriesInfo>();
  for (const info of await options.store.series(source.market)) {
    if (info.timeframe === options.timeframe && !info.derived) stored.set(info.symbol, info);
  }
  const works: PairWork[] = options.pairs.map((pair) => {
    const info = stored.get(pair.stored);
    const work: PairWork = { pair, last: info?.lastTime, tail: undefined, back: undefined, failed: undefined };
    if (!info) work.back = span(since, start);
    else {
      work.tail = span(Math.max(grid.close(info.lastTime), since), start);
      work.back = span(since, Math.min(grid.previous(info.firstTime), start));
    }
    return work;
  });
  const requestsBefore = source.requestsMade?.() ?? 0;
  const barsIn = (s: Span | undefined): number => (s === undefined ? 0 : Math.round((s.to - s.from) / grid.duration) + 1);

  /** Fetches and writes until no pair has work left (or the signal stops it); returns the time of the last commit. */
  const catchUp = async (onBars?: (done: number, total: number) => void): Promise<number | undefined> => {
    let total = 0;
    for (const work of works) if (work.failed === undefined) total += barsIn(work.tail) + barsIn(work.back);
    let done = 0;
    let committed: number | undefined;
    const queue = works.filter((w) => w.failed === undefined && (w.tail || w.back));
    while (queue.length > 0 && !signal.aborted) {
      const pages: Page[] = queue.splice(0, batchSymbols).map((work) => (work.tail ? { work, direction: "forward", span: work.tail } : { work, direction: "backward", span: work.back! }));
      const fetchStarted = Date.now();
      const answers = await Promise.all(pages.map((page) => fetchPage(page)));
      report.fetchMs += Date.now() - fetchStarted;
      report.requests = source.requestsMade ? source.requestsMade() - requestsBefore : report.requests + pages.length;
      const now = clock.now();
      const kept = answers.map((answer, i) => (answer === undefined ? [] : closedIn(accepted(pages[i]!, answer), answer.candles, now, grid)));
      const batch = new BarRowBatch(source.market, options.timeframe, now);
      let rows = 0;
      kept.forEach((candles, i) => {
        const pair = pages[i]!.work.pair;
        let refused = 0;
        for (const c of candles) {
          try {
            batch.add({ symbol: pair.stored, time: c[0], open: c[1], high: c[2], low: c[3], close: c[4], volume: c[5] }, ++rows);
          } catch (error) {
            if (!(error instanceof CsvImportError)) throw error;
            if (refused++ === 0) notice(`${source.id} sent ${pair.symbol} bars the import's rules refuse; left out: ${error.reason}`);
          }
        }
        report.refused += refused;
      });
      if (batch.rows > 0) {
        const writeStarted = Date.now();
        const result = await options.store.upsertBars([batch.finish()]);
        committed = clock.now();
        report.writeMs += Date.now() - writeStarted;
        report.writes++;
        report.written += result.written;
        report.replaced += result.replaced;
      }
      const answered = pages.filter((_, i) => answers[i] !== undefined).map((p) => p.work.pair.stored);
      if (answered.length > 0) await options.store.recordFeeds(answered.map((symbol) => ({ market: source.market, timeframe: options.timeframe, symbol, source: source.id, price: source.price, syncedAt: now })));
      pages.forEach((page, i) => {
        const before = barsIn(page.work.tail) + barsIn(page.work.back);
        if (answers[i] !== undefined) advance(page, answers[i]!, kept[i]!, grid);
        const after = page.work.failed === undefined ? barsIn(page.work.tail) + barsIn(page.work.back) : 0;
        done += before - after;
        if (page.work.failed === undefined && (page.work.tail || page.work.back)) queue.push(page.work);
      });
      onBars?.(done, total);
    }
    return committed;
  };

  const fetchPage = async (page: Page): Promise<PageAnswer | undefined> => {
    try {
      return await source.page({ pair: page.work.pair, timeframe: options.timeframe, grid, direction: page.direction, span: page.span });
    } catch (error) {
      if (error instanceof FeedRequestError && error.kind === "refused") throw error;
      // Stopped: the page is left for the next sync, the pair has not failed.
      if (signal.aborted || (error instanceof FeedRequestError && error.kind === "stopped")) return undefined;
      const reason = messageOf(error);
      page.work.failed = reason;
      notice(`${page.work.pair.symbol}: ${reason}${options.follow ? "; trying again at the next close" : "; left for the next sync"}`);
      return undefined;
    }
  };

  await catchUp(options.onProgress);
  // A long catch-up sees more bars close: fetch those too, so the store ends current.
  let caughtUpTo = start;
  for (let extra = 0; extra < 3 && !signal.aborted; extra++) {
    const latest = newest();
    if (latest === caughtUpTo || !extendTails(works, latest, grid, since)) break;
    caughtUpTo = latest;
    await catchUp();
  }
  collectFailures(works, report);

  if (options.follow && options.until === undefined) {
    const settle = options.settleMs ?? DEFAULT_SETTLE_MS;
    while (!signal.aborted) {
      const close = grid.close(grid.start(clock.now()));
      await clock.sleep(close + settle - clock.now(), signal);
      if (signal.aborted) break;
      for (const work of works) work.failed = undefined;
      const writtenBefore = report.written;
      const fetchBefore = report.fetchMs;
      const writeBefore = report.writeMs;
      const latest = newest();
      extendTails(works, latest, grid, since);
      const lastBefore = new Map(works.map((w) => [w, w.last]));
      const committed = await catchUp();
      const symbols = works.filter((w) => w.last !== lastBefore.get(w)).length;
      options.onRound?.({
        bar: latest,
        close: grid.close(latest),
        written: report.written - writtenBefore,
        symbols,
        lagMs: committed === undefined ? 0 : committed - grid.close(latest),
        fetchMs: report.fetchMs - fetchBefore,
        writeMs: report.writeMs - writeBefore,
      });
      collectFailures(works, report);
    }
  }
  report.stopped = signal.aborted;
  return report;
}

function span(from: number, to: number): Span | undefined {
  return from <= to ? { from, to } : undefined;
}

/** The open times whose candles extend the run: forward, the tail up to what the answer covers; backward, what it covers of the backfill. */
function accepted(page: Page, answer: PageAnswer): Span {
  if (page.direction === "forward") return { from: page.span.from, to: page.span.to };
  return { from: Math.max(page.span.from, answer.covered.from), to: page.span.to };
}

/** The candles worth writing: inside `accept`, closed at `now`, each open time once (the source's last word wins), oldest first. */
function closedIn(accept: Span, candles: readonly Candle[], now: number, grid: BarGrid): Candle[] {
  const byTime = new Map<number, Candle>();
  for (const c of candles) if (c[0] >= accept.from && c[0] <= accept.to && grid.close(c[0]) <= now) byTime.set(c[0], c);
  return [...byTime.values()].sort((a, b) => a[0] - b[0]);
}

/** Moves a pair's work past a page the source answered. */
function advance(page: Page, answer: PageAnswer, kept: readonly Candle[], grid: BarGrid): void {
  const work = page.work;
  const newest = kept.at(-1)?.[0];
  if (page.direction === "forward") {
    const tail = work.tail!;
    if (newest !== undefined) work.last = newest;
    const reached = Math.max(answer.covered.to, newest ?? -Infinity);
    // Done when the source has nothing more now (it covered the whole stretch, or did not move
    // forward: one that ignores the start asked). Bars it did not send yet are asked for again
    // at the next close (--follow) or the next sync.
    work.tail = reached >= tail.to || reached < tail.from ? undefined : span(grid.close(reached), tail.to);
    return;
  }
  const back = work.back!;
  if (work.last === undefined && newest !== undefined) work.last = newest;
  const reached = answer.covered.from;
  // -Infinity: the source's history of the pair ends here; no step back: nothing more to ask.
  work.back = !Number.isFinite(reached) || reached > back.to ? undefined : span(back.from, grid.previous(reached));
}

/** Stretches every tail to the bar closed at `latest` (a pair with nothing stored from `since`); false when nothing new closed. */
function extendTails(works: readonly PairWork[], latest: number, grid: BarGrid, since: number): boolean {
  let any = false;
  for (const work of works) {
    const from = work.tail?.from ?? (work.last === undefined ? since : grid.close(work.last));
    if (from > latest) continue;
    work.tail = { from, to: latest };
    any = true;
  }
  return any;
}

function collectFailures(works: readonly PairWork[], report: SyncReport): void {
  for (const work of works) {
    if (work.failed === undefined) continue;
    const existing = report.failed.find((f) => f.symbol === work.pair.symbol);
    if (existing) existing.reason = work.failed;
    else report.failed.push({ symbol: work.pair.symbol, reason: work.failed });
  }
}
