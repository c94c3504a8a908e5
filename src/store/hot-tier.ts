/**
 * The service's hot tier (issue 19): the latest bars of each series the service has served stay
 * in memory as typed arrays, and runs read views over them — no store read and no copy per run.
 *
 * - Loaded by (market, timeframe), every symbol at once (the shape of a screen's read), as deep
 *   as the deepest request so far and holding the series requests have named (besides times);
 *   least recently used groups leave first when the budget (`--cache-mb`, default 512 MiB) is
 *   reached. A load keeps the store's buffers (`latestBarsWithRoom`): the bars are copied once,
 *   from the store's rows to their place in the tier.
 * - Kept exact: before serving, the tier catches up with the store's data version. The writes
 *   since (from the store's change log; a local write tells its own at once) name the series
 *   they touched and from which bar on, and only those bars are read again and put in place —
 *   an append of one bar to 10,000 series reads 10,000 catalog rows, not 3 million bars. When
 *   the log cannot tell, everything is read again. So a run over the tier sees exactly what a
 *   run reading the store would.
 * - Safe under runs: a run holds a {@link HotLease} while it reads its views; a write that
 *   changes bars a leased run may be reading puts them in new arrays (the run keeps the old
 *   ones), and changes bars in place only when no run can see them. Appends past the end never
 *   move a bar a view covers.
 */
import type { Bars, RawSeries, Timeframe } from "../types.js";
import { BAR_COLUMNS, TIMEFRAME_MS } from "../types.js";
import { trustBars, trustRead } from "../bars/trust.js";
import { orderedSeries } from "./blocks.js";
import { nanColumn } from "./engine/reader.js";
import type { BarStore, DataChange, LatestBarsRequest, SymbolBars, TouchedSeries } from "./store.js";

const COLUMNS = BAR_COLUMNS;
/** The columns held of a series: its times, and the raw series its group holds ({@link Group.held}). */
type HeldColumns = { time: Float64Array } & Partial<Record<RawSeries, Float64Array>>;
/** Bars loaded beyond the deepest request, for the cut of a finer source and for appends. */
const SLACK = 16;
/** Spare values after each series' bars in its arrays, for appends in place. */
const ROOM = 2 * SLACK;

/** One series in memory: bars [start, start + n) of its columns, oldest first. */
class HotSeries {
  start = 0;
  n = 0;
  /** The series holds no more bars than these (it is shorter than the depth loaded). */
  complete = false;
  /** The newest lease epoch that took views of these arrays. */
  viewed = -1;
  /**
   * The views handed out last, over `columns` at [from, to): a request for the same bars gets
   * the same object again (views are windows on the arrays, so the object shows exactly what a
   * new one would), sparing six view objects per series per run. Dropped when `columns` change.
   */
  lastView: { columns: HeldColumns; from: number; to: number; bars: Bars } | undefined;

  constructor(public columns: HeldColumns) {}

  get capacity(): number {
    return this.columns.time.length;
  }

  /** Bytes of its arrays. */
  get bytes(): number {
    let held = 0;
    for (const name of COLUMNS) if (this.columns[name]) held++;
    return this.capacity * 8 * held;
  }

  lastTime(): number {
    return this.n === 0 ? Number.NEGATIVE_INFINITY : this.columns.time[this.start + this.n - 1]!;
  }
}

/** All symbols of one (market, timeframe) that the tier holds, loaded `depth` bars deep. */
interface Group {
  market: string;
  timeframe: Timeframe;
  depth: number;
  /**
   * The raw series held besides the times: those requests have named (a screen reads a few of
   * the five; holding all would triple the memory a first run fills). A request naming another
   * loads the group again with it.
   */
  held: readonly RawSeries[];
  /** Counts the refreshes of its series: an answer made at the same count is still exact. */
  generation: number;
  /** Symbols in the store's order. */
  symbols: string[];
  series: Map<string, HotSeries>;
  bytes: number;
}

/**
 * The answer to a request for every symbol, made when its groups were at these generations: while
 * they are, the same request gets the same list again (a warm run then costs the tier a pass over
 * its series to mark them viewed, no lookups by symbol, no cut, no new objects).
 */
