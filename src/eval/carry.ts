/**
 * Carried passes (decisions §9, "Carried state"): alerts and `watch` keep, per screen and
 * symbol, what the evaluation of its last bar left — each slot's kernel state and the last
 * values its consumers read back (its tail) — so that the next closed bar costs one step per
 * slot instead of a pass from the anchor. A pass is carried only while its anchors stay the
 * same; at an anchor switch the new pass starts from the new anchor, as history's does.
 *
 * Why the numbers are the same as a pass from the anchor: every value at a bar is a function
 * of the bars from the anchor up to it (values.ts), a resumable kernel resumed from the state
 * the previous call left equals its batch call bit for bit (functions/stepper.ts, tested for
 * every function), and the tails hold exactly the values the consumers read back: a call's
 * window (`extraLookback`, plus a primed block for a kernel run in blocks without a state), an
 * offset `x[k]`, the latest value of another timeframe. A restored pass that would need more
 * (`CARRY_MISS`) is evaluated afresh.
 *
 * What invalidates a carried pass: its anchors moving (checked), the bars before its position
 * changing (a write that replaces or backfills bars at or before its bar, told by the store's
 * change records: `CarryStore.invalidate`), or a bar shifting its index (checked: the time of
 * every frame's last bar read is kept and compared).
 */
import type { Timeframe, TouchedSeries } from "../types.js";

/**
 * What carried passes read of a bar store: its data version and the series changed since one
 * (the store's change records; `BarStore` has both). Written here, not imported, so the
 * evaluator (which the browser's playground bundles) does not reach the store's modules.
 */
export interface ChangeLog {
  dataVersion(): Promise<number>;
  changesSince(version: number): Promise<{ readonly touched: readonly TouchedSeries[] | null }>;
}
import { PRIMED_BLOCK_BARS, type Program, type Slot } from "./program.js";

/** Where and what a program carries: decided once per program. */
export interface CarryLayout {
  /** The slots carried (every slot but raw series and constants, which are read again from the bars). */
  readonly slots: readonly Slot[];
  /** Per carried slot: how many values before its position its consumers may read back. */
  readonly widths: Int32Array;
  /** Per carried slot: its frame's index in the program's frames. */
  readonly frames: Int32Array;
  /** The program's shape (its slots' kinds and constants): a saved pass is restored only into the same shape. */
  readonly shape: string;
}

const layouts = new WeakMap<Program, CarryLayout>();

/** The program's carry layout. */
export function carryLayout(program: Program): CarryLayout {
  let layout = layouts.get(program);
  if (layout) return layout;
  const slots = program.all.filter((s) => s.node.op !== "series" && s.node.op !== "number" && s.node.op !== "boolean");
  const index = new Map(slots.map((s, i) => [s, i]));
  const widths = new Int32Array(slots.length);
  for (const consumer of program.all) {
    const node = consumer.node;
    // How far before a bar the consumer reads its operands when it computes that bar.
    let back = 0;
    if (node.op === "call") back = consumer.extra + (consumer.blocked && consumer.state === undefined ? PRIMED_BLOCK_BARS - 1 : 0);
    else if (node.op === "history") back = node.offset;
    else if (node.op === "timeframe") back = 1;
    for (const child of consumer.children) {
      const i = index.get(child);
      if (i !== undefined && widths[i]! < back) widths[i] = back;
    }
  }
  const frames = new Int32Array(slots.map((s) => program.frames.indexOf(s.frame)));
  // The slots' IR ids (one per distinct subexpression) with their kinds: the same for every compile of the same text.
  const shape = slots.map((s) => `${s.node.id}:${s.node.op}:${s.node.op === "call" ? `${s.node.fn.name}(${s.node.consts.join(",")})` : ""}@${s.timeframe}`).join(";");
  layout = { slots, widths, frames, shape };
  layouts.set(program, layout);
  return layout;
}

/** What the evaluation of one symbol's last bar left, to take its next bar in a step. */
export interface SymbolCarry {
  /** The anchors of the pass, per frame (plan order). */
  anchors: readonly number[];
  /** Per carried slot: the first and one past the last bar (frame index) of the values kept. */
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  /** Per frame: one past the last bar read (0 when none), and that bar's open time. */
  readonly frameHi: Int32Array;
  readonly frameTime: Float64Array;
  /** The kept values of every carried slot, then the kernel states, in layout order. */
  data: Float64Array;
}

