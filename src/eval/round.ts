/**
 * An alert round's newly closed bar, stepped across symbols (decisions §9, "Carried state"):
 * a screen's carried passes (carry.ts) take the new bar slot by slot, each slot for every
 * symbol before the next slot, instead of symbol by symbol through the evaluator.
 *
 * Why: one new bar costs one step of each indicator per symbol, a few nanoseconds of kernel
 * work; evaluated symbol by symbol, a round spent microseconds per (screen, symbol) around it —
 * pointing the frames at the symbol, narrowing them to its anchors, restoring its pass into
 * the slots and saving it back, scanning its window. Across symbols, the per-bar operators
 * (arithmetic, comparisons, `and`/`or`, `not`) run as one loop over every symbol's value, with
 * the very loops `values.ts` runs over bars (one definition: values.ts's exported loops); a
 * call runs its module's own kernel per symbol over the bar, from the state and the inputs'
 * tails the symbol's pass kept, exactly as the carried pass in history.ts does after
 * `restoreCarry`. So every value is the one a pass from the anchor gives, bit for bit
 * (test/eval/carry.test.ts compares them with `Object.is`, and counts the bars taken this way).
 *
 * Two things a round does once for all the symbols rather than once per symbol, because what
 * costs in a step is reaching the data, not computing on it: a call whose value at a bar is its
 * window's alone (a crossing, a per-bar formula, a candle pattern: `stacksWindows`) runs its
 * kernel once over every symbol's window laid end to end (`stackCall`); and the bars' latest
 * values are read from the instruments once per round into one array per column (`recentOf`),
 * from which every screen copies its short windows (the bars of 10,000 instruments lie far
 * apart in memory). The universe itself is read once per round for all its screens, and a call
 * over the bars' own columns that several screens have (`rsi(14)`) is stepped once per symbol:
 * the others take its value and state where their pass stands at the same bar in the same state
 * (`CallMemo`).
 *
 * What goes this way: a round of one new bar, for each symbol whose carried pass continues at
 * that bar — same anchors, its last bar read still the bar before, every tail full and ending
 * at its slot's bar, every state positioned there. A slot's bar is the new one, or for a slot read
 * only through an offset (`close > highest(high, 20)[1]`) the bar `k` before it (`slotLags`,
 * carry.ts): it steps there, as a pass computes it. Only the base timeframe steps: another
 * timeframe's value is the one its pass read last, as long as that timeframe closes no bar at
 * this round. Every other symbol (a new symbol, an anchor switch, a pass dropped by a write,
 * another timeframe closing a bar) is evaluated by `historySteps` as before, and the rows of
 * both are ranked together.
 */
import { anchorTime } from "./anchor.js";
import { convergedAt, isTrusted } from "./bars.js";
import { type CarryStore, carryLayout, readsBack, type ScreenCarry, slotOrder, type SymbolIds } from "./carry.js";
import { type AnchoredHistory, type HistoryHit, type HistoryScan, historySteps, type TrackedRow } from "./history.js";
import { PRIMED_BLOCK_BARS, type Program, type Slot } from "./program.js";
import { alignmentCut, lastClosedIndex } from "../alignment.js";
import { bySymbol, columnsOf, keysOf, rank } from "./rows.js";
import type { Slice } from "./scan.js";
import { arithmeticInto, compareInto, fillType, negateInto, notInto } from "./values.js";
import { TIMEFRAME_MS, type Bars, type Instrument, type Timeframe } from "../types.js";
import { COLUMN_INDEX, type Column } from "./bars.js";
import type { Kernel, KernelContext } from "../functions/kernel.js";
import type { FunctionModule } from "../functions/module.js";

/** What a program's step across symbols needs, decided once per program. */
interface RoundLayout {
  /** Whether the program can step across symbols (every call on the base timeframe resumable or windowed). */
  readonly eligible: boolean;
  /** Every slot, each after the slots it reads. */
  readonly order: readonly Slot[];
  /** Each slot's place in `order`. */
  readonly position: ReadonlyMap<Slot, number>;
  /** Per slot of `order`: its index in the carry layout, or −1 (raw series and constants, read from the bars). */
  readonly carried: Int32Array;
  /**
   * Per slot of `order`: the bar it is computed at, as bars before the new one (`slotLags`): 0, or
   * `k` for a slot read only through an offset `x[k]`. Its value steps at that bar.
   */
  readonly lag: Int32Array;
  /** The most bars before the new one any computation reads (a window, an offset, a primed block). */
  readonly reach: number;
  /** Where in a row each kernel state starts (its slot 0, the bar it is positioned at), and whether its kernel runs in primed blocks. */
  readonly states: Int32Array;
  readonly statesBlocked: Uint8Array;
  /** Per state: its slot's lag (the state is positioned that many bars before the new one). */
  readonly statesLag: Int32Array;
  /** Per slot of `order`, and per carried slot: whether it is on the base timeframe (the others are not stepped). */
  readonly onBase: readonly boolean[];
  readonly baseCarried: readonly boolean[];
  /** Per slot of `order`: 1 for a call stepped for every symbol in one kernel call (`stackCall`). */
  readonly stacked: Uint8Array;
}

/**
 * The longest window (bars before the new one) of a call stepped for every symbol in one kernel
 * call (`stackCall`): a range-independent kernel may compute each value over its whole window,
 * and the stack computes every index of every window, so only short windows go this way.
 */
const STACKED_EXTRA = 4;

/**
 * Whether a module's value at a bar is its inputs' window's alone, whatever range its kernel is
 * asked for and without a state to carry: range-independent (module.ts), not recursive, no
 * `stateSize`. Its calls with a short window step every symbol in one kernel call (`stackCall`).
 */
export function stacksWindows(fn: FunctionModule): boolean {
  return !fn.recursive && fn.rangeIndependent === true && fn.stateSize === undefined;
}

/** Whether a call is stepped for every symbol in one kernel call (see `stackCall`). */
function stackable(slot: Slot): boolean {
  const node = slot.node;
  return node.op === "call" && stacksWindows(node.fn) && slot.state === undefined && !slot.blocked && slot.extra <= STACKED_EXTRA;
}

/**
 * A module's values at the ends of `n` windows laid end to end in its inputs (window j at
 * j·W … j·W + extra, W = extra + 1), into `out[j]`: one kernel call over them all from index
 * `extra`, `result` its buffer (n·W values). For a module that `stacksWindows`, each is the value
 * the kernel gives at that window's last bar in a pass (test/functions/windows.test.ts).
 */
export function windowEnds(fn: FunctionModule, consts: readonly number[], ctx: KernelContext, inputs: readonly Float64Array[], n: number, extra: number, result: Float64Array, out: Float64Array): void {
  const W = extra + 1;
  (fn.kernel as Kernel)(inputs, consts, result, extra, n * W, ctx);
  for (let j = 0; j < n; j++) out[j] = result[j * W + extra]!;
}

const layouts = new WeakMap<Program, RoundLayout>();