interface Answer {
  group: Group;
  generation: number;
  base: Group;
  baseGeneration: number;
  series: HotSeries[];
  out: SymbolBars[];
}

/** A run reading views of the tier: release it once the run is done with them. */
export interface HotLease {
  /** The run is done with its views: writes may change those bars in place again. */
  release(): void;
}

/** Options of {@link HotTier}. */
export interface HotTierOptions {
  /** Most bytes of bars held; least recently used (market, timeframe) groups leave first. Default 512 MiB. */
  budgetBytes?: number;
}

/** Counters for tests and benchmarks. */
export interface HotTierStats {
  /** Bytes of bars held. */
  bytes: number;
  /** (market, timeframe) groups held. */
  groups: number;
  /** Requests served from memory. */
  hits: number;
  /** Groups read from the store whole. */
  loads: number;
  /** Series refreshed from the bars a write touched. */
  refreshed: number;
  /** Times everything was dropped (the change log could not tell what changed). */
  resets: number;
}

const groupKey = (market: string, timeframe: Timeframe): string => `${market}\u0000${timeframe}`;

/** The latest bars of the series a service has served, in memory, kept exact (see the file's comment). */
export class HotTier {
  /** Most bytes of bars held (see {@link HotTierOptions.budgetBytes}). */
  readonly budgetBytes: number;
  private readonly groups = new Map<string, Group>();
  /** The latest answer per (market, timeframe, base timeframe, bars), see {@link Answer}. */
  private readonly answers = new Map<string, Answer>();
  private bytes = 0;
  /** The store's data version the groups reflect; undefined before the first sync. */
  private version: number | undefined;
  private symbolLists = new Map<string, string[]>();
  /** Serializes catching up and loading: one store read at a time changes the tier. */
  private queue: Promise<unknown> = Promise.resolve();
  private epoch = 0;
  private readonly active = new Set<number>();
  private stopWatching: (() => void) | undefined;
  private readonly counters: HotTierStats = { bytes: 0, groups: 0, hits: 0, loads: 0, refreshed: 0, resets: 0 };

  constructor(
    private readonly store: BarStore,
    options: HotTierOptions = {},
  ) {
    this.budgetBytes = options.budgetBytes ?? 512 * 1024 * 1024;
  }

  /** Catches up as soon as the store tells of a write (so the first run after it finds the tier current). */
  watch(): void {
    if (this.stopWatching) return;
    this.stopWatching = this.store.watch((change) => this.onChange(change));
  }

  /** Stops following the store's writes and drops every bar held. */
  close(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    this.groups.clear();
    this.answers.clear();
    this.bytes = 0;
  }

  /** What the tier holds and has done so far. */
  stats(): HotTierStats {
    return { ...this.counters, bytes: this.bytes, groups: this.groups.size };
  }