/**
 * Saves what the program holds for the instrument just evaluated (its slots computed over the
 * pass with `carrying` set), or returns undefined when it cannot be carried: a slot was not
 * computed, or a kernel state is not positioned at its slot's last bar (a recursion still
 * before its seed starts over from the first bar, which a carried pass does not hold).
 */
export function saveCarry(program: Program, anchors: readonly number[], previous: SymbolCarry | undefined): SymbolCarry | undefined {
  const layout = carryLayout(program);
  const { slots, widths } = layout;
  const frames = program.frames;
  let size = 0;
  // The symbol's previous pass is overwritten in place when it has this program's layout (every
  // bar of an alert round saves one per screen and symbol: no object made for it).
  const reuse = previous !== undefined && previous.lo.length === slots.length && previous.frameHi.length === frames.length ? previous : undefined;
  const lo = reuse?.lo ?? new Int32Array(slots.length);
  const hi = reuse?.hi ?? new Int32Array(slots.length);
  const frameHi = reuse?.frameHi ?? new Int32Array(frames.length);
  frameHi.fill(0);
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    if (slot.epoch !== program.epoch || slot.view !== undefined) return undefined;
    if (slot.state !== undefined && slot.state[0] !== slot.hi) return undefined;
    const from = Math.max(slot.lo, slot.hi - widths[k]!);
    lo[k] = from;
    hi[k] = slot.hi;
    size += slot.hi - from + (slot.state?.length ?? 0);
    const f = layout.frames[k]!;
    if (slot.hi > frameHi[f]!) frameHi[f] = slot.hi;
  }
  const data = reuse?.data.length === size ? reuse.data : new Float64Array(size);
  let at = 0;
  for (let k = 0; k < slots.length; k++) {
    const buffer = slots[k]!.buffer;
    for (let i = lo[k]!, end = hi[k]!; i < end; i++) data[at++] = buffer[i]!;
  }
  for (let k = 0; k < slots.length; k++) {
    const state = slots[k]!.state;
    if (state === undefined) continue;
    for (let i = 0; i < state.length; i++) data[at++] = state[i]!;
  }
  const frameTime = reuse?.frameTime ?? new Float64Array(frames.length);
  for (let f = 0; f < frames.length; f++) frameTime[f] = frameHi[f]! > 0 ? Number(frames[f]!.bars.time[frameHi[f]! - 1]) : Number.NaN;
  if (reuse === undefined) return { anchors: anchors.slice(), lo, hi, frameHi, frameTime, data };
  if (!sameAnchors(reuse.anchors, anchors)) reuse.anchors = anchors.slice();
  reuse.data = data;
  return reuse;
}

/**
 * Gives the program back a saved pass for the instrument attached (frames narrowed to
 * `anchors`), to take its base bars from `next` on: true when it was restored (the program is
 * then `restored`), false when the saved pass does not continue here — other anchors, another
 * position, or bars that moved under it.
 */
export function restoreCarry(program: Program, saved: SymbolCarry, anchors: readonly number[], next: number): boolean {
  const layout = carryLayout(program);
  const { slots } = layout;
  const frames = program.frames;
  if (!sameAnchors(saved.anchors, anchors) || saved.lo.length !== slots.length) return false;
  if (saved.frameHi[0] !== next) return false;
  for (let f = 0; f < frames.length; f++) {
    const h = saved.frameHi[f]!;
    if (h === 0) continue;
    const frame = frames[f]!;
    if (h > frame.length || Number(frame.bars.time[h - 1]) !== saved.frameTime[f]) return false;
  }
  // Only the carried slots are given a floor: the others (raw series, constants) are read again from the bars.
  const data = saved.data;
  let at = 0;
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    const lo = saved.lo[k]!;
    const hi = saved.hi[k]!;
    const length = slot.frame.length;
    if (slot.buffer.length < length) slot.buffer = new Float64Array(Math.max(length, slot.buffer.length * 2));
    const buffer = slot.buffer;
    for (let i = lo; i < hi; i++) buffer[i] = data[at++]!;
    slot.view = undefined;
    slot.epoch = program.epoch;
    slot.lo = lo;
    slot.hi = hi;
    slot.floor = lo;
  }
  for (let k = 0; k < slots.length; k++) {
    const state = slots[k]!.state;
    if (state === undefined) continue;
    for (let i = 0; i < state.length; i++) state[i] = data[at++]!;
  }
  program.restored = true;
  return true;
}