function roundLayout(program: Program): RoundLayout {
  let layout = layouts.get(program);
  if (layout) return layout;
  const carry = carryLayout(program);
  const index = new Map(carry.slots.map((s, i) => [s, i]));
  // Children before parents.
  const order = slotOrder(program);
  const lagOf = carry.lagOf;
  // Only the base frame steps: another timeframe's slots are read at its last bar closed, from their tails (a round
  // in which that frame closes a bar goes symbol by symbol).
  const onBase = (slot: Slot): boolean => slot.frame === program.base;
  let eligible = true;
  let reach = 0;
  for (const slot of order) {
    const node = slot.node;
    if (!onBase(slot)) continue;
    // A recursion without a state streams from the first bar of the pass, which a carried pass does not hold.
    if (node.op === "call" && node.fn.recursive && slot.state === undefined) eligible = false;
    // Another timeframe is read at the new bar only (its bars closed by the new bar's close).
    if (node.op === "timeframe" && lagOf.get(slot)! > 0) eligible = false;
    reach = Math.max(reach, readsBack(slot) + lagOf.get(slot)!);
  }
  const stateful = carry.slots.map((_, k) => k).filter((k) => carry.stateAt[k]! >= 0 && onBase(carry.slots[k]!));
  layout = {
    eligible,
    order,
    position: new Map(order.map((s, i) => [s, i])),
    carried: new Int32Array(order.map((s) => index.get(s) ?? -1)),
    lag: new Int32Array(order.map((s) => lagOf.get(s)!)),
    reach,
    states: new Int32Array(stateful.map((k) => carry.stateAt[k]!)),
    statesBlocked: new Uint8Array(stateful.map((k) => (carry.slots[k]!.blocked ? 1 : 0))),
    statesLag: new Int32Array(stateful.map((k) => carry.lags[k]!)),
    onBase: order.map(onBase),
    baseCarried: carry.slots.map(onBase),
    stacked: new Uint8Array(order.map((slot) => (onBase(slot) && stackable(slot) ? 1 : 0))),
  };
  layouts.set(program, layout);
  return layout;
}

/**
 * What every screen of a round reads of its universe, found once for all of them: the latest
 * base bar time, and per instrument its base bars, the index of its bar there (−1: none, or
 * bars not the store's) and the open time of the bar before; the raw columns' values at that
 * bar, one array per column; and views of the columns from a pass's first bar, which every
 * screen with the same anchor shares.
 */
class RoundUniverse {
  readonly instruments: readonly Instrument[];
  readonly symbols: readonly string[];
  readonly time: number;
  readonly bars: readonly (Bars | undefined)[];
  readonly ends: Int32Array;
  readonly previous: Float64Array;
  /** Whether the instruments are in symbol order (the store reads them so). */
  readonly sorted: boolean;
  private readonly viewFrom: Int32Array;
  private readonly views: (Float64Array | undefined)[];

  /** The round before's (its buffers are this round's to reuse: that round is over). */
  private readonly before: RoundHandover;

  constructor(
    universe: Iterable<Instrument>,
    readonly tf: Timeframe,
    before: RoundHandover = { depths: new Int32Array(COLUMNS.length), buffers: [], shared: new Set(), memos: new Map() },
  ) {
    this.before = before;
    this.depths = Int32Array.from(before.depths);
    this.spare = [...before.buffers];
    const instruments = [...universe];
    let time = -Infinity;
    const bars = instruments.map((instrument) => {
      const b = instrument.bars[tf];
      const t = b?.time;
      if (t !== undefined && t.length > 0 && t[t.length - 1]! > time) time = t[t.length - 1]!;
      return b;
    });
    const ends = new Int32Array(instruments.length);
    const previous = new Float64Array(instruments.length).fill(Number.NaN);
    for (let i = 0; i < instruments.length; i++) {
      const t = bars[i]?.time;
      ends[i] = t !== undefined && t.length > 0 && t[t.length - 1] === time && isTrusted(bars[i]!) ? t.length - 1 : -1;
      if (ends[i]! > 0) previous[i] = Number(t![ends[i]! - 1]);
    }
    this.instruments = instruments;
    this.symbols = instruments.map((i) => i.symbol);
    this.sorted = this.symbols.every((symbol, i) => i === 0 || this.symbols[i - 1]! < symbol);
    this.time = time;
    this.bars = bars;
    this.ends = ends;
    this.previous = previous;
    this.viewFrom = new Int32Array(instruments.length).fill(-1);
    this.views = new Array<Float64Array | undefined>(instruments.length * COLUMNS.length).fill(undefined);
  }

  private readonly closedIn = new Map<Timeframe, Int32Array>();

  /**
   * Per instrument: the index of its last bar of timeframe `tf` closed by the new base bar's
   * close (decisions §1 alignment), −1 when none is, −2 when it has no such bars.
   */
  closedOf(tf: Timeframe): Int32Array {
    let closed = this.closedIn.get(tf);
    if (closed !== undefined) return closed;
    closed = new Int32Array(this.instruments.length).fill(-2);
    const cut = alignmentCut(this.time, TIMEFRAME_MS[this.tf]);
    for (let i = 0; i < closed.length; i++) {
      const bars = this.instruments[i]!.bars[tf];
      if (this.ends[i]! < 0 || bars === undefined || bars.time.length === 0) continue;
      closed[i] = lastClosedIndex(bars.time, bars.time.length, TIMEFRAME_MS[tf], cut);
    }
    this.closedIn.set(tf, closed);
    return closed;
  }

  private readonly timesIn = new Map<Timeframe, readonly (ArrayLike<number> | undefined)[]>();

  /** Per instrument: its time column of timeframe `tf`. */
  timesOf(tf: Timeframe): readonly (ArrayLike<number> | undefined)[] {
    let times = this.timesIn.get(tf);
    if (times === undefined) this.timesIn.set(tf, (times = this.instruments.map((instrument) => instrument.bars[tf]?.time)));
    return times;
  }

  private idSource: SymbolIds | undefined;
  private idArray = new Int32Array(0);
  private named: readonly string[] = [];

  /** Every instrument's symbol id in `ids` (assigned to those without one), found once per round. */
  idsIn(ids: SymbolIds): Int32Array {
    if (this.idSource !== ids) {
      this.idSource = ids;
      this.idArray = new Int32Array(this.symbols.map((symbol) => ids.idOf(symbol)));
      this.named = Array.from(this.idArray, (id) => ids.names[id]!);
    }
    return this.idArray;
  }

  /** Per instrument: its symbol as `ids` keys it (`SymbolIds.names`), for the rows (after `idsIn(ids)`). */
  namesIn(ids: SymbolIds): readonly string[] {
    this.idsIn(ids);
    return this.named;
  }


  private readonly columns: (readonly ArrayLike<number>[] | undefined)[] = [];
  /** Per column: the latest values of every instrument, `depths[column]` each (see `recentOf`). */
  private readonly recent: (Float64Array | undefined)[] = [];
  /** Per column: how many values each instrument's block of `recent` holds; learnt from the rounds before (the most any call asked). */
  readonly depths: Int32Array;

