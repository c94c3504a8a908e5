/**
 * `xql data sync`: keeps the store's CRYPTO bars current from an exchange (decisions §6).
 *
 * Each pair's stored bars are one run [first, last] (holes the exchange itself has aside);
 * a sync extends it both ways and never refetches inside it:
 * - the tail, oldest first: from the bar after `last` to the latest closed bar;
 * - the backfill, newest first: from the bar before `first` down to `since`, a page at a time,
 *   stopping at `since` or where the exchange's history ends (a page with no bars in it).
 * So whatever stops a sync (Ctrl-C, `kill -9`, a lost connection), the bars stored are still
 * one run per pair, and the next sync resumes at both of its ends.
 *
 * Work goes in batches: one page for each of up to `batchSymbols` pairs, fetched together
 * (ccxt's limiter spaces the requests) and written in one transaction (one `upsertBars` call),
 * so a batch is stored whole or not at all. Only closed bars are written: a bar whose open
 * time plus its duration is after the clock is dropped, whatever the exchange sent.
 */
import type { BarStore, SeriesInfo } from "../store/store.js";
import { TIMEFRAME_MS } from "../types.js";
import { CsvImportError } from "./csv.js";
import { BarRowBatch } from "./rows.js";
import type { Candle, Exchange, SyncTimeframe } from "./sync-exchange.js";
import type { ChosenPair } from "./sync-symbols.js";

/** Exchange pairs are stored in this market. */
export const SYNC_MARKET = "CRYPTO";

/** Bars of the stored timeframe a sync fetches when no `since` is given: a screen's whole warm-up. */
export const DEFAULT_SYNC_BARS = 5000;

/** Pairs per batch: their pages are fetched together and written in one transaction. */
export const DEFAULT_BATCH_SYMBOLS = 50;

/** ms after a close before `--follow` asks for the bar: the exchange's own lag in closing it. */
export const DEFAULT_SETTLE_MS = 2000;