function sameAnchors(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** One screen's carried passes, by symbol. */
export class ScreenCarry {
  readonly symbols = new Map<string, SymbolCarry>();
  /** The market, upper case, as writes are compared with it. */
  private readonly upper: string;
  /** Per frame: the latest bar time any saved pass read (a write after it changes none of them). */
  readonly newest: Float64Array;
  /** Passes taken on in steps from a saved one, and passes evaluated from their anchor, so far. */
  restored = 0;
  fresh = 0;
  constructor(
    /** The market of the screen's plan (compared without case, as the store stores it). */
    readonly market: string,
    /** Its frames' timeframes, plan order. */
    readonly timeframes: readonly Timeframe[],
    /** The shape of the program the passes were saved from (`CarryLayout.shape`). */
    readonly shape: string,
  ) {
    this.upper = market.toUpperCase();
    this.newest = new Float64Array(timeframes.length).fill(-Infinity);
  }

  /** Keeps `saved` as the symbol's pass. */
  set(symbol: string, saved: SymbolCarry): void {
    this.symbols.set(symbol, saved);
    for (let f = 0; f < this.newest.length; f++) if (saved.frameTime[f]! > this.newest[f]!) this.newest[f] = saved.frameTime[f]!;
  }

  /** Drops the passes a write changed: of its symbol, when it touched bars at or before the last one a frame read. */
  drop(touched: TouchedSeries, upperMarket: string): void {
    if (upperMarket !== this.upper) return;
    const f = this.timeframes.indexOf(touched.timeframe);
    // The common write, a new bar after every bar read, changes nothing here.
    if (f < 0 || touched.from > this.newest[f]!) return;
    const saved = this.symbols.get(touched.symbol);
    if (saved === undefined) return;
    // −Infinity: any bar, or the series is gone. A frame that read nothing yet reads the bars as they come.
    if (saved.frameHi[f] !== 0 && touched.from <= saved.frameTime[f]!) this.symbols.delete(touched.symbol);
  }
}

/**
 * The carried passes of an evaluator that follows screens from bar to bar (the alert engine,
 * `xql watch`), by screen key, kept true to the store through its change records.
 */
export class CarryStore {
  private readonly screens = new Map<string, ScreenCarry>();
  /** The store's data version the passes are known to agree with; undefined before the first round. */
  private version: number | undefined;

  /**
   * Before a round reads its bars: drops the passes the writes since the last round changed.
   * When the store's change log no longer reaches back that far (it keeps the latest writes
   * only), it cannot tell: every pass is dropped.
   */
  async invalidate(store: ChangeLog): Promise<void> {
    const version = await store.dataVersion();
    const since = this.version;
    this.version = version;
    if (since === undefined || since === version || this.screens.size === 0) return;
    const changes = await store.changesSince(since);
    if (changes.touched === null) {
      for (const screen of this.screens.values()) screen.symbols.clear();
      return;
    }
    for (const touched of changes.touched) {
      const upper = touched.market.toUpperCase();
      for (const screen of this.screens.values()) screen.drop(touched, upper);
    }
  }

  /** The passes of the screen keyed `key` evaluated by `program` (a fresh set when its shape changed). */
  screen(key: string, program: Program): ScreenCarry {
    const shape = carryLayout(program).shape;
    let screen = this.screens.get(key);
    if (screen === undefined || screen.shape !== shape) {
      screen = new ScreenCarry(program.market, program.frames.map((f) => f.timeframe), shape);
      this.screens.set(key, screen);
    }
    return screen;
  }

  /** Keeps only the screens keyed in `keys` (the others were deleted or handed to another replica). */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.screens.keys()) if (!keys.has(key)) this.screens.delete(key);
  }

  /** Symbols with a carried pass, and the passes taken on in steps and from their anchors so far, over every screen. */
  counts(): { symbols: number; restored: number; fresh: number } {
    const out = { symbols: 0, restored: 0, fresh: 0 };
    for (const screen of this.screens.values()) {
      out.symbols += screen.symbols.size;
      out.restored += screen.restored;
      out.fresh += screen.fresh;
    }
    return out;
  }
}
