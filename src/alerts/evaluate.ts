/**
 * Evaluation on bar close (decisions §7): the screens of one market and base timeframe read
 * their bars once, and each is evaluated at every base bar closed since its last evaluated one,
 * in order, exactly as the service's `history` evaluates it there (from each bar's anchors,
 * decisions §9) — so the rows at a bar t equal a run on the store cut after t, bit for bit.
 * Events are the transitions of those rows, per symbol over its own bars: a symbol without a
 * bar at t has no event there (absence is not an exit, §14) and keeps its state to its next bar;
 * an exit carries the columns at the bar it stopped matching. Pure over a {@link BarStore}: the engine (`./engine.ts`) commits
 * the outcome, `xql watch` prints it.
 */
import { type AnchoredHistoryOptions, historyRowsAnchoredAsync, type CompiledQuery } from "../api.js";
import type { TrackedRow } from "../eval/history.js";
import { bySymbol } from "../eval/rows.js";
import type { CarryStore } from "../eval/carry.js";
import { parse } from "../ast/lower.js";
import { printQuery } from "../ast/print.js";
import type { BarStore } from "../store/store.js";
import { fetchAnchored } from "../fetch/fetch.js";
import { truncateInstrument } from "../eval/truncate.js";
import type { HotLease, HotTier } from "../store/hot-tier.js";
import type { FetchSource, Instrument, Plan, PlanSource, RawSeries, Timeframe } from "../types.js";
import { MAX_HISTORY_BARS, TIMEFRAME_MS } from "../types.js";
import type { AlertEvent, MatchRow } from "./alerts.js";
import { DEFAULT_ALERT_GRACE_MS, awaitWriters } from "./schedule.js";

/** One screen to evaluate: a compiled query and where it stands. */
export interface Screen {
  /** Tells the screen's outcome apart (an alert id). */
  id: string;
  /** The query text: screens with the same canonical query at the same bar share one evaluation. */
  query: string;
  compiled: CompiledQuery;
  /** Open time of the last base bar evaluated; null before any (every closed bar is then new). */
  lastTime: number | null;
  /** The rows matching at `lastTime`, by symbol. */
  matching: readonly MatchRow[];
}

/** One base bar evaluated for one screen. */
export interface EvaluatedBar {
  time: number;
  /** The rows matching at `time`, by symbol (sort and limit decided which, as in history). */
  matching: MatchRow[];
  /** Enters and exits against the previous evaluated bar, by symbol. */
  events: AlertEvent[];
}

/** What one evaluation of a group found. */
export interface GroupEvaluation {
  /** Per screen id, its new bars in order (empty when none closed since its last). */
  bars: Map<string, EvaluatedBar[]>;
  /** The close (ms) of the earliest stored base bar still in progress: when to look again; undefined when none. */
  nextClose: number | undefined;
}

/** Options of the evaluation: the service's warm-up and fetch cache, and its turn-taking. */
export interface EvaluateOptions {
  /** Bars per source beyond the plan's need, as a run fetches (default 300). */
  warmup: number;
  /** The service's hot tier: an evaluation holds a lease on its views until it is done. */
  cache?: HotTier;
  /** ms of evaluation between turns of the event loop (default 10). */
  sliceMs?: number;
  /**
   * Most base bars one screen evaluates in one go (default 1,000, the service's history window):
   * a backfill of more closed bars under an existing alert evaluates the latest ones.
   */
  maxCatchUp?: number;
  /** How long after a bar's close its round waits for symbols still to write it, ms (default 5,000; decisions §14). */
  graceMs?: number;
  /**
   * The carried passes of these screens (eval/carry.ts), one store per (market, base timeframe)
   * group: a newly closed bar then costs one step per indicator per symbol. Without it every bar
   * is evaluated by a pass from its anchor; the numbers are the same.
   */
  carry?: CarryStore;
}