  /**
   * Column `column` (`COLUMN_INDEX`) of every instrument, its last `depth` bars up to its bar
   * `ends[i]`, in one array read once per round: instrument i's bar ends[i] − d at
   * i·D + D − 1 − d (D = `depths[column]`, at least `depth`; NaN before its first bar). Every
   * screen's calls copy their windows of the bars from here: a round reads each instrument's
   * columns from memory once, not once per screen and call (the bars of 10,000 instruments lie
   * far apart; reading them is most of a step's cost).
   */
  recentOf(column: number, depth: number): Float64Array {
    let recent = this.recent[column];
    if (recent !== undefined && this.depths[column]! >= depth) return recent;
    const D = Math.max(depth, this.depths[column]!);
    this.depths[column] = D;
    const size = this.instruments.length * D;
    recent = this.spare[column] !== undefined && this.spare[column]!.length >= size ? this.spare[column]! : new Float64Array(size);
    this.spare[column] = undefined;
    const columns = this.columnOf(column);
    for (let i = 0; i < this.instruments.length; i++) {
      const end = this.ends[i]!;
      if (end < 0) continue;
      const values = columns[i]!;
      const last = i * D + D - 1;
      for (let d = 0; d < D; d++) recent[last - d] = d <= end ? Number(values[end - d]) : Number.NaN;
    }
    this.recent[column] = recent;
    return recent;
  }

  private readonly memos = new Map<string, CallMemo>();
  /** How many screens of the round asked for each call's memo. */
  private readonly asked = new Map<string, number>();

  /**
   * The round's memo of the call keyed `key` (its function, constants, columns and lag), for a
   * call more than one screen has: made by the second screen that asks, or by the first when the
   * round before shared it; undefined for a call only one screen has (nothing to keep).
   */
  memoOf(key: string, stateSize: number): CallMemo | undefined {
    const asked = this.asked.get(key) ?? 0;
    this.asked.set(key, asked + 1);
    let memo = this.memos.get(key);
    if (memo !== undefined || (asked === 0 && !this.before.shared.has(key))) return memo;
    memo = this.before.memos.get(key);
    if (memo !== undefined && memo.bar.length === this.instruments.length && memo.before.length === this.instruments.length * stateSize) memo.bar.fill(-1);
    else memo = new CallMemo(this.instruments.length, stateSize);
    this.memos.set(key, memo);
    return memo;
  }

  /** Buffers of the round before, taken for this round's `recent` (that round is over). */
  private readonly spare: (Float64Array | undefined)[];

  /** What the next round of the same carry store reuses: the recent values' depths and buffers, the calls shared and their memos. */
  handOver(): RoundHandover {
    const shared = new Set<string>();
    for (const [key, asked] of this.asked) if (asked > 1) shared.add(key);
    return { depths: this.depths, buffers: this.recent, shared, memos: this.memos };
  }

  /** Column `column` (`COLUMN_INDEX`) of every instrument's base bars (empty where it has none): read once per round. */
  columnOf(column: number): readonly ArrayLike<number>[] {
    let columns = this.columns[column];
    if (columns === undefined) {
      const name = COLUMNS[column]!;
      this.columns[column] = columns = this.bars.map((bars) => bars?.[name] ?? NO_VALUES);
    }
    return columns;
  }

  /** Instrument `i`'s column `column` at bars offset + [from, to) into `dst` at [from, to) (a column not given as a Float64Array). */
  copyColumn(i: number, column: number, offset: number, from: number, to: number, dst: Float64Array): void {
    copyRaw(this.bars[i]!, column, offset, from, to, dst);
  }

  /**
   * Instrument `i`'s column `column` from bar `from` on, as a Float64Array indexed from there (a
   * pass's bar indices); undefined when the column is not one (it is then copied).
   */
  viewOf(i: number, column: number, from: number): Float64Array | undefined {
    if (this.viewFrom[i] !== from) {
      this.viewFrom[i] = from;
      for (let c = 0; c < COLUMNS.length; c++) this.views[i * COLUMNS.length + c] = undefined;
    }
    const at = i * COLUMNS.length + column;
    let view = this.views[at];
    if (view === undefined) {
      const values = this.bars[i]![COLUMNS[column]!];
      if (!(values instanceof Float64Array)) return undefined;
      this.views[at] = view = values.subarray(from);
    }
    return view;
  }
}

/** What a round hands the next one of the same carry store (`RoundUniverse.handOver`). */
interface RoundHandover {
  readonly depths: Int32Array;
  readonly buffers: readonly (Float64Array | undefined)[];
  /** The calls more than one screen had. */
  readonly shared: ReadonlySet<string>;
  readonly memos: ReadonlyMap<string, CallMemo>;
}

/**
 * One call as a round's screen stepped it, for the other screens with the same call (the same
 * function and constants over the same columns of the bars, at the same lag; see `memoOf`):
 * per instrument, the pass bar it stepped (−1: none), its state before and after, and its value.
 * A screen whose pass stands at that bar with the same state (compared with `Object.is`) takes
 * the value and the state after instead of calling the kernel: the same kernel over the same
 * bars from the same state gives them bit for bit (a pass's bar index fixes its anchor: the
 * bars before it are the same bars). So a round steps `rsi(14)` once per symbol however many
 * screens read it.
 */
class CallMemo {
  readonly bar: Int32Array;
  readonly before: Float64Array;
  readonly after: Float64Array;
  readonly value: Float64Array;
  constructor(instruments: number, stateSize: number) {
    this.bar = new Int32Array(instruments).fill(-1);
    this.before = new Float64Array(instruments * stateSize);
    this.after = new Float64Array(instruments * stateSize);
    this.value = new Float64Array(instruments);
  }
}

/** Per carry store: the universe its current round reads, made once for all the round's screens. */
const universes = new WeakMap<CarryStore, { readonly rounds: number; readonly universe: Iterable<Instrument>; readonly made: RoundUniverse }>();

/**
 * The round's universe: made by the first screen of the round, and read as made by the others
 * given the same universe. A round is one `CarryStore.invalidate` to the next: alerts'
 * `evaluateGroup` reads its bars once per round and gives every screen that array, unchanged.
 */
function roundUniverse(store: CarryStore, universe: Iterable<Instrument>, tf: Timeframe): RoundUniverse {
  const known = universes.get(store);
  if (known !== undefined && known.rounds === store.rounds && known.universe === universe && known.made.tf === tf) return known.made;
  // The round before's buffers and depths are this one's (that round is over: a store's rounds run one at a time).
  const made = new RoundUniverse(universe, tf, known?.made.tf === tf ? known.made.handOver() : undefined);
  universes.set(store, { rounds: store.rounds, universe, made });
  return made;
}

/** Buffers a program's steps across symbols reuse: per slot, every symbol's value at the new bar; per call, its kernel's inputs and output. */
class RoundWork {
  vectors: Float64Array[];
  /** Per call: buffers for the kernel inputs copied (a carried child's window, a derived series). */
  scratch = new Map<Slot, Float64Array[]>();
  outs = new Map<Slot, Float64Array>();
  raws: Float64Array[] = [];
  private pick: Picked = { index: new Int32Array(0), lane: new Int32Array(0), at: new Int32Array(0) };
  constructor(slots: number) {
    this.vectors = Array.from({ length: slots }, () => new Float64Array(0));
  }
  private marks = new Uint8Array(0);
  /** A mark per lane, all clear. */
  followed(lanes: number): Uint8Array {
    this.marks = clearedMarks(this.marks, lanes);
    return this.marks;
  }
  private marked = new Uint8Array(0);
  /** Per universe index: 1 for the first `n` symbols picked. */
  chosen(instruments: number, picked: Picked, n: number): Uint8Array {
    this.marked = clearedMarks(this.marked, instruments);
    for (let j = 0; j < n; j++) this.marked[picked.index[j]!] = 1;
    return this.marked;
  }
  /** Per picked symbol: 1 when a kernel left its state off the bar (the pass is not carried on). */
  broken = new Uint8Array(0);
  /** Room for `n` picked symbols (their marks clear). */
  picked(n: number): Picked {
    if (this.pick.index.length < n) this.pick = { index: new Int32Array(n), lane: new Int32Array(n), at: new Int32Array(n) };
    this.broken = clearedMarks(this.broken, n);
    return this.pick;
  }
  vector(k: number, n: number): Float64Array {
    let v = this.vectors[k]!;
    if (v.length < n) this.vectors[k] = v = new Float64Array(Math.max(n, v.length * 2));
    return v;
  }
}

