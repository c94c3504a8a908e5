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
import { PRIMED_BLOCK_BARS, type Program, type Slot } from "./program.js";

/**
 * What carried passes read of a bar store: its data version and the series changed since one
 * (the store's change records; `BarStore` has both). Written here, not imported, so the
 * evaluator (which the browser's playground bundles) does not reach the store's modules.
 */
export interface ChangeLog {
  dataVersion(): Promise<number>;
  changesSince(version: number): Promise<{ readonly touched: readonly TouchedSeries[] | null }>;
}

/** Where and what a program carries: decided once per program. */
export interface CarryLayout {
  /** The slots carried (every slot but raw series and constants, which are read again from the bars). */
  readonly slots: readonly Slot[];
  /** Per carried slot: how many values before its position its consumers may read back. */
  readonly widths: Int32Array;
  /** Per carried slot: its frame's index in the program's frames. */
  readonly frames: Int32Array;
  /**
   * Per carried slot: how many bars before its frame's last bar read its last value is (`slotLags`):
   * 0 but for a slot read only through an offset (`highest(high, 20)[1]`), whose pass ends `k` bars earlier.
   */
  readonly lags: Int32Array;
  /** Every slot's lag (`slotLags`), carried or not: the round steps each at its own bar. */
  readonly lagOf: ReadonlyMap<Slot, number>;
  /** The program's shape (its slots' kinds and constants): a saved pass is restored only into the same shape. */
  readonly shape: string;
  /**
   * A symbol's row in its screen's passes (`ScreenCarry.rows`): per frame its anchor, then per
   * frame the open time of the last bar read, then each carried slot's tail (its `widths[k]`
   * values up to its last bar, the latest last), then the kernel states.
   */
  readonly rowSize: number;
  /** Per carried slot: where its tail starts in a row, and where its state starts (−1: none). */
  readonly tailAt: Int32Array;
  readonly stateAt: Int32Array;
}

const layouts = new WeakMap<Program, CarryLayout>();

/**
 * How many bars before a bar a slot reads its operands when it computes that bar: a call's
 * window (and the rest of a primed block for a windowed kernel without a state), an offset's
 * `k`; 0 for the per-bar operators.
 */
export function readsBack(slot: Slot): number {
  const node = slot.node;
  if (node.op === "call") return slot.extra + (slot.blocked && slot.state === undefined ? PRIMED_BLOCK_BARS - 1 : 0);
  if (node.op === "history") return node.offset;
  return 0;
}

/** The program's roots: its condition, columns and sort keys, each read at the bar. */
function rootsOf(program: Program): Slot[] {
  return [program.condition, ...program.columns.map((c) => c.slot), ...program.sort.map((s) => s.slot)];
}