/** Where a sync reads the time and waits; the tests' clock runs faster than the wall's. */
export interface SyncClock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` is aborted. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemSyncClock: SyncClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
    }),
};

export interface SyncOptions {
  exchange: Exchange;
  store: BarStore;
  pairs: readonly ChosenPair[];
  timeframe: SyncTimeframe;
  /** The oldest bar wanted: the one open at this time (ms); default the latest {@link DEFAULT_SYNC_BARS} bars. */
  since?: number;
  /** Keep running: after each close (plus `settleMs`), fetch what closed. */
  follow?: boolean;
  /** Aborting it stops the sync after the batch in hand (its bars are written). */
  signal?: AbortSignal;
  clock?: SyncClock;
  batchSymbols?: number;
  settleMs?: number;
  /** Progress of the catch-up: bars done (written, or found missing at the exchange) of those expected. */
  onProgress?: (done: number, total: number) => void;
  /** One line for the user: a pair that failed, a bar the import's rules refused, a round of `--follow`. */
  onNotice?: (line: string) => void;
  /** Each round of `--follow` once written. */
  onRound?: (round: FollowRound) => void;
}

/** One round of `--follow`: the close it was for, what it wrote, and when the last write committed. */
export interface FollowRound {
  /** The close time (ms) the round followed: the end of the newest bar it asked for. */
  close: number;
  written: number;
  symbols: number;
  /** ms from the close to the commit of the round's last batch. */
  lagMs: number;
  /** ms of it spent waiting for the exchange (requests through ccxt's limiter). */
  fetchMs: number;
  /** ms of it spent writing. */
  writeMs: number;
}

/** What a sync did. */
export interface SyncReport {
  written: number;
  replaced: number;
  /** Requests for candles (each a page of one pair). */
  requests: number;
  /** ms spent waiting for the exchange (requests, limiter and retries), summed over batches. */
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

/** A stretch of bars to fetch, by open time, both ends included. */
interface Span {
  from: number;
  to: number;
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

/**
 * One request: a pair's candles from `since`, at most `limit` of them; the bars kept are those
 * inside `accept` (the whole tail, or the backfill page), which extends one end of the run.
 */
interface Page {
  work: PairWork;
  direction: "tail" | "back";
  since: number;
  limit: number;
  accept: Span;
}

/** Open time of the newest bar closed at `now`. */
export function latestClosedOpen(timeframe: SyncTimeframe, now: number): number {
  const dur = TIMEFRAME_MS[timeframe];
  return Math.floor(now / dur) * dur - dur;
}

/** Runs a sync; resolves when caught up (or, with `follow`, when stopped). */
export async function syncBars(options: SyncOptions): Promise<SyncReport> {
  const clock = options.clock ?? systemSyncClock;
  const signal = options.signal ?? new AbortController().signal;
  const dur = TIMEFRAME_MS[options.timeframe];
  const batchSymbols = options.batchSymbols ?? DEFAULT_BATCH_SYMBOLS;
  const notice = options.onNotice ?? (() => {});
  const start = latestClosedOpen(options.timeframe, clock.now());
  const since = options.since === undefined ? start - (DEFAULT_SYNC_BARS - 1) * dur : Math.floor(options.since / dur) * dur;
  const report: SyncReport = { written: 0, replaced: 0, requests: 0, fetchMs: 0, writes: 0, writeMs: 0, failed: [], refused: 0, stopped: false, since };

  const stored = new Map<string, SeriesInfo>();
  for (const info of await options.store.series(SYNC_MARKET)) {
    if (info.timeframe === options.timeframe && !info.derived) stored.set(info.symbol, info);
  }
  const works: PairWork[] = options.pairs.map((pair) => {
    const info = stored.get(pair.stored);
    const work: PairWork = { pair, last: info?.lastTime, tail: undefined, back: undefined, failed: undefined };
    if (!info) work.back = span(since, start);
    else {
      work.tail = span(Math.max(info.lastTime + dur, since), start);
      work.back = span(since, Math.min(info.firstTime - dur, start));
    }
    return work;
  });

  /** Fetches and writes until no pair has work left (or the signal stops it); returns the time of the last commit. */
  const catchUp = async (onBars?: (done: number, total: number) => void): Promise<number | undefined> => {
    let total = 0;
    for (const work of works) if (work.failed === undefined) total += barsIn(work.tail, dur) + barsIn(work.back, dur);
    let done = 0;
    let committed: number | undefined;
    const queue = works.filter((w) => w.failed === undefined && (w.tail || w.back));
    while (queue.length > 0 && !signal.aborted) {
      const pages = queue.splice(0, batchSymbols).map((work) => nextPage(work, options.exchange.pageLimit, dur));
      const fetchStarted = Date.now();
      const fetched = await Promise.all(pages.map((page) => fetchPage(page)));
      report.fetchMs += Date.now() - fetchStarted;
      report.requests += pages.length;
      const now = clock.now();
      const kept = fetched.map((candles, i) => (candles === undefined ? [] : closedIn(pages[i]!.accept, candles, now, dur)));
      const batch = new BarRowBatch(SYNC_MARKET, options.timeframe, now);
      let rows = 0;
      kept.forEach((candles, i) => {
        const pair = pages[i]!.work.pair;
        let refused = 0;
        for (const c of candles) {
          try {
            batch.add({ symbol: pair.stored, time: c[0], open: c[1], high: c[2], low: c[3], close: c[4], volume: c[5] }, ++rows);
          } catch (error) {
            if (!(error instanceof CsvImportError)) throw error;
            if (refused++ === 0) notice(`${options.exchange.id} sent ${pair.symbol} bars the import's rules refuse; left out: ${error.reason}`);
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
      pages.forEach((page, i) => {
        const before = barsIn(page.work.tail, dur) + barsIn(page.work.back, dur);
        if (fetched[i] !== undefined) advance(page, fetched[i]!, kept[i]!, dur);
        const after = page.work.failed === undefined ? barsIn(page.work.tail, dur) + barsIn(page.work.back, dur) : 0;
        done += before - after;
        if (page.work.failed === undefined && (page.work.tail || page.work.back)) queue.push(page.work);
      });
      onBars?.(done, total);
    }
    return committed;
  };

  const fetchPage = async (page: Page): Promise<Candle[] | undefined> => {
    try {
      return await options.exchange.candles(page.work.pair.symbol, options.timeframe, page.since, page.limit);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      page.work.failed = reason;
      notice(`${page.work.pair.symbol}: ${reason}${options.follow ? "; trying again at the next close" : "; left for the next sync"}`);
      return undefined;
    }
  };

  await catchUp(options.onProgress);
  // A long catch-up sees more bars close: fetch those too, so the store ends current.
  let caughtUpTo = start;
  for (let extra = 0; extra < 3 && !signal.aborted; extra++) {
    const latest = latestClosedOpen(options.timeframe, clock.now());
    if (latest === caughtUpTo || !extendTails(works, latest, dur, since)) break;
    caughtUpTo = latest;
    await catchUp();
  }
  collectFailures(works, report);

  if (options.follow) {
    const settle = options.settleMs ?? DEFAULT_SETTLE_MS;
    while (!signal.aborted) {
      const close = (Math.floor(clock.now() / dur) + 1) * dur;
      await clock.sleep(close + settle - clock.now(), signal);
      if (signal.aborted) break;
      for (const work of works) work.failed = undefined;
      const writtenBefore = report.written;
      const fetchBefore = report.fetchMs;
      const writeBefore = report.writeMs;
      extendTails(works, latestClosedOpen(options.timeframe, clock.now()), dur, since);
      const symbolsBefore = new Map(works.map((w) => [w, w.last]));
      const committed = await catchUp();
      const symbols = works.filter((w) => w.last !== symbolsBefore.get(w)).length;
      options.onRound?.({
        close,
        written: report.written - writtenBefore,
        symbols,
        lagMs: committed === undefined ? 0 : committed - close,
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

function barsIn(s: Span | undefined, dur: number): number {
  return s === undefined ? 0 : (s.to - s.from) / dur + 1;
}

/** The page a pair asks for next: the tail first (the newest bars matter most), oldest end first; then the backfill, newest end first. */
function nextPage(work: PairWork, pageLimit: number, dur: number): Page {
  if (work.tail) return { work, direction: "tail", since: work.tail.from, limit: Math.min(pageLimit, barsIn(work.tail, dur)), accept: work.tail };
  const back = work.back!;
  const from = Math.max(back.from, back.to - (pageLimit - 1) * dur);
  return { work, direction: "back", since: from, limit: (back.to - from) / dur + 1, accept: { from, to: back.to } };
}

/** The candles worth writing: inside `accept`, closed at `now`, each open time once (the exchange's last word wins), oldest first. */
function closedIn(accept: Span, candles: readonly Candle[], now: number, dur: number): Candle[] {
  const byTime = new Map<number, Candle>();
  for (const c of candles) if (c[0] >= accept.from && c[0] <= accept.to && c[0] + dur <= now) byTime.set(c[0], c);
  return [...byTime.values()].sort((a, b) => a[0] - b[0]);
}

/** Moves a pair's work past a page the exchange answered. */
function advance(page: Page, candles: readonly Candle[], kept: readonly Candle[], dur: number): void {
  const work = page.work;
  const newest = kept.at(-1)?.[0];
  if (page.direction === "tail") {
    const tail = work.tail!;
    if (newest !== undefined) work.last = newest;
    const reached = candles.reduce((max, c) => Math.max(max, c[0]), -Infinity);
    // Done when the exchange has nothing more now: a short page, one past the stretch, or one
    // that did not move forward (an exchange that ignores `since`). Bars it did not send yet
    // are asked for again at the next close (--follow) or the next sync.
    const next = Math.max(reached, newest ?? reached) + dur;
    work.tail = candles.length < page.limit || reached >= tail.to || next <= tail.from ? undefined : span(next, tail.to);
    return;
  }
  const back = work.back!;
  if (work.last === undefined && newest !== undefined) work.last = newest;
  // A page with no bar in its stretch: the exchange's history of the pair ends here.
  work.back = kept.length === 0 ? undefined : span(back.from, page.since - dur);
}

/** Stretches every tail to the bar closed at `latest` (a pair with nothing stored from `since`); false when nothing new closed. */
function extendTails(works: readonly PairWork[], latest: number, dur: number, since: number): boolean {
  let any = false;
  for (const work of works) {
    const from = work.tail?.from ?? (work.last === undefined ? since : work.last + dur);
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