const works = new WeakMap<Program, RoundWork>();

/** `marks` cleared, or a new array when it holds fewer than `n` (grown to at least twice its size). */
function clearedMarks(marks: Uint8Array<ArrayBuffer>, n: number): Uint8Array<ArrayBuffer> {
  if (marks.length < n) return new Uint8Array(Math.max(n, 2 * marks.length));
  marks.fill(0);
  return marks;
}

/** The symbols a screen steps across: per pick, the instrument's index in the universe, its lane, and the pass index of the new bar. */
interface Picked {
  readonly index: Int32Array;
  readonly lane: Int32Array;
  readonly at: Int32Array;
}

/** A buffer of at least `length` values, grown in place in `list` at `k`. */
function grown(list: Float64Array[], k: number, length: number): Float64Array {
  let b = list[k];
  if (b === undefined || b.length < length) list[k] = b = new Float64Array(Math.max(length, (b?.length ?? 0) * 2, 64));
  return b;
}

const COLUMNS = Object.keys(COLUMN_INDEX) as Column[];

/** The column of an instrument without base bars (never read: it is not stepped). */
const NO_VALUES = new Float64Array(0);

/**
 * The anchored history of a screen (`historySteps`), stepping across symbols when it is an alert
 * round of one new bar with carried passes: the same scan, the same numbers.
 */
export function* anchoredSteps(
  program: Program,
  universe: Iterable<Instrument>,
  bars: number,
  slice: Slice,
  maxBytes: number,
  anchored: AnchoredHistory,
): Generator<undefined, HistoryScan, undefined> {
  const carry = anchored.carry;
  // Only rounds (carried passes, one new bar) step across symbols; an answer's size is counted only by symbol.
  if (carry === undefined || bars !== 1 || Number.isFinite(maxBytes) || !roundLayout(program).eligible) return yield* historySteps(program, universe, bars, slice, maxBytes, anchored);
  const round = roundUniverse(carry.store, universe, program.baseTimeframe);
  const instruments = round.instruments;
  if (round.time === -Infinity) return yield* historySteps(program, instruments, bars, slice, maxBytes, anchored);
  const screen = carry.store.screen(carry.key, program);
  const step = stepAcross(program, round, screen, anchored.track);
  // The symbols whose pass does not continue here: by symbol, as before (their window is the same bar, the latest of them all).
  const rest = step.rest.length > 0 ? yield* historySteps(program, step.rest, 1, slice, maxBytes, anchored) : undefined;
  let hits = step.hits;
  if (rest !== undefined) {
    if (rest.window.length === 1 && rest.window[0] !== step.time) throw new Error("internal: a round's symbols evaluated at different bars");
    hits = hits.concat(rest.perBar[0] ?? []);
  }
  const limit = program.limit;
  let inOrder = rest === undefined && round.sorted;
  if (limit !== undefined && hits.length > limit) {
    // The query's order is total (ties broken by symbol): the first `limit` of both sets ranked together.
    hits = rank(program, hits);
    inOrder = false;
  }
  // Rows by symbol: as stepped when the universe is in symbol order and nothing else joined or reordered them.
  if (!inOrder) hits.sort((a, b) => bySymbol(a.row, b.row));
  return {
    window: [step.time],
    perBar: [hits],
    instruments: instruments.length,
    noData: step.noData + (rest?.noData ?? 0),
    shortHistory: rest?.shortHistory ?? 0,
    matched: step.matched + (rest?.matched ?? 0),
    unconverged: step.unconverged + (rest?.unconverged ?? 0),
    tracked: rest === undefined ? step.tracked : step.tracked.concat(rest.tracked),
  };
}

interface Step {
  /** The new bar's open time. */
  readonly time: number;
  readonly hits: HistoryHit[];
  readonly tracked: TrackedRow[];
  /** Instruments whose pass does not continue at the new bar: evaluated by symbol. */
  readonly rest: Instrument[];
  readonly noData: number;
  readonly matched: number;
  readonly unconverged: number;
}