  /** A lease for a run's views; see the file's comment. */
  lease(): HotLease {
    const epoch = ++this.epoch;
    this.active.add(epoch);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.active.delete(epoch);
      },
    };
  }

  private onChange(change: DataChange): void {
    if (this.version === undefined || change.version <= this.version) return;
    void this.serial(() => this.catchUp(change.version, change.touched)).catch(() => undefined);
  }

  /** Runs `work` after everything queued before it. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Brings the tier to the store's data version `version` (read by the caller just before). */
  sync(version: number): Promise<void> {
    if (this.version === version) return Promise.resolve();
    return this.serial(() => this.catchUp(version, undefined));
  }

  private async catchUp(version: number, touched: readonly TouchedSeries[] | undefined): Promise<void> {
    if (this.version === undefined) {
      this.version = version;
      return;
    }
    if (version <= this.version) return;
    let changes: readonly TouchedSeries[] | null | undefined = touched;
    // A local write's own list is exact only when it is the next version; otherwise ask the log.
    if (changes === undefined || version !== this.version + 1) {
      const found = await this.store.changesSince(this.version);
      changes = found.touched;
      version = found.version;
    }
    this.symbolLists.clear();
    if (changes === null) {
      this.reset();
      this.version = version;
      return;
    }
    // Per loaded group, the earliest changed bar of each touched symbol.
    const byGroup = new Map<string, Map<string, number>>();
    for (const t of changes) {
      if (!this.groups.has(groupKey(t.market, t.timeframe))) continue;
      let symbols = byGroup.get(groupKey(t.market, t.timeframe));
      if (!symbols) byGroup.set(groupKey(t.market, t.timeframe), (symbols = new Map()));
      symbols.set(t.symbol, Math.min(symbols.get(t.symbol) ?? Number.POSITIVE_INFINITY, t.from));
    }
    for (const [key, symbols] of byGroup) {
      const group = this.groups.get(key)!;
      await this.refresh(group, symbols);
    }
    this.version = version;
  }

  /** Drops everything (the next requests load afresh). */
  private reset(): void {
    this.groups.clear();
    this.answers.clear();
    this.bytes = 0;
    this.counters.resets++;
  }

  /** Reads again the bars of the touched series of a group from their first changed bar on, and puts them in place. */
  private async refresh(group: Group, touched: Map<string, number>): Promise<void> {
    const since: { symbol: string; from: number }[] = [];
    const reload: string[] = [];
    for (const [symbol, from] of touched) {
      const series = group.series.get(symbol);
      // A series gone whole, new, or changed before what the tier holds: read it again whole.
      if (!series || from === Number.NEGATIVE_INFINITY || (series.n > 0 && from < series.columns.time[series.start]! && !series.complete)) reload.push(symbol);
      else since.push({ symbol, from });
    }
    const fresh = since.length > 0 ? await this.store.barsSince(group.market, group.timeframe, since) : [];
    const bySymbol = new Map(fresh.map((s) => [s.symbol, s.bars]));
    for (const { symbol, from } of since) this.splice(group, group.series.get(symbol)!, from, bySymbol.get(symbol));
    if (reload.length > 0) {
      const read = await this.load(group.market, group.timeframe, group.depth, group.held, reload);
      const got = new Map(read.map((s) => [s.symbol, s.bars]));
      for (const symbol of reload) {
        const old = group.series.get(symbol);
        if (old) group.bytes -= old.bytes;
        const bars = got.get(symbol);
        if (!bars || bars.time.length === 0) group.series.delete(symbol);
        else group.series.set(symbol, this.hold(bars, group.depth, group.held));
        if (bars) group.bytes += group.series.get(symbol)!.bytes;
      }
      group.symbols = [...group.series.keys()].sort(compareSymbols);
    }
    group.generation++;
    this.counters.refreshed += touched.size;
    this.recount();
  }

  /** Replaces the bars of `series` from `from` on by `bars` (all of them from `from`), in place when no run can see the change. */
  private splice(group: Group, series: HotSeries, from: number, bars: Bars | undefined): void {
    const time = series.columns.time;
    let keep = series.n;
    while (keep > 0 && time[series.start + keep - 1]! >= from) keep--;
    const added = bars?.time.length ?? 0;
    // Bars a leased run may be reading are rewritten only in new arrays.
    const overwrites = keep < series.n;
    const seen = this.leasedSince(series.viewed);
    const total = keep + added;
    if (series.start + total > series.capacity || (overwrites && seen)) {
      const kept = Math.min(total, group.depth + SLACK);
      const capacity = Math.max(kept + 2 * SLACK, series.capacity);
      const skip = total - kept;
      const columns = newColumns(capacity, group.held);
      const before = series.bytes;
      for (const name of COLUMNS) {
        const target = columns[name];
        const old = series.columns[name];
        if (!target || !old) continue;
        const fromOld = Math.max(0, keep - skip);
        target.set(old.subarray(series.start + keep - fromOld, series.start + keep), 0);
        if (bars) target.set((bars[name] as Float64Array).subarray(Math.max(0, skip - keep)), fromOld);
      }
      series.columns = columns;
      group.bytes += series.bytes - before;
      series.lastView = undefined;
      series.start = 0;
      series.n = kept;
      if (skip > 0) series.complete = false;
      return;
    }
    for (const name of COLUMNS) {
      if (bars) series.columns[name]?.set(bars[name] as Float64Array, series.start + keep);
    }
    series.n = total;
  }

  /** True when a run that may hold views taken at epoch `viewed` or later is still running. */
  private leasedSince(viewed: number): boolean {
    for (const epoch of this.active) if (epoch <= viewed) return true;
    return false;
  }

  /**
   * The latest `depth` bars of a (market, timeframe), their times and `held` series, of `symbols`
   * only when given, with {@link ROOM} spare values after each symbol's bars (see
   * `BarStore.latestBarsWithRoom`), so the tier keeps the store's buffers rather than a copy.
   */
  private async load(
    market: string,
    timeframe: Timeframe,
    depth: number,
    held: readonly RawSeries[],
    symbols?: readonly string[],
  ): Promise<SymbolBars[]> {
    const request: LatestBarsRequest = { market, timeframe, baseTimeframe: timeframe, series: held, count: depth, ...(symbols ? { symbols } : {}) };
    return this.store.latestBarsWithRoom(request, ROOM);
  }

  /** A series of `bars` read by {@link load}: views with room over the store's buffers. */
  private hold(bars: Bars, depth: number, held: readonly RawSeries[]): HotSeries {
    const n = bars.time.length;
    const columns = roomyColumns(bars, n + ROOM, held);
    const series = new HotSeries(columns);
    series.n = n;
    series.complete = n < depth;
    return series;
  }

  private recount(): void {
    let bytes = 0;
    for (const group of this.groups.values()) bytes += group.bytes;
    this.bytes = bytes;
  }

  /** The symbols of a market at the tier's version. */
  async symbols(market: string): Promise<string[]> {
    const held = this.symbolLists.get(market);
    if (held) return held;
    const symbols = await this.store.symbols(market);
    this.symbolLists.set(market, symbols);
    return symbols;
  }

  /**
   * The latest bars a plan source asks for (as {@link BarStore.latestBars} would give them), as
   * views over the tier's arrays, loading the (market, timeframe) when it is not held deep
   * enough; marked as the store's, so the evaluator skips its checks of them. Call
   * {@link sync} first with the store's data version. The list may be the one handed out
   * before: callers do not change it.
   */
  async latestBars(request: LatestBarsRequest, lease: HotLease | undefined): Promise<SymbolBars[]> {
    const base = request.timeframe === request.baseTimeframe;
    const want = base ? request.count : request.count + 1;
    const group = await this.group(request.market, request.timeframe, want, request.series);
    const baseGroup = base ? group : await this.group(request.market, request.baseTimeframe, 1, []);
    if (!group || !baseGroup) return trustRead(await this.store.latestBars(request));
    const epoch = lease ? this.epoch : Number.POSITIVE_INFINITY;
    const key = request.symbols ? undefined : `${request.market}\u0000${request.timeframe}\u0000${request.baseTimeframe}\u0000${want}`;
    const known = key === undefined ? undefined : this.answers.get(key);
    if (known && known.group === group && known.generation === group.generation && known.base === baseGroup && known.baseGeneration === baseGroup.generation) {
      for (const series of known.series) series.viewed = Math.max(series.viewed, epoch);
      this.counters.hits++;
      return known.out;
    }
    const only = request.symbols ? new Set(request.symbols) : undefined;
    const duration = TIMEFRAME_MS[request.baseTimeframe];
    const out: SymbolBars[] = [];
    const seen: HotSeries[] = [];
    for (const symbol of group.symbols) {
      if (only && !only.has(symbol)) continue;
      const series = group.series.get(symbol)!;
      let end = series.n;
      if (!base) {
        const baseSeries = baseGroup.series.get(symbol);
        if (!baseSeries) continue;
        const cut = baseSeries.lastTime() + duration;
        const time = series.columns.time;
        while (end > 0 && time[series.start + end - 1]! >= cut) end--;
      }
      const take = Math.min(want, end);
      if (take < want && !series.complete) {
        // Rarer than rare: a finer source cut so far back that the tier does not hold enough.
        return trustRead(await this.store.latestBars(request));
      }
      series.viewed = Math.max(series.viewed, epoch);
      seen.push(series);
      const from = series.start + end - take;
      const to = series.start + end;
      const c = series.columns;
      const last = series.lastView;
      if (last && last.columns === c && last.from === from && last.to === to) {
        out.push({ symbol, bars: last.bars });
        continue;
      }
      const bars: Bars = {
        time: c.time.subarray(from, to),
        open: viewOf(c.open, from, to),
        high: viewOf(c.high, from, to),
        low: viewOf(c.low, from, to),
        close: viewOf(c.close, from, to),
        volume: viewOf(c.volume, from, to),
      };
      series.lastView = { columns: c, from, to, bars: trustBars(bars) };
      out.push({ symbol, bars });
    }
    if (key !== undefined) this.answers.set(key, { group, generation: group.generation, base: baseGroup, baseGeneration: baseGroup.generation, series: seen, out });
    this.counters.hits++;
    return out;
  }

  /**
   * The group of (market, timeframe) at least `depth` deep holding `series`, loading it when
   * needed (with what it held before); undefined when it cannot fit the budget.
   */
  private async group(market: string, timeframe: Timeframe, depth: number, series: readonly RawSeries[]): Promise<Group | undefined> {
    const key = groupKey(market, timeframe);
    const covers = (g: Group | undefined): boolean => g !== undefined && g.depth >= depth && series.every((name) => g.held.includes(name));
    const found = this.groups.get(key);
    if (found && covers(found)) {
      this.groups.delete(key);
      this.groups.set(key, found);
      return found;
    }
    return this.serial(async () => {
      const again = this.groups.get(key);
      if (again && covers(again)) return again;
      const want = Math.max(depth + SLACK, again?.depth ?? 0);
      const held = orderedSeries([...series, ...(again?.held ?? [])]);
      const read = await this.load(market, timeframe, want, held);
      const group: Group = { market, timeframe, depth: want, held, generation: 0, symbols: [], series: new Map(), bytes: 0 };
      for (const { symbol, bars } of read) {
        if (bars.time.length === 0) continue;
        const one = this.hold(bars, want, held);
        group.series.set(symbol, one);
        group.bytes += one.bytes;
      }
      group.symbols = read.map((s) => s.symbol).filter((s) => group.series.has(s));
      this.counters.loads++;
      if (again) this.groups.delete(key);
      if (group.bytes > this.budgetBytes) {
        this.recount();
        this.dropStaleAnswers();
        return undefined;
      }
      this.groups.set(key, group);
      this.recount();
      // Least recently used first out.
      for (const [k] of this.groups) {
        if (this.bytes <= this.budgetBytes) break;
        if (k === key) continue;
        this.groups.delete(k);
        this.recount();
      }
      this.dropStaleAnswers();
      return group;
    });
  }

  /** Forgets the answers over groups the tier no longer holds (replaced or left out), so they do not keep those arrays. */
  private dropStaleAnswers(): void {
    const holds = (g: Group): boolean => this.groups.get(groupKey(g.market, g.timeframe)) === g;
    for (const [key, answer] of this.answers) if (!holds(answer.group) || !holds(answer.base)) this.answers.delete(key);
  }
}

function newColumns(capacity: number, held: readonly RawSeries[]): HeldColumns {
  const columns: HeldColumns = { time: new Float64Array(capacity) };
  for (const name of held) columns[name] = new Float64Array(capacity);
  return columns;
}

/**
 * Views of `capacity` values over the buffers of the times and `held` series of `bars`, from
 * where each column starts (see `BarStore.latestBarsWithRoom`); the other columns are the
 * store's shared NaN columns, never widened.
 */
function roomyColumns(bars: Bars, capacity: number, held: readonly RawSeries[]): HeldColumns {
  const widen = (c: Float64Array): Float64Array => new Float64Array(c.buffer, c.byteOffset, capacity);
  const columns: HeldColumns = { time: widen(bars.time as Float64Array) };
  for (const name of held) columns[name] = widen(bars[name] as Float64Array);
  return columns;
}

/** Bars [from, to) of a held column, or NaN where the group does not hold it (the request did not name it). */
function viewOf(column: Float64Array | undefined, from: number, to: number): Float64Array {
  return column ? column.subarray(from, to) : nanColumn(to - from);
}

/** The stores' symbol order (byte order, as `ORDER BY symbol` in SQLite and `COLLATE "C"` in PostgreSQL). */
function compareSymbols(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