/** Every slot of the program, each after the slots it reads (a post-order from the roots). */
export function slotOrder(program: Program): Slot[] {
  const order: Slot[] = [];
  const seen = new Set<Slot>();
  const visit = (root: Slot): void => {
    if (seen.has(root)) return;
    seen.add(root);
    const stack: { slot: Slot; next: number }[] = [{ slot: root, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const child = top.slot.children[top.next++];
      if (child === undefined) {
        order.push(top.slot);
        stack.pop();
      } else if (!seen.has(child)) {
        seen.add(child);
        stack.push({ slot: child, next: 0 });
      }
    }
  };
  for (const root of rootsOf(program)) visit(root);
  return order;
}

/**
 * Per slot: how many bars before its frame's last bar evaluated a pass computes it to. The roots
 * (condition, columns, sort keys) are computed at the bar; a slot read through an offset `x[k]`
 * is computed k bars before its reader; another consumer reads its operand at its own bar; the
 * smallest over a slot's readers wins (values.ts computes a slot up to the latest bar any reader
 * asks). Another timeframe's slots count from their own frame's last bar (0).
 */
function slotLags(program: Program): Map<Slot, number> {
  const order = slotOrder(program);
  const lags = new Map<Slot, number>();
  // The roots are read at the bar, whatever else reads them.
  for (const root of rootsOf(program)) lags.set(root, 0);
  for (let i = order.length - 1; i >= 0; i--) {
    const slot = order[i]!;
    const lag = lags.get(slot) ?? 0;
    lags.set(slot, lag);
    const node = slot.node;
    for (const child of slot.children) {
      const at = node.op === "timeframe" ? 0 : lag + (node.op === "history" ? node.offset : 0);
      const known = lags.get(child);
      if (known === undefined || at < known) lags.set(child, at);
    }
  }
  return lags;
}

/** The program's carry layout. */
export function carryLayout(program: Program): CarryLayout {
  let layout = layouts.get(program);
  if (layout) return layout;
  const slots = program.all.filter((s) => s.node.op !== "series" && s.node.op !== "number" && s.node.op !== "boolean");
  const index = new Map(slots.map((s, i) => [s, i]));
  const lagOf = slotLags(program);
  const widths = new Int32Array(slots.length);
  for (const consumer of program.all) {
    // Another timeframe's value is read at its last bar closed, which may be the bar before. A
    // consumer reads its operands back from its own bar, which is an operand's last value or
    // later: the tail holds what lies between.
    const timeframe = consumer.node.op === "timeframe";
    const back = timeframe ? 1 : readsBack(consumer);
    for (const child of consumer.children) {
      const i = index.get(child);
      const need = timeframe ? back : back + (lagOf.get(consumer) ?? 0) - (lagOf.get(child) ?? 0);
      if (i !== undefined && widths[i]! < need) widths[i] = need;
    }
  }
  const lags = new Int32Array(slots.map((s) => lagOf.get(s) ?? 0));
  const frames = new Int32Array(slots.map((s) => program.frames.indexOf(s.frame)));
  // The slots' IR ids (one per distinct subexpression) with their kinds: the same for every compile of the same text.
  const shape = slots.map((s) => `${s.node.id}:${s.node.op}:${s.node.op === "call" ? `${s.node.fn.name}(${s.node.consts.join(",")})` : ""}@${s.timeframe}`).join(";");
  const tailAt = new Int32Array(slots.length);
  const stateAt = new Int32Array(slots.length).fill(-1);
  let at = 2 * program.frames.length;
  for (let k = 0; k < slots.length; k++) {
    tailAt[k] = at;
    at += widths[k]!;
  }
  for (let k = 0; k < slots.length; k++) {
    const state = slots[k]!.state;
    if (state === undefined) continue;
    stateAt[k] = at;
    at += state.length;
  }
  layout = { slots, widths, frames, lags, lagOf, shape, rowSize: at, tailAt, stateAt };
  layouts.set(program, layout);
  return layout;
}

/**
 * Saves what the program holds for the instrument just evaluated (its slots computed over the
 * pass with `carrying` set) as `symbol`'s pass in `screen`; false, and the symbol's pass
 * forgotten, when it cannot be carried: a slot was not computed, or a kernel state is not
 * positioned at its slot's last bar (a recursion still before its seed starts over from the
 * first bar, which a carried pass does not hold).
 */
export function saveCarry(program: Program, anchors: readonly number[], screen: ScreenCarry, symbol: string): boolean {
  const layout = carryLayout(program);
  const { slots, widths, tailAt, stateAt } = layout;
  for (let k = 0; k < slots.length; k++) {
    const slot = slots[k]!;
    if (slot.epoch !== program.epoch || slot.view !== undefined || (slot.state !== undefined && slot.state[0] !== slot.hi)) {
      screen.forget(symbol);
      return false;
    }
  }
  const frames = program.frames;
  const F = frames.length;
  const S = slots.length;
  const lane = screen.laneFor(symbol);
  const rows = screen.rows;
  const r = lane * layout.rowSize;
  const frameHi = screen.frameHi;
  for (let f = 0; f < F; f++) frameHi[lane * F + f] = 0;
  let full = 1;
  for (let k = 0; k < S; k++) {
    const slot = slots[k]!;
    const w = widths[k]!;
    const hi = slot.hi;
    const from = Math.max(slot.lo, hi - w);
    if (hi - from !== w) full = 0;
    screen.lo[lane * S + k] = from;
    screen.hi[lane * S + k] = hi;
    // Right-aligned: the value at bar i sits at tailAt + i − (hi − w).
    const base = r + tailAt[k]! - (hi - w);
    const buffer = slot.buffer;
    for (let i = from; i < hi; i++) rows[base + i] = buffer[i]!;
    const f = layout.frames[k]!;
    if (hi > frameHi[lane * F + f]!) frameHi[lane * F + f] = hi;
    const state = slot.state;
    if (state !== undefined) for (let i = 0, at = r + stateAt[k]!; i < state.length; i++) rows[at + i] = state[i]!;
  }
  // Full also when every slot ends its lag before its frame's last bar (`slotLags`: an offset's operand ends before it).
  for (let k = 0; k < S && full === 1; k++) if (screen.hi[lane * S + k] !== frameHi[lane * F + layout.frames[k]!]! - layout.lags[k]!) full = 0;
  for (let f = 0; f < F; f++) {
    const h = frameHi[lane * F + f]!;
    rows[r + f] = anchors[f]!;
    rows[r + F + f] = h > 0 ? Number(frames[f]!.bars.time[h - 1]) : Number.NaN;
    if (h > 0 && rows[r + F + f]! > screen.newest[f]!) screen.newest[f] = rows[r + F + f]!;
  }
  screen.full[lane] = full;
  screen.live[lane] = 1;
  return true;
}

/**
 * Gives the program back `symbol`'s saved pass for the instrument attached (frames narrowed to
 * `anchors`), to take its base bars from `next` on: true when it was restored (the program is
 * then `restored`), false when there is none or it does not continue here — other anchors,
 * another position, or bars that moved under it.
 */
export function restoreCarry(program: Program, screen: ScreenCarry, symbol: string, anchors: readonly number[], next: number): boolean {
  const lane = screen.lane(symbol);
  if (lane < 0) return false;
  const layout = carryLayout(program);
  const { slots, widths, tailAt, stateAt } = layout;
  const frames = program.frames;
  const F = frames.length;
  const S = slots.length;
  const rows = screen.rows;
  const r = lane * layout.rowSize;
  if (anchors.length !== F) return false;
  for (let f = 0; f < F; f++) if (rows[r + f] !== anchors[f]) return false;
  if (screen.frameHi[lane * F] !== next) return false;
  for (let f = 0; f < F; f++) {
    const h = screen.frameHi[lane * F + f]!;
    if (h === 0) continue;
    const frame = frames[f]!;
    if (h > frame.length || Number(frame.bars.time[h - 1]) !== rows[r + F + f]) return false;
  }
  // Only the carried slots are given a floor: the others (raw series, constants) are read again from the bars.
  for (let k = 0; k < S; k++) {
    const slot = slots[k]!;
    // A full lane's slots end their lag before their frame's last bar read, each tail its whole width (round.ts moves only that).
    const full = screen.full[lane] === 1;
    const hi = full ? screen.frameHi[lane * F + layout.frames[k]!]! - layout.lags[k]! : screen.hi[lane * S + k]!;
    const lo = full ? hi - widths[k]! : screen.lo[lane * S + k]!;
    const length = slot.frame.length;
    if (slot.buffer.length < length) slot.buffer = new Float64Array(Math.max(length, slot.buffer.length * 2));
    const buffer = slot.buffer;
    const base = r + tailAt[k]! - (hi - widths[k]!);
    for (let i = lo; i < hi; i++) buffer[i] = rows[base + i]!;
    slot.view = undefined;
    slot.epoch = program.epoch;
    slot.lo = lo;
    slot.hi = hi;
    slot.floor = lo;
    const state = slot.state;
    if (state !== undefined) for (let i = 0, at = r + stateAt[k]!; i < state.length; i++) state[i] = rows[at + i]!;
  }
  program.restored = true;
  return true;
}

/**
 * A number per symbol, the same for every screen of a carry store: a round finds each
 * instrument's once (round.ts), and each screen its lane from it by index.
 */
export class SymbolIds {
  private readonly ids = new Map<string, number>();
  /**
   * Per id: the symbol, the very string the ids are keyed by. A round's rows carry it (round.ts),
   * so the next round's lookups of the symbols its alerts matched (their `track`) find the key by
   * identity, not by comparing the text of a string read afresh.
   */
  readonly names: string[] = [];
  /** The symbol's id, assigned when it has none. */
  idOf(symbol: string): number {
    let id = this.ids.get(symbol);
    if (id === undefined) {
      this.ids.set(symbol, (id = this.ids.size));
      this.names.push(symbol);
    }
    return id;
  }
  /** The symbol's id, −1 when it has none. */
  find(symbol: string): number {
    return this.ids.get(symbol) ?? -1;
  }
}

/**
 * One screen's carried passes, a row per symbol (a lane) in arrays shared by all of them, so
 * that a round stepping the screen across symbols (round.ts) reads them in order: the rows
 * (anchors, times, tails, states: `CarryLayout.rowSize` values each), the frames' and slots'
 * positions. A symbol keeps its lane while the screen is followed; its pass is live or not.
 */
export class ScreenCarry {
  /** Per symbol id (`SymbolIds`): its lane, −1 when it has none. */
  laneOfId = new Int32Array(0);
  /** Lanes assigned so far (live or not). */
  count = 0;
  rows: Float64Array;
  /** Per lane and frame: one past the last bar read (0 when none). */
  frameHi: Int32Array;
  /**
   * Per lane and carried slot: the bars (frame indices) its tail holds, [lo, hi), as saved; a
   * full lane's end its slot's lag before its frame's `frameHi` and start one width before that
   * (round.ts steps full lanes without writing these).
   */
  lo: Int32Array;
  hi: Int32Array;
  /** Per lane: 1 when it holds a pass. */
  live: Uint8Array;
  /** Per lane: 1 when every tail holds its full width and ends at its slot's bar (its lag before its frame's last bar read). */
  full: Uint8Array;
  /** The market, upper case, as writes are compared with it. */
  private readonly upper: string;
  /** Per frame: the latest bar time any saved pass read (a write after it changes none of them). */
  readonly newest: Float64Array;
  /** Passes taken on in steps from a saved one, passes evaluated from their anchor, and bars stepped across symbols (round.ts), so far. */
  restored = 0;
  fresh = 0;
  across = 0;
  /** Steps of a call taken from another screen's in the same round (round.ts `CallMemo`), so far. */
  shared = 0;
  constructor(
    /** The market of the screen's plan (compared without case, as the store stores it). */
    readonly market: string,
    /** Its frames' timeframes, plan order. */
    readonly timeframes: readonly Timeframe[],
    /** The layout of the program the passes were saved from (its `shape` says which programs may restore them). */
    readonly layout: CarryLayout,
    /** The ids of symbols, shared by every screen of the store. */
    readonly ids: SymbolIds = new SymbolIds(),
  ) {
    this.upper = market.toUpperCase();
    this.newest = new Float64Array(timeframes.length).fill(-Infinity);
    this.rows = new Float64Array(0);
    this.frameHi = new Int32Array(0);
    this.lo = new Int32Array(0);
    this.hi = new Int32Array(0);
    this.live = new Uint8Array(0);
    this.full = new Uint8Array(0);
  }

  get shape(): string {
    return this.layout.shape;
  }

  /** The lane of the symbol with id `id` (live or not), −1 when it has none. */
  laneOf(id: number): number {
    return id >= 0 && id < this.laneOfId.length ? this.laneOfId[id]! : -1;
  }

  /** The symbol's lane when it holds a pass, else −1. */
  lane(symbol: string): number {
    const lane = this.assigned(symbol);
    return lane < 0 || this.live[lane] === 0 ? -1 : lane;
  }

  /** The symbol's lane (live or not), −1 when it has none. */
  assigned(symbol: string): number {
    return this.laneOf(this.ids.find(symbol));
  }

  /** The symbol's lane, assigned (and the arrays grown) when it has none. */
  laneFor(symbol: string): number {
    const id = this.ids.idOf(symbol);
    if (id >= this.laneOfId.length) {
      const wider = new Int32Array(Math.max(64, 2 * this.laneOfId.length, id + 1)).fill(-1);
      wider.set(this.laneOfId);
      this.laneOfId = wider;
    }
    let lane = this.laneOfId[id]!;
    if (lane >= 0) return lane;
    lane = this.count++;
    this.laneOfId[id] = lane;
    if (lane >= this.live.length) this.grow(Math.max(64, 2 * this.live.length));
    return lane;
  }

  private grow(lanes: number): void {
    const { rowSize } = this.layout;
    const F = this.timeframes.length;
    const S = this.layout.slots.length;
    const widen = <T extends Float64Array | Int32Array | Uint8Array>(a: T, per: number, make: (n: number) => T): T => {
      const b = make(lanes * per);
      b.set(a);
      return b;
    };
    this.rows = widen(this.rows, rowSize, (n) => new Float64Array(n));
    this.frameHi = widen(this.frameHi, F, (n) => new Int32Array(n));
    this.lo = widen(this.lo, S, (n) => new Int32Array(n));
    this.hi = widen(this.hi, S, (n) => new Int32Array(n));
    this.live = widen(this.live, 1, (n) => new Uint8Array(n));
    this.full = widen(this.full, 1, (n) => new Uint8Array(n));
  }

  /** Forgets the symbol's pass (its lane stays its own). */
  forget(symbol: string): void {
    const lane = this.assigned(symbol);
    if (lane >= 0) this.live[lane] = 0;
  }

  /** Forgets every pass. */
  clear(): void {
    this.live.fill(0);
  }

  /** Symbols with a pass. */
  get size(): number {
    let n = 0;
    for (let lane = 0; lane < this.count; lane++) n += this.live[lane]!;
    return n;
  }

  /** Drops the passes a write changed: of its symbol, when it touched bars at or before the last one a frame read. */
  drop(touched: TouchedSeries, upperMarket: string): void {
    if (upperMarket !== this.upper) return;
    const f = this.timeframes.indexOf(touched.timeframe);
    // The common write, a new bar after every bar read, changes nothing here.
    if (f < 0 || touched.from > this.newest[f]!) return;
    const lane = this.lane(touched.symbol);
    if (lane < 0) return;
    const F = this.timeframes.length;
    // −Infinity: any bar, or the series is gone. A frame that read nothing yet reads the bars as they come.
    if (this.frameHi[lane * F + f] !== 0 && touched.from <= this.rows[lane * this.layout.rowSize + F + f]!) this.live[lane] = 0;
  }
}

/**
 * The carried passes of an evaluator that follows screens from bar to bar (the alert engine,
 * `xql watch`), by screen key, kept true to the store through its change records.
 */
export class CarryStore {
  private readonly screens = new Map<string, ScreenCarry>();
  /** The ids of the symbols any screen carries. */
  readonly ids = new SymbolIds();
  /** The store's data version the passes are known to agree with; undefined before the first round. */
  private version: number | undefined;
  /** Rounds begun (`invalidate` calls): what a round reads once for all its screens is kept for the round's number (round.ts). */
  rounds = 0;

  /**
   * Before a round reads its bars: drops the passes the writes since the last round changed.
   * When the store's change log no longer reaches back that far (it keeps the latest writes
   * only), it cannot tell: every pass is dropped.
   */
  async invalidate(store: ChangeLog): Promise<void> {
    this.rounds++;
    const version = await store.dataVersion();
    const since = this.version;
    this.version = version;
    if (since === undefined || since === version || this.screens.size === 0) return;
    const changes = await store.changesSince(since);
    if (changes.touched === null) {
      for (const screen of this.screens.values()) screen.clear();
      return;
    }
    // The common write, a new bar after every bar any pass read, changes none of them: told once
    // per written series from the latest bar read per timeframe, not asked of every screen.
    const newest = new Map<Timeframe, number>();
    for (const screen of this.screens.values()) {
      screen.timeframes.forEach((tf, f) => newest.set(tf, Math.max(newest.get(tf) ?? -Infinity, screen.newest[f]!)));
    }
    for (const touched of changes.touched) {
      if (!(touched.from <= (newest.get(touched.timeframe) ?? -Infinity))) continue;
      const upper = touched.market.toUpperCase();
      for (const screen of this.screens.values()) screen.drop(touched, upper);
    }
  }

  /** The passes of the screen keyed `key` evaluated by `program` (a fresh set when its shape changed). */
  screen(key: string, program: Program): ScreenCarry {
    const layout = carryLayout(program);
    let screen = this.screens.get(key);
    if (screen === undefined || screen.shape !== layout.shape) {
      screen = new ScreenCarry(program.market, program.frames.map((f) => f.timeframe), layout, this.ids);
      this.screens.set(key, screen);
    }
    return screen;
  }

  /** Keeps only the screens keyed in `keys` (the others were deleted or handed to another replica). */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.screens.keys()) if (!keys.has(key)) this.screens.delete(key);
  }

  /** Symbols with a carried pass, the passes taken on in steps and from their anchors, and the call steps shared, so far, over every screen. */
  counts(): { symbols: number; restored: number; fresh: number; across: number; shared: number } {
    const out = { symbols: 0, restored: 0, fresh: 0, across: 0, shared: 0 };
    for (const screen of this.screens.values()) {
      out.symbols += screen.size;
      out.restored += screen.restored;
      out.fresh += screen.fresh;
      out.across += screen.across;
      out.shared += screen.shared;
    }
    return out;
  }
}