/** Steps every symbol whose carried pass continues at the universe's latest base bar. */
function stepAcross(program: Program, round: RoundUniverse, screen: ScreenCarry, track: ReadonlySet<string> | undefined): Step {
  const layout = roundLayout(program);
  const carry = carryLayout(program);
  const { order: slots, carried, position } = layout;
  const { widths, tailAt, rowSize } = carry;
  const base = program.base;
  const tf = base.timeframe;
  const time = round.time;
  const frames = program.frames;
  const F = frames.length;
  const anchors = frames.map((frame) => anchorTime(program.market, tf, frame.timeframe, frame.fetchBars, time));
  const closed = frames.map((frame, f) => (f === 0 ? round.ends : round.closedOf(frame.timeframe)));
  const innerTimes = frames.map((frame, f) => (f === 0 ? [] : round.timesOf(frame.timeframe)));

  // Which symbols continue: checked before anything is written, so a symbol either steps whole or goes the other way.
  const { instruments, ends } = round;
  const ids = round.idsIn(screen.ids);
  const rest: Instrument[] = [];
  const work = works.get(program) ?? new RoundWork(slots.length);
  works.set(program, work);
  const picked = work.picked(instruments.length);
  const anchor = new Float64Array(anchors);
  const candidates = pickLanes(screen, layout, rowSize, ends, round.previous, ids, anchor, picked);
  // Another timeframe takes no step: its last bar closed is still the one each pass read last (else by symbol).
  const kept = F > 1 ? holdInner(screen, rowSize, F, picked, candidates, anchor, closed, innerTimes) : candidates;
  const chosen = work.chosen(instruments.length, picked, kept);
  let noData = 0;
  for (let i = 0; i < instruments.length; i++) {
    if (chosen[i] === 1) continue;
    if (ends[i]! >= 0) {
      rest.push(instruments[i]!);
      continue;
    }
    const t = round.bars[i]?.time;
    // No bar at the new one: nothing to evaluate (history counts it so); bars not the store's: checked by symbol.
    if (t === undefined || t.length === 0 || t[t.length - 1] !== time) noData++;
    else rest.push(instruments[i]!);
  }
  const { index, lane: laneOf, at } = picked;
  const rows = screen.rows;
  // From here on, the symbols stepped: the first `n` picked.
  const n = kept;
  // The latest pass index of any symbol stepped: the kernels' buffers, indexed by pass bar, reach it.
  let most = 0;
  for (let j = 0; j < n; j++) if (at[j]! > most) most = at[j]!;

  const lag = layout.lag;
  /**
   * A slot's values `d` bars before the new bar, one per symbol stepped (d is its lag or more):
   * its vector when it is computed there; else its tail (a carried slot, whose tail ends the bar
   * before its own: see carry.ts widths); else the bars (a raw series, a constant), which the
   * pass holds that far back (`reach`). `buffer` names the scratch it is gathered into.
   */
  const operand = (child: Slot, d: number, buffer: number): Float64Array => {
    const q = position.get(child)!;
    if (d === lag[q]) return work.vectors[q]!;
    const values = grown(work.raws, buffer, n);
    const c = carried[q]!;
    if (c >= 0) {
      fromRows(rows, laneOf, rowSize, tailAt[c]! + widths[c]! - (d - lag[q]!), values, n);
      return values;
    }
    for (let j = 0; j < n; j++) {
      const p = at[j]!;
      const i = index[j]!;
      const v = grown(work.raws, 16, p + 1);
      seriesWindow(child, round.bars[i]!, p - d, p - d + 1, v, ends[i]! - p, work);
      values[j] = v[p - d]!;
    }
    return values;
  };
  for (let s = 0; s < slots.length; s++) {
    if (!layout.onBase[s]) continue;
    const slot = slots[s]!;
    const node = slot.node;
    const out = work.vector(s, n);
    const vectorOf = (child: Slot): Float64Array => work.vectors[position.get(child)!]!;
    // The slot's bar: its lag before the new one (0 but under an offset); its operands are read there.
    const L = lag[s]!;
    switch (node.op) {
      case "number":
        out.fill(node.value, 0, n);
        break;
      case "boolean":
        out.fill(node.value ? 1 : 0, 0, n);
        break;
      case "series": {
        const combine = node.series.combine;
        const indices = slot.columnIndices;
        if (combine === undefined) {
          barsAt(round, indices[0]!, L, index, out, n);
        } else {
          const columns = indices.map((column, k) => {
            const v = grown(work.raws, k, n);
            barsAt(round, column, L, index, v, n);
            return v;
          });
          combine(columns, out, 0, n);
        }
        break;
      }
      case "negate":
        negateInto(operand(slot.children[0]!, L, 20), out, 0, n);
        break;
      case "not":
        notInto(operand(slot.children[0]!, L, 20), out, 0, n);
        break;
      case "compare":
        compareInto(node.operator, operand(slot.children[0]!, L, 20), operand(slot.children[1]!, L, 21), out, 0, n);
        break;
      case "arithmetic":
        arithmeticInto(node.operator, operand(slot.children[0]!, L, 20), operand(slot.children[1]!, L, 21), out, 0, n);
        break;
      case "and":
      case "or": {
        // As `logical` in values.ts decides a bar: the first operand that is `decided` decides it.
        const decided = node.op === "and" ? 0 : 1;
        out.fill(1 - decided, 0, n);
        for (const child of slot.children) decide(operand(child, L, 20), decided, out, n);
        break;
      }
      case "history":
        // The operand `offset` bars before the slot's own bar.
        out.set(operand(slot.children[0]!, L + node.offset, 20).subarray(0, n));
        break;
      case "call":
        if (layout.stacked[s] === 1) stackCall(program, slot, L, layout, work, round, screen, picked, n, out);
        else stepCall(program, slot, s, L, layout, work, round, screen, picked, n, most, out);
        break;
      case "timeframe": {
        // The other timeframe's value at its last bar closed by the new bar's close: the one its pass read last.
        const child = slot.children[0]!;
        const c = carried[position.get(child)!]!;
        const f = frames.indexOf(slot.inner!);
        if (f === 0) {
          // Its own timeframe (`h1::x` on h1): the bar closed by the new bar's close is the new bar.
          out.set(vectorOf(child).subarray(0, n));
          break;
        }
        const fill = fillType(node);
        for (let j = 0; j < n; j++) {
          const i = index[j]!;
          const e = closed[f]![i]!;
          if (e < 0) out[j] = fill;
          else if (c >= 0) out[j] = rows[laneOf[j]! * rowSize + tailAt[c]! + widths[c]! - 1]!;
          else {
            const v = grown(work.raws, 17, e + 1);
            seriesWindow(child, round.instruments[i]!.bars[slot.inner!.timeframe]!, e, e + 1, v, 0, work);
            out[j] = v[e]!;
          }
        }
        break;
      }
    }
  }

  // The rows: matching symbols, and the tracked ones the rows do not hold (marked by lane: a few symbols looked up, not every one).
  const followed = work.followed(screen.count);
  if (track !== undefined) {
    for (const symbol of track) {
      const lane = screen.assigned(symbol);
      if (lane >= 0) followed[lane] = 1;
    }
  }
  const vectorOf = new Map(slots.map((slot, s) => [slot, work.vectors[s]!]));
  const { hits, tracked, matched, unconverged } = collectRows(program, round, screen, picked, n, vectorOf, track === undefined ? undefined : followed, time);

  // Each pass saved one bar on: every tail moves by one, the states were written in place.
  const baseCarried = layout.baseCarried;
  const moved = carry.slots.map((_, k) => k).filter((k) => baseCarried[k] && widths[k]! > 0);
  advance(
    screen,
    rowSize,
    F,
    picked,
    n,
    work.broken,
    new Int32Array(moved.map((k) => tailAt[k]!)),
    new Int32Array(moved.map((k) => widths[k]!)),
    moved.map((k) => work.vectors[position.get(carry.slots[k]!)!]!),
    time,
  );
  // Every pass kept read up to the new bar.
  if (n > 0 && time > screen.newest[0]!) screen.newest[0] = time;
  screen.restored += n;
  screen.across += n;
  return { time, hits, tracked, rest, noData, matched, unconverged };
}

/**
 * The rows of the symbols stepped: those matching (the condition is 1), and with `followed` the
 * tracked ones where the rows do not hold them (`TrackedRow`); and how many were evaluated on fewer bars than a recursive
 * source's fetch (`converged`, with each frame's end where the pass is).
 */