/**
 * Evaluates the screens (all of one market and base timeframe) at every base bar closed by `now`
 * since each one's `lastTime`. Their bars are read once, for all of them: each source with the
 * union of the series and the largest fetch any of them needs, plus the bars still to evaluate.
 */
export async function evaluateGroup(store: BarStore, screens: readonly Screen[], now: number, options: EvaluateOptions): Promise<GroupEvaluation> {
  // The tier's views stay as read until the evaluation is done; writes meanwhile copy.
  const lease = options.cache?.lease();
  try {
    return await evaluateLeased(store, screens, now, options, lease);
  } finally {
    lease?.release();
  }
}

async function evaluateLeased(store: BarStore, screens: readonly Screen[], now: number, options: EvaluateOptions, lease: HotLease | undefined): Promise<GroupEvaluation> {
  const bars = new Map<string, EvaluatedBar[]>(screens.map((s) => [s.id, []]));
  if (screens.length === 0) return { bars, nextClose: undefined };
  const cap = options.maxCatchUp ?? MAX_HISTORY_BARS;
  const { plan, fetch } = unionOf(screens.map((s) => s.compiled));
  const base = plan.sources[0]!.timeframe;
  const oldest = Math.min(...screens.map((s) => s.lastTime ?? -Infinity));
  // Before the read: the passes the writes since the last round changed are dropped.
  await options.carry?.invalidate(store);
  const universe = await readCovering(store, plan, fetch, screens.flatMap((s) => s.compiled.fetch), oldest, now, cap, options, lease);
  const { closed, nextClose } = awaitWriters(universe, base, closedTimes(universe, base, oldest, now), now, options.graceMs ?? DEFAULT_ALERT_GRACE_MS);
  if (closed.length === 0) return { bars, nextClose };
  const latest = closed[closed.length - 1]!;
  const evaluable = truncateAfter(universe, base, latest);

  // Screens with the same canonical query at the same bar evaluate once (many accounts watch the
  // same screen, written in their own spacing and case); the pass follows every symbol any of
  // them has matching, so that each one's exits carry the columns at their bar.
  const groups = new Map<string, { screen: Screen; pending: number[]; track: Set<string>; members: { screen: Screen; matching: readonly MatchRow[] }[] }>();
  for (const screen of screens) {
    const pending = closedAfter(closed, screen.lastTime, cap);
    if (pending.length === 0) continue;
    const key = `${screen.lastTime}\n${pending.length}\n${canonicalQuery(screen.query)}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { screen, pending, track: new Set(), members: [] }));
    const matching = onList(screen);
    for (const row of matching) group.track.add(row.symbol);
    group.members.push({ screen, matching });
  }
  // Screens that are gone take their carried passes with them.
  options.carry?.retain(new Set(screens.map((s) => canonicalQuery(s.query))));
  for (const group of groups.values()) {
    const carry = options.carry ? { store: options.carry, key: canonicalQuery(group.screen.query) } : undefined;
    const rows = await rowsByBar(group.screen.compiled, evaluable, group.pending.length, group.track, options.sliceMs, carry);
    // Members that stood on the same rows get the same transitions (usually all of them).
    const byState = new Map<string, EvaluatedBar[]>();
    for (const { screen, matching } of group.members) {
      // A screen alone in its group (the common case) has nothing to share: its rows are not printed to be compared.
      if (group.members.length === 1) {
        bars.set(screen.id, transitions(matching, group.pending, rows));
        continue;
      }
      const state = JSON.stringify(matching);
      let evaluated = byState.get(state);
      if (!evaluated) byState.set(state, (evaluated = transitions(matching, group.pending, rows)));
      bars.set(screen.id, evaluated);
    }
  }
  return { bars, nextClose };
}

/**
 * The screen's matching symbols that are still on its list (decisions §13: an alert on a
 * watchlist follows the list as it is at each bar). A symbol taken off the list leaves the
 * alert's state without an event: it did not stop matching, its owner stopped following it (an
 * `exit` would say otherwise), and as an absent symbol it would otherwise stay matching forever.
 */
function onList(screen: Screen): readonly MatchRow[] {
  const listed = screen.compiled.symbols;
  if (listed === undefined) return screen.matching;
  const wanted = new Set(listed);
  return screen.matching.every((row) => wanted.has(row.symbol)) ? screen.matching : screen.matching.filter((row) => wanted.has(row.symbol));
}

/**
 * The canonical printed query (`printQuery`): the key under which screens share one evaluation.
 * A text that does not parse (never so for a stored alert) keys as itself.
 */
function canonicalQuery(text: string): string {
  let canonical = canonical_.get(text);
  if (canonical === undefined) {
    try {
      canonical = printQuery(parse(text));
    } catch {
      canonical = text;
    }
    if (canonical_.size >= 4096) canonical_.clear();
    canonical_.set(text, canonical);
  }
  return canonical;
}

/** Canonical texts by query text, bounded (cleared when full): alerts' queries repeat round after round. */
const canonical_ = new Map<string, string>();

/** The rows matching at the latest base bar closed by `now`: an alert's baseline. */
export async function baselineOf(store: BarStore, compiled: CompiledQuery, now: number, options: EvaluateOptions): Promise<{ time: number | null; matching: MatchRow[] }> {
  const { plan, fetch } = unionOf([compiled]);
  const base = plan.sources[0]!.timeframe;
  const lease = options.cache?.lease();
  try {
    const universe = await fetchAnchored(store, plan, { warmup: options.warmup, cache: options.cache, lease, fetch, anchorSources: fetch });
    const { closed } = closedTimes(universe, base, -Infinity, now, 1);
    const latest = closed[closed.length - 1];
    if (latest === undefined) return { time: null, matching: [] };
    const rows = await rowsByBar(compiled, truncateAfter(universe, base, latest), 1, NO_SYMBOLS, options.sliceMs);
    return { time: latest, matching: rows.matching.get(latest) ?? [] };
  } finally {
    lease?.release();
  }
}

/** The rows of the service's `history` at each of the last `window` base bars, and the tracked symbols' rows at each of their bars. */
interface BarRows {
  /** By bar time: the rows matching there, by symbol. */
  readonly matching: Map<number, MatchRow[]>;
  /** By bar time: the tracked symbols that have a bar there and are not in its matching rows, with their columns, by symbol. */
  readonly present: Map<number, readonly MatchRow[]>;
}

async function rowsByBar(
  compiled: CompiledQuery,
  universe: Instrument[],
  window: number,
  track: ReadonlySet<string>,
  sliceMs = 10,
  carry?: AnchoredHistoryOptions["carry"],
): Promise<BarRows> {
  const scan = await historyRowsAnchoredAsync(compiled, universe, { bars: window, sliceMs, track, ...(carry ? { carry } : {}) });
  // The history's rows themselves (a row is a symbol and its columns, as a match row is): a round
  // makes no copy of the tens of thousands it may find.
  const matching = new Map<number, MatchRow[]>();
  scan.perBar.forEach((hits, b) => {
    if (hits.length > 0) matching.set(scan.window[b]!, hits.map((hit) => hit.row));
  });
  return { matching, present: presentByBar(scan.tracked) };
}

/**
 * The tracked rows by bar time, each bar's by symbol. A round's (one bar, in the universe's
 * symbol order, the common case) are taken as they are: no map of tens of thousands of symbols.
 */
function presentByBar(tracked: readonly TrackedRow[]): Map<number, readonly MatchRow[]> {
  const present = new Map<number, TrackedRow[]>();
  const time = tracked[0]?.time;
  if (tracked.every((row) => row.time === time)) {
    if (time !== undefined) present.set(time, inSymbolOrder(tracked));
    return present;
  }
  for (const row of tracked) {
    let at = present.get(row.time);
    if (!at) present.set(row.time, (at = []));
    at.push(row);
  }
  for (const [t, rows] of present) present.set(t, inSymbolOrder(rows));
  return present;
}

/** The rows by symbol: themselves when they already are. */
function inSymbolOrder(rows: readonly TrackedRow[]): TrackedRow[] {
  for (let k = 1; k < rows.length; k++) if (!(rows[k - 1]!.symbol < rows[k]!.symbol)) return [...rows].sort(bySymbol);
  return rows as TrackedRow[];
}

/**
 * Each pending bar's rows and events, per symbol over its own bars. At bar t a symbol that
 * matched before and has a bar at t but does not match exits, with its columns at t; one
 * without a bar at t has no event and keeps matching to its next bar (its row carried); a
 * symbol matching at t that did not before enters. The lists are by symbol, so one merge finds
 * them (and the tracked rows of the symbols present at t, by symbol too). A symbol that matched
 * before is tracked by the pass, so its presence at t is known.
 */
function transitions(previous: readonly MatchRow[], pending: readonly number[], rows: BarRows): EvaluatedBar[] {
  const out: EvaluatedBar[] = [];
  let before = previous;
  for (const time of pending) {
    const is = rows.matching.get(time) ?? NO_ROWS;
    const present = rows.present.get(time) ?? NO_ROWS;
    const events: AlertEvent[] = [];
    const now: MatchRow[] = [];
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < before.length || j < is.length) {
      const was = before[i];
      const row = is[j];
      if (row === undefined || (was !== undefined && was.symbol < row.symbol)) {
        const symbol = was!.symbol;
        while (k < present.length && present[k]!.symbol < symbol) k++;
        // Absent at t: no event, still matching (its last row carried to its next bar).
        if (k < present.length && present[k]!.symbol === symbol) events.push({ symbol, kind: "exit", columns: present[k]!.columns });
        else now.push(was!);
        i++;
      } else if (was === undefined || row.symbol < was.symbol) {
        events.push({ symbol: row.symbol, kind: "enter", columns: row.columns });
        now.push(row);
        j++;
      } else {
        now.push(row);
        i++;
        j++;
      }
    }
    out.push({ time, matching: now, events });
    before = now;
  }
  return out;
}

/** No symbol tracked (a baseline has no previous bar). */
const NO_SYMBOLS: ReadonlySet<string> = new Set();

/** The rows of a bar where nothing matched: one list for all (never changed). */
const NO_ROWS: MatchRow[] = [];

/** One plan and fetch covering every screen: each timeframe with the union of series and the largest need. */
export function unionOf(compiled: readonly CompiledQuery[]): { plan: Plan; fetch: FetchSource[] } {
  const first = compiled[0]!.plan;
  const base = first.sources[0]!.timeframe;
  const sources = new Map<Timeframe, { series: Set<RawSeries>; minLookback: number; bars: number }>();
  for (const c of compiled) {
    for (const source of c.plan.sources) {
      let s = sources.get(source.timeframe);
      if (!s) sources.set(source.timeframe, (s = { series: new Set(), minLookback: 0, bars: 0 }));
      for (const name of source.series) s.series.add(name);
      s.minLookback = Math.max(s.minLookback, source.minLookback);
    }
    for (const f of c.fetch) {
      const s = sources.get(f.timeframe)!;
      for (const name of f.series) s.series.add(name);
      s.bars = Math.max(s.bars, f.bars);
    }
  }
  // The base first (the fetch cuts the others at its bars' close), then by duration.
  const order = [...sources.keys()].sort((a, b) => (a === base ? -1 : b === base ? 1 : TIMEFRAME_MS[a] - TIMEFRAME_MS[b]));
  const planSources: PlanSource[] = order.map((tf) => ({ timeframe: tf, series: [...sources.get(tf)!.series].sort(), minLookback: sources.get(tf)!.minLookback }));
  const fetch: FetchSource[] = order.map((tf) => ({ timeframe: tf, series: [...sources.get(tf)!.series].sort(), bars: sources.get(tf)!.bars }));
  return { plan: { market: first.market, sources: planSources }, fetch };
}

/**
 * Reads the universe with enough base bars to evaluate every bar after `oldest`: first as a run
 * reads it, then, when more bars are new than that read's extra covers, again with more
 * (history's window less one, as `POST /xql/history` reads), up to `cap` bars.
 *
 * Why the count suffices: when K distinct base times after `oldest` were read with extra ≥ K − 1,
 * no symbol can hold a bar after `oldest` that was not read — a symbol with more such bars than
 * it was given would have shown more than K times.
 */
async function readCovering(
  store: BarStore,
  plan: Plan,
  fetch: FetchSource[],
  anchorSources: readonly FetchSource[],
  oldest: number,
  now: number,
  cap: number,
  options: EvaluateOptions,
  lease: HotLease | undefined,
): Promise<Instrument[]> {
  const base = plan.sources[0]!.timeframe;
  let extra = 0;
  for (;;) {
    const universe = await fetchAnchored(store, plan, {
      warmup: options.warmup,
      cache: options.cache,
      lease,
      fetch,
      anchorSources,
      bars: extra + 1,
      // The earliest bar evaluated: the first closed after `oldest` of the latest `cap`.
      firstTime: (read) => closedTimes(read, base, oldest, now, cap).closed[0],
    });
    const fresh = distinctAfter(universe, base, oldest, cap + 1);
    if (fresh - 1 <= extra || extra >= cap) return universe;
    extra = Math.min(cap, Math.max(fresh - 1, 2 * extra + 1));
  }
}

/** How many distinct base bar times after `after` the universe holds, counting at most `most`. */
function distinctAfter(universe: readonly Instrument[], base: Timeframe, after: number, most: number): number {
  const seen = new Set<number>();
  for (const instrument of universe) {
    const time = instrument.bars[base]?.time;
    if (!time) continue;
    for (let i = time.length - 1; i >= 0 && time[i]! > after; i--) {
      seen.add(time[i]!);
      if (seen.size >= most) return seen.size;
    }
  }
  return seen.size;
}

/**
 * The distinct base bar times after `after` that have closed by `now` (open + duration ≤ now),
 * ascending, at most the latest `most`; and the close of the earliest one still in progress.
 */
function closedTimes(universe: readonly Instrument[], base: Timeframe, after: number, now: number, most = Infinity): { closed: number[]; nextClose: number | undefined } {
  const duration = TIMEFRAME_MS[base];
  const seen = new Set<number>();
  let nextClose: number | undefined;
  for (const instrument of universe) {
    const time = instrument.bars[base]?.time;
    if (!time) continue;
    let closedSeen = 0;
    for (let i = time.length - 1; i >= 0 && time[i]! > after; i--) {
      const t = time[i]!;
      if (t + duration > now) {
        if (nextClose === undefined || t + duration < nextClose) nextClose = t + duration;
        continue;
      }
      seen.add(t);
      // Only the latest `most` closed times can matter; older bars of this symbol cannot be among them.
      if (++closedSeen >= most) break;
    }
  }
  const closed = [...seen].sort((a, b) => a - b);
  return { closed: closed.length > most ? closed.slice(closed.length - most) : closed, nextClose };
}

/** The closed times after `last`, the latest `cap` of them. */
function closedAfter(closed: readonly number[], last: number | null, cap: number): number[] {
  let from = closed.length;
  while (from > 0 && (last === null || closed[from - 1]! > last)) from--;
  return closed.slice(Math.max(from, closed.length - cap));
}

/**
 * The universe as it was when base bar `latest` closed (`truncateInstrument` for each
 * instrument): the universe itself when nothing is cut.
 */
export function truncateAfter(universe: Instrument[], base: Timeframe, latest: number): Instrument[] {
  let changed = false;
  const out = universe.map((instrument) => {
    const cut = truncateInstrument(instrument, base, latest);
    if (cut !== instrument) changed = true;
    return cut;
  });
  return changed ? out : universe;
}