function collectRows(
  program: Program,
  round: RoundUniverse,
  screen: ScreenCarry,
  picked: Picked,
  n: number,
  vectorOf: ReadonlyMap<Slot, Float64Array>,
  followed: Uint8Array | undefined,
  time: number,
): { hits: HistoryHit[]; tracked: TrackedRow[]; matched: number; unconverged: number } {
  const condition = vectorOf.get(program.condition)!;
  const frames = program.frames;
  const F = frames.length;
  const { index, lane: laneAt, at } = picked;
  const ends = round.ends;
  const closes = round.columnOf(COLUMN_INDEX.close);
  // The symbols as the carry's ids key them: the next round looks up the ones matching here by them.
  const symbols = round.namesIn(screen.ids);
  const frameHi = screen.frameHi;
  let unconverged = 0;
  if (frames.some((frame) => frame.recursive)) {
    for (let j = 0; j < n; j++) {
      let converges = convergedAt(frames[0]!, at[j]!);
      for (let f = 1; f < F && converges; f++) converges = convergedAt(frames[f]!, frameHi[laneAt[j]! * F + f]! - 1);
      if (!converges) unconverged++;
    }
  }
  const tracked: TrackedRow[] = [];
  // The values of the row being made (its index among the picked in `at`): the vectors read without a lookup per value.
  const columnVectors = program.columns.map((c) => vectorOf.get(c.slot)!);
  const keyVectors = program.sort.map((s) => vectorOf.get(s.slot)!);
  let current = 0;
  const column = (k: number): number => columnVectors[k]![current]!;
  const key = (k: number): number => keyVectors[k]![current]!;
  const hits: HistoryHit[] = [];
  // A matching row is tracked only where `limit` may leave it out of the rows (see `TrackedRow`).
  const trackMatching = followed !== undefined && program.limit !== undefined;
  // The matching symbols, in the order stepped (the condition is 1 or 0 at every one).
  for (let j = condition.indexOf(1); j !== -1 && j < n; j = condition.indexOf(1, j + 1)) {
    const i = index[j]!;
    current = j;
    const row = { symbol: symbols[i]!, columns: columnsOf(program, column) };
    hits.push({ row, keys: keysOf(program, key), close: closes[i]!, index: ends[i]!, length: ends[i]! + 1, bytes: 0 });
    if (trackMatching) tracked.push({ time, symbol: row.symbol, columns: row.columns });
  }
  // The tracked ones that do not match: found by their mark.
  if (followed !== undefined) {
    for (let j = 0; j < n; j++) {
      if (followed[laneAt[j]!] !== 1 || condition[j] === 1) continue;
      current = j;
      tracked.push({ time, symbol: symbols[index[j]!]!, columns: columnsOf(program, column) });
    }
  }
  return { hits, tracked, matched: hits.length, unconverged };
}

/**
 * Picks the symbols whose pass takes their bar `ends[i]` (the new one) on the base timeframe:
 * a live, full pass with the same base anchor, its last bar read the one before, every state
 * positioned at the bar (or at a primed block's start, primed afresh), and bars enough before it
 * in the pass for every window. Returns how many, in `picked` (universe index, lane, pass index).
 * Nothing but typed arrays in the loop (it runs once per symbol and screen).
 */
function pickLanes(screen: ScreenCarry, layout: RoundLayout, rowSize: number, ends: Int32Array, previous: Float64Array, ids: Int32Array, anchors: Float64Array, picked: Picked): number {
  const { live, full, rows, frameHi, laneOfId } = screen;
  const { states, statesBlocked, statesLag, reach } = layout;
  const F = anchors.length;
  const anchor = anchors[0]!;
  const { index, lane: laneAt, at } = picked;
  let n = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    if (end < 1) continue;
    const id = ids[i]!;
    const lane = id < laneOfId.length ? laneOfId[id]! : -1;
    if (lane < 0 || live[lane] === 0 || full[lane] === 0) continue;
    const r = lane * rowSize;
    const p = frameHi[lane * F]!;
    // The row holds each frame's anchor, then the time of each frame's last bar read.
    if (rows[r] !== anchor || p < reach || end < p || previous[i] !== rows[r + F]) continue;
    let positioned = true;
    for (let q = 0; q < states.length; q++) {
      // A state is positioned at its slot's bar (its lag before the new one), or primed afresh at a block's start.
      const bar = p - statesLag[q]!;
      if (rows[r + states[q]!] !== bar && !(statesBlocked[q] === 1 && bar % PRIMED_BLOCK_BARS === 0)) positioned = false;
    }
    if (!positioned) continue;
    index[n] = i;
    laneAt[n] = lane;
    at[n] = p;
    n++;
  }
  return n;
}

/**
 * Of the `n` symbols picked, keeps (in order) those whose every other timeframe has the same
 * anchor and closes no bar at this round: its last bar closed (`closed[f][i]`, −2 without bars)
 * is still the last one its pass read. Returns how many are kept.
 */
function holdInner(screen: ScreenCarry, rowSize: number, F: number, picked: Picked, n: number, anchors: Float64Array, closed: readonly Int32Array[], times: readonly (readonly (ArrayLike<number> | undefined)[])[]): number {
  const { rows, frameHi } = screen;
  const { index, lane: laneAt, at } = picked;
  let kept = 0;
  for (let j = 0; j < n; j++) {
    const i = index[j]!;
    const lane = laneAt[j]!;
    const r = lane * rowSize;
    let holds = true;
    for (let f = 1; f < F && holds; f++) {
      const e = closed[f]![i]!;
      if (rows[r + f] !== anchors[f] || e === -2 || frameHi[lane * F + f] !== e + 1) holds = false;
      else if (e >= 0 && Number(times[f]![i]![e]) !== rows[r + F + f]) holds = false;
    }
    if (!holds) continue;
    index[kept] = i;
    laneAt[kept] = lane;
    at[kept] = at[j]!;
    kept++;
  }
  return kept;
}

/** Column `column` of every symbol picked at its bar `lag` bars before the new one (the round's recent values), into `out`. */
function barsAt(round: RoundUniverse, column: number, lag: number, index: Int32Array, out: Float64Array, n: number): void {
  const recent = round.recentOf(column, lag + 1);
  const D = round.depths[column]!;
  for (let j = 0; j < n; j++) out[j] = recent[index[j]! * D + D - 1 - lag]!;
}

/** `out[j]` = value `at` of lane `lanes[j]`'s row, for the first `n` picked. */
function fromRows(rows: Float64Array, lanes: Int32Array, rowSize: number, at: number, out: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) out[j] = rows[lanes[j]! * rowSize + at]!;
}

/** As `logical` in values.ts decides a bar: an operand that is `decided` decides it. */
function decide(v: Float64Array, decided: number, out: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) if (v[j] === decided) out[j] = decided;
}

/**
 * Moves each stepped pass on by the new bar: every tail of the base timeframe (at `tails`, of
 * `widths`) drops its oldest value and takes the new one from its vector; the base frame has
 * read one bar more, the new one at `time`. A pass whose kernel left its state off the bar
 * (`broken`) is dropped instead: its next bar starts a pass from its anchor.
 */
function advance(screen: ScreenCarry, rowSize: number, F: number, picked: Picked, n: number, broken: Uint8Array, tails: Int32Array, widths: Int32Array, vectors: readonly Float64Array[], time: number): void {
  const { rows, frameHi, live } = screen;
  const { lane: laneAt, at } = picked;
  for (let j = 0; j < n; j++) {
    const lane = laneAt[j]!;
    if (broken[j] === 1) {
      live[lane] = 0;
      continue;
    }
    const r = lane * rowSize;
    for (let k = 0; k < tails.length; k++) {
      const from = r + tails[k]!;
      const w = widths[k]!;
      for (let x = 0; x < w - 1; x++) rows[from + x] = rows[from + x + 1]!;
      rows[from + w - 1] = vectors[k]![j]!;
    }
    frameHi[lane * F] = at[j]! + 1;
    rows[r + F] = time;
  }
}

/**
 * A call at the new bar of every symbol picked: its module's kernel over the bar, given the
 * inputs' tails and the state the symbol's pass kept (as `compute` in values.ts gives them to
 * it in a restored pass), its value into `out`, its state back into the pass.
 */
function stepCall(program: Program, slot: Slot, s: number, lag: number, layout: RoundLayout, work: RoundWork, round: RoundUniverse, screen: ScreenCarry, picked: Picked, n: number, most: number, out: Float64Array): void {
  const node = slot.node;
  if (node.op !== "call") return;
  const { carried, position } = layout;
  const { widths, tailAt, stateAt, rowSize } = carryLayout(program);
  const children = slot.children;
  const own = carried[s]!;
  const childCarried = new Int32Array(children.map((c) => carried[position.get(c)!]!));
  const childLag = new Int32Array(children.map((c) => layout.lag[position.get(c)!]!));
  // Everything the loop over symbols reads, as arrays decided here: the loop sees no slot or node.
  let scratch = work.scratch.get(slot);
  if (scratch === undefined) work.scratch.set(slot, (scratch = []));
  for (let k = 0; k < children.length + slot.columnIndices.length; k++) grown(scratch, k, most + 1);
  let buffer = work.outs.get(slot);
  if (buffer === undefined || buffer.length < most + 1) work.outs.set(slot, (buffer = new Float64Array(Math.max(most + 1, 2 * (buffer?.length ?? 0)))));
  const rawColumn = new Int32Array(children.map((c) => (c.node.op === "series" && c.node.series.combine === undefined ? c.columnIndices[0]! : -1)));
  // The bars' columns over a short window before the bar (extra + 1 values) are copied from the
  // round's recent values (`recentOf`); a longer one (and a kernel run over its whole primed
  // block) is read in place, where copying it would cost more than reading the bars.
  const columns = [...rawColumn, ...slot.columnIndices];
  const windowed = !(slot.blocked && slot.state === undefined) && slot.extra + lag < STACKED_EXTRA * 2;
  const recent = columns.map((c) => (windowed && c >= 0 ? round.recentOf(c, slot.extra + 1 + lag) : undefined));
  const depths = Int32Array.from(columns, (c) => (c >= 0 ? round.depths[c]! : 0));
  // A call over the bars' own columns is the same call in every screen that has it: where more
  // than one screen has it, the round keeps one screen's steps for the others (`CallMemo`, `memoOf`).
  const memo = rawColumn.every((c) => c >= 0) ? round.memoOf(`${node.fn.name}(${node.consts.join(",")})[${rawColumn.join(",")}]@${lag}`, slot.state?.length ?? 0) : undefined;
  screen.shared += callLanes(
    node.fn.kernel as Kernel,
    node.consts,
    slot.context(slot.frame.timeframe, program.market),
    slot.state,
    own >= 0 ? stateAt[own]! : -1,
    slot.blocked,
    slot.extra,
    lag,
    childCarried,
    childLag,
    new Int32Array(children.map((_, k) => (childCarried[k]! >= 0 ? tailAt[childCarried[k]!]! + widths[childCarried[k]!]! : 0))),
    children.map((c) => work.vectors[position.get(c)!]!),
    rawColumn,
    new Int32Array(slot.columnIndices),
    recent,
    depths,
    scratch,
    buffer,
    screen.rows,
    rowSize,
    picked,
    n,
    round,
    out,
    work.broken,
    memo,
    (k, j, from, to, dst, offset) => seriesWindow(children[k]!, round.bars[picked.index[j]!]!, from, to, dst, offset, work),
  );
}

/**
 * The loop of `stepCall` over the symbols picked (typed arrays and numbers only: it runs once per
 * symbol and call). Per symbol: the kernel's inputs (a carried child's tail and new value copied
 * at their pass indices; a raw column read in place from the pass's first bar; a derived series
 * computed over the window by `window`), its state from the row, one kernel call over the bar (or
 * the primed block up to it), the value into `out`, the state back.
 */
function callLanes(
  kernel: Kernel,
  consts: readonly number[],
  ctx: KernelContext,
  state: Float64Array | undefined,
  stateFrom: number,
  blocked: boolean,
  extra: number,
  lag: number,
  childCarried: Int32Array,
  childLag: Int32Array,
  childTail: Int32Array,
  childVectors: readonly Float64Array[],
  rawColumn: Int32Array,
  implicit: Int32Array,
  recent: readonly (Float64Array | undefined)[],
  depths: Int32Array,
  scratch: Float64Array[],
  buffer: Float64Array,
  rows: Float64Array,
  rowSize: number,
  picked: Picked,
  n: number,
  round: RoundUniverse,
  out: Float64Array,
  broken: Uint8Array,
  memo: CallMemo | undefined,
  window: (k: number, j: number, from: number, to: number, dst: Float64Array, offset: number) => void,
): number {
  const { index, lane: laneAt, at } = picked;
  const ends = round.ends;
  const width = childCarried.length;
  const inputs = new Array<Float64Array>(width + implicit.length).fill(buffer);
  const S = state === undefined ? 0 : state.length;
  let taken = 0;
  for (let j = 0; j < n; j++) {
    // The new bar is p; the call is computed at its own bar b, its lag before.
    const p = at[j]!;
    const b = p - lag;
    const i = index[j]!;
    const r = laneAt[j]! * rowSize;
    const stateAt = r + stateFrom;
    if (memo !== undefined && memo.bar[i] === b) {
      // Another screen stepped this call at this bar: from the same state, its value and state after are this one's.
      let same = true;
      for (let x = 0, m = i * S; x < S && same; x++, m++) same = Object.is(rows[stateAt + x], memo.before[m]);
      if (same) {
        for (let x = 0, m = i * S; x < S; x++, m++) rows[stateAt + x] = memo.after[m]!;
        out[j] = memo.value[i]!;
        if (S > 0 && rows[stateAt] !== b + 1) broken[j] = 1;
        taken++;
        continue;
      }
    }
    // Where the kernel starts (values.ts `computeRange`): a carried state resumes at the bar, except
    // at a primed block's start; a windowed kernel without one runs over its whole block.
    const from = blocked && state === undefined ? b - (b % PRIMED_BLOCK_BARS) : b;
    const inputFrom = from - extra;
    const offset = ends[i]! - p;
    for (let k = 0; k < width; k++) {
      if (childCarried[k]! >= 0) {
        // The child, computed c bars before the new one (c ≤ lag), holds its values at [p − c − width, p − c) in its
        // tail (bar x at row index r + tail + width + x − p + c), and its value at p − c in its vector.
        const c = childLag[k]!;
        const dst = scratch[k]!;
        const base = r + childTail[k]! - p + c;
        const last = c === lag ? b - 1 : b;
        for (let x = inputFrom; x <= last; x++) dst[x] = rows[base + x]!;
        if (c === lag) dst[b] = childVectors[k]![j]!;
        inputs[k] = dst;
      } else if (recent[k] !== undefined) {
        recentWindow(recent[k]!, depths[k]!, i, p, inputFrom, b, scratch[k]!);
        inputs[k] = scratch[k]!;
      } else {
        const view = rawColumn[k]! >= 0 ? round.viewOf(i, rawColumn[k]!, offset) : undefined;
        if (view !== undefined) inputs[k] = view;
        else {
          window(k, j, inputFrom, b + 1, scratch[k]!, offset);
          inputs[k] = scratch[k]!;
        }
      }
    }
    for (let k = 0; k < implicit.length; k++) {
      const dst = scratch[width + k]!;
      if (recent[width + k] !== undefined) {
        recentWindow(recent[width + k]!, depths[width + k]!, i, p, inputFrom, b, dst);
        inputs[width + k] = dst;
        continue;
      }
      const view = round.viewOf(i, implicit[k]!, offset);
      if (view !== undefined) inputs[width + k] = view;
      else {
        round.copyColumn(i, implicit[k]!, offset, inputFrom, b + 1, dst);
        inputs[width + k] = dst;
      }
    }
    // The first screen to step this call at this bar keeps what it did for the others.
    const record = memo !== undefined && memo.bar[i] !== b;
    if (state !== undefined) {
      for (let x = 0; x < S; x++) state[x] = rows[stateAt + x]!;
      if (record) memo.before.set(state, i * S);
      if (blocked && b % PRIMED_BLOCK_BARS === 0) state.fill(Number.NaN);
    }
    kernel(inputs, consts, buffer, from, b + 1, ctx, state);
    out[j] = buffer[b]!;
    if (record) {
      memo.bar[i] = b;
      memo.value[i] = out[j]!;
      if (state !== undefined) memo.after.set(state, i * S);
    }
    if (state !== undefined) {
      for (let x = 0; x < S; x++) rows[stateAt + x] = state[x]!;
      if (state[0] !== b + 1) broken[j] = 1;
    }
  }
  return taken;
}

/**
 * A call whose value at a bar is its window's alone, at the new bar of every symbol picked, in
 * one call of its module's kernel: a kernel `rangeIndependent` and without a state (a crossing, a
 * per-bar formula, a candle pattern) reading at most `STACKED_EXTRA` bars back. Each input holds
 * the symbols' windows end to end — symbol j's the pass's bars b − extra … b (b = p − lag, the
 * call's own bar) at j·W … j·W + extra, W = extra + 1 — and the kernel runs over them all from index `extra`; symbol
 * j's value is at its window's last index. The same kernel given the same window in a pass gives
 * the same value, bit for bit: a range-independent kernel's value at a bar reads its inputs over
 * the window only (module.ts), whatever range it is asked for; the other indices (a window's
 * start read with the previous symbol's end) are not read. One kernel call for all the symbols
 * instead of one each: what costs in a step of a crossing is the call, not its comparison.
 */
function stackCall(program: Program, slot: Slot, lag: number, layout: RoundLayout, work: RoundWork, round: RoundUniverse, screen: ScreenCarry, picked: Picked, n: number, out: Float64Array): void {
  const node = slot.node;
  if (node.op !== "call") return;
  const { carried, position } = layout;
  const { widths, tailAt, rowSize } = carryLayout(program);
  const extra = slot.extra;
  const W = extra + 1;
  const size = n * W;
  const { index, lane: laneAt, at } = picked;
  const { ends, bars } = round;
  const rows = screen.rows;
  const children = slot.children;
  let scratch = work.scratch.get(slot);
  if (scratch === undefined) work.scratch.set(slot, (scratch = []));
  const inputs: Float64Array[] = [];
  // A window of a column of the bars: symbol j's bars ends[i] − lag − extra … ends[i] − lag (its pass's b − extra … b, b = p − lag).
  const fromBars = (dst: Float64Array, column: number): void => {
    const recent = round.recentOf(column, W + lag);
    const D = round.depths[column]!;
    for (let j = 0; j < n; j++) {
      const first = index[j]! * D + D - W - lag;
      for (let x = 0, d = j * W; x < W; x++, d++) dst[d] = recent[first + x]!;
    }
  };
  for (let k = 0; k < children.length; k++) {
    const child = children[k]!;
    const dst = grown(scratch, k, size);
    inputs.push(dst);
    const c = carried[position.get(child)!]!;
    if (c >= 0) {
      // A carried child computed at the call's bar b: its tail's last `extra` values (the bars before b), then its
      // value at b. One computed later (`lag` − its lag bars after b): the whole window from its tail.
      const q = position.get(child)!;
      const vector = work.vectors[q]!;
      const later = lag - layout.lag[q]!;
      const from = tailAt[c]! + widths[c]! - extra - later;
      const fromTail = later === 0 ? extra : W;
      for (let j = 0; j < n; j++) {
        const r = laneAt[j]! * rowSize + from;
        const d = j * W;
        for (let x = 0; x < fromTail; x++) dst[d + x] = rows[r + x]!;
        if (later === 0) dst[d + extra] = vector[j]!;
      }
    } else if (child.node.op === "series" && child.node.series.combine === undefined) {
      fromBars(dst, child.columnIndices[0]!);
    } else {
      // A derived series or a constant, over the window at its pass indices, then into its place.
      for (let j = 0; j < n; j++) {
        const p = at[j]!;
        const b = p - lag;
        const i = index[j]!;
        const v = grown(work.raws, 18, p + 1);
        seriesWindow(child, bars[i]!, b - extra, b + 1, v, ends[i]! - p, work);
        for (let x = 0; x < W; x++) dst[j * W + x] = v[b - extra + x]!;
      }
    }
  }
  for (let k = 0; k < slot.columnIndices.length; k++) {
    const dst = grown(scratch, children.length + k, size);
    fromBars(dst, slot.columnIndices[k]!);
    inputs.push(dst);
  }
  const result = grown(scratch, children.length + slot.columnIndices.length, size);
  windowEnds(node.fn, node.consts, slot.context(slot.frame.timeframe, program.market), inputs, n, extra, result, out);
}

/**
 * Instrument `i`'s values of a column at pass bars [from, last] into `dst` at those indices, from
 * the round's recent values (`recentOf`, D each; the new bar, pass bar p, is its last).
 */
function recentWindow(recent: Float64Array, D: number, i: number, p: number, from: number, last: number, dst: Float64Array): void {
  const shift = i * D + D - 1 - p;
  for (let x = from; x <= last; x++) dst[x] = recent[shift + x]!;
}

/**
 * A series slot (a raw column, a derived series, a constant) on pass bars [from, to) into `dst`,
 * read from the instrument's bars at `offset` + the pass index.
 */
function seriesWindow(slot: Slot, bars: Bars, from: number, to: number, dst: Float64Array, offset: number, work: RoundWork): void {
  const node = slot.node;
  if (node.op === "number") {
    dst.fill(node.value, from, to);
    return;
  }
  if (node.op === "boolean") {
    dst.fill(node.value ? 1 : 0, from, to);
    return;
  }
  if (node.op !== "series") throw new Error(`internal: ${node.op} is carried, not read from the bars`);
  const indices = slot.columnIndices;
  const combine = node.series.combine;
  if (combine === undefined) {
    copyRaw(bars, indices[0]!, offset, from, to, dst);
    return;
  }
  const columns = indices.map((index, k) => {
    const v = grown(work.raws, k + 8, to);
    copyRaw(bars, index, offset, from, to, v);
    return v;
  });
  combine(columns, dst, from, to);
}

/** Raw column `column` (`COLUMN_INDEX`) of `bars` at offset + [from, to), into `dst` at [from, to). */
function copyRaw(bars: Bars, column: number, offset: number, from: number, to: number, dst: Float64Array): void {
  const values = bars[COLUMNS[column]!];
  for (let i = from; i < to; i++) dst[i] = Number(values[offset + i]);
}
