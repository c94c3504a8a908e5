/**
 * Stage `evaluate`: runs a planned query over injected bars, purely.
 *
 * The typed IR is compiled once into a graph of slots, one per distinct (node, timeframe):
 * identical subexpressions share a slot, so `rsi(14)` in columns, sort and condition is
 * computed once per instrument. Each slot computes only the bar range asked of it (usually
 * just the latest bar; more where offsets, crossovers or windows need history), into a buffer
 * reused across instruments, so evaluation allocates nothing per bar. `and`/`or` evaluate
 * their cheapest operands first and stop as soon as the result is known.
 */
import type { CheckedQuery } from "../check/check.js";
import type { CompareOperator, IrNode } from "../check/ir.js";
import type { Kernel, KernelContext } from "../functions/kernel.js";
import type { SeriesSpec } from "../functions/registry.js";
import { assertNever } from "../errors.js";
import { needKey, type Planned } from "../plan/plan.js";
import {
  TIMEFRAME_MS,
  type Bars,
  type Instrument,
  type RawSeries,
  type ResultRow,
  type RunResult,
  type Timeframe,
} from "../types.js";
import { alignmentCut, lastClosedIndex } from "../alignment.js";
import { ColumnsSize, matchBytes, responseTooLarge } from "../json-size.js";

/**
 * Thrown by `run` for bars that cannot be evaluated honestly: times that are not finite and
 * strictly increasing (unsorted or duplicate), or columns of unequal length. Query errors are
 * never thrown this way; they come back as data from `validate` and `explain`.
 *
 * @example
 * ```ts
 * import { compile, XqlDataError } from "xql";
 *
 * try {
 *   compile('market = "FOREX"\ntimeframe = h1\nclose > 1').run(myUniverse);
 * } catch (e) {
 *   if (e instanceof XqlDataError) console.error(e.message); // "Instrument 'EURUSD', timeframe h1: bar times must be ..."
 *   else throw e;
 * }
 * ```
 */
export class XqlDataError extends Error {
  /** Always `"XqlDataError"`. */
  override readonly name = "XqlDataError";
}

/**
 * One timeframe's bars for the instrument being evaluated. One object per plan source, made
 * with the program and repointed at each instrument's bars, so starting an instrument
 * allocates nothing and slots reach their frame by reference, not by a keyed lookup.
 */
class Frame {
  bars: Bars = NO_BARS;
  length = 0;
  /** Index of the latest bar that counts at the base bar being evaluated (aligned end). */
  end = -1;
  readonly duration: number;
  /** Per raw column given as something other than a Float64Array: its copy (see `raw`). */
  readonly copies = new Map<RawSeries | "time", Slot>();

  constructor(readonly timeframe: Timeframe) {
    this.duration = TIMEFRAME_MS[timeframe];
  }
}

const RAW_FIELDS: readonly RawSeries[] = ["open", "high", "low", "close", "volume"];

class Slot {
  private scratchBuffers: Float64Array[] = [];
  private ctx: KernelContext | undefined;

  /** What a kernel may know beyond its inputs; scratch buffers live as long as the slot. */
  context(timeframe: Timeframe, market: string): KernelContext {
    return (this.ctx ??= {
      timeframeMs: TIMEFRAME_MS[timeframe],
      timeframe,
      market,
      scratch: (index: number, length: number): Float64Array => {
        let b = this.scratchBuffers[index];
        if (!b || b.length < length) this.scratchBuffers[index] = b = new Float64Array(Math.max(length, (b?.length ?? 0) * 2));
        return b;
      },
    });
  }

  /** Values in bar-index space of `timeframe`; valid on [lo, hi) for instrument `epoch`. */
  buffer = new Float64Array(0);
  /** For a derived series: its raw columns, reused across instruments. */
  columns: Float64Array[] | undefined;
  /** For raw series given as Float64Array: the caller's array, read without a copy. */
  view: Float64Array | undefined;
  epoch = -1;
  lo = 0;
  hi = 0;
  children: Slot[] = [];
  /** For `and`/`or`: operands ordered cheapest first. */
  ordered: Slot[] = [];
  cost = 1;
  /** The frame of this slot's timeframe (set when the program wires its slots). */
  frame!: Frame;
  /** For `timeframe`: the frame of the inner timeframe. */
  inner: Frame | undefined;
  /** Whether the slot runs over whole blocks (see `isBlocked`), decided once. */
  blocked = false;
  /** For calls: the kernel's extra lookback for this node's constants, decided once. */
  extra = 0;
  /** For calls: the kernel's inputs, refilled per computation (children, then implicit columns). */
  inputs: Float64Array[] = [];
  /** For arithmetic: the left spine being folded, reused (a slot is never folded re-entrantly). */
  spine: Slot[] = [];
  /**
   * For recursive calls: bars before the latest that the plan says some consumer needs. The
   * first computation covers them all, since a recursive kernel streams the whole history
   * whatever range it writes (`rsi(14) > rsi(14)[1]` would otherwise stream it twice).
   */
  history = 0;

  constructor(
    readonly node: IrNode,
    readonly timeframe: Timeframe,
  ) {}

  /** Bytes of the buffers this slot keeps. */
  retainedBytes(): number {
    let bytes = this.buffer.byteLength;
    for (const b of this.scratchBuffers) bytes += b?.byteLength ?? 0;
    for (const c of this.columns ?? []) bytes += c.byteLength;
    return bytes;
  }
}

/** Estimated work per evaluation, for ordering `and`/`or` operands (recursive kernels read all history). */
function ownCost(node: IrNode): number {
  if (node.op === "call") return node.fn.recursive ? 300 : node.fn.extraLookback(node.consts) + 1;
  if (node.op === "series") return node.series.raw.length;
  return 1;
}

function fillType(node: IrNode): number {
  return node.type === "boolean" ? 0 : NaN;
}

// Decisions §1: division by zero and other non-finite values make comparisons false, so an
// operand that is NaN or ±Infinity (x − x is 0 only for finite x) fails every operator, != included.
// One loop per operator, so the comparison is inlined rather than called per bar.
function compareInto(op: CompareOperator, a: Float64Array, b: Float64Array, out: Float64Array, from: number, to: number): void {
  switch (op) {
    case "<":
      for (let i = from; i < to; i++) { const x = a[i]!, y = b[i]!; out[i] = x < y && x - x === 0 && y - y === 0 ? 1 : 0; }
      return;
    case "<=":
      for (let i = from; i < to; i++) { const x = a[i]!, y = b[i]!; out[i] = x <= y && x - x === 0 && y - y === 0 ? 1 : 0; }
      return;
    case ">":
      for (let i = from; i < to; i++) { const x = a[i]!, y = b[i]!; out[i] = x > y && x - x === 0 && y - y === 0 ? 1 : 0; }
      return;
    case ">=":
      for (let i = from; i < to; i++) { const x = a[i]!, y = b[i]!; out[i] = x >= y && x - x === 0 && y - y === 0 ? 1 : 0; }
      return;
    case "==":
      for (let i = from; i < to; i++) { const x = a[i]!, y = b[i]!; out[i] = x === y && x - x === 0 ? 1 : 0; }
      return;
    case "!=":
      for (let i = from; i < to; i++) { const x = a[i]!, y = b[i]!; out[i] = x !== y && x - x === 0 && y - y === 0 ? 1 : 0; }
      return;
    default:
      assertNever(op, "comparison operator");
  }
}

const EMPTY = new Float64Array(0);
const NO_BARS: Bars = { time: EMPTY, open: EMPTY, high: EMPTY, low: EMPTY, close: EMPTY, volume: EMPTY };

class Program {
  private readonly slots = new Map<string, Slot>();
  /** Frames in plan source order; the base timeframe's first. */
  private readonly frames: Frame[];
  private readonly frameOf = new Map<Timeframe, Frame>();
  /** Per plan source: the raw columns it reads, whose lengths `checkBars` verifies. */
  private readonly columnsRead: readonly (readonly RawSeries[])[];
  private epoch = 0;
  readonly condition: Slot;
  readonly columns: { text: string; slot: Slot }[];
  readonly sort: { slot: Slot; descending: boolean }[];

  constructor(
    private readonly query: CheckedQuery,
    private readonly planned: Planned,
  ) {
    const base = planned.baseTimeframe;
    this.frames = planned.plan.sources.map((source) => new Frame(source.timeframe));
    for (const frame of this.frames) this.frameOf.set(frame.timeframe, frame);
    this.columnsRead = planned.plan.sources.map((source) => RAW_FIELDS.filter((name) => source.series.includes(name)));
    const checked = query;
    this.condition = this.slot(checked.condition.ir, base);
    this.columns = checked.columns.map((c) => ({ text: c.text, slot: this.slot(c.ir, base) }));
    this.sort = checked.sort.map((s) => ({ slot: this.slot(s.ir, base), descending: s.direction === "desc" }));
  }

  /** Builds the slot graph; explicit stack so long chains cost no call depth. */
  private slot(root: IrNode, rootTf: Timeframe): Slot {
    const get = (node: IrNode, tf: Timeframe): Slot => {
      const key = needKey(node, tf);
      let s = this.slots.get(key);
      if (!s) {
        this.slots.set(key, (s = new Slot(node, tf)));
        if (node.op === "call" && node.fn.recursive) s.history = this.planned.needs.get(key) ?? 0;
      }
      return s;
    };
    const rootSlot = get(root, rootTf);
    const pending: Slot[] = [rootSlot];
    const wired = new Set<Slot>();
    const order: Slot[] = [];
    while (pending.length > 0) {
      const s = pending.pop()!;
      if (wired.has(s)) continue;
      wired.add(s);
      order.push(s);
      const n = s.node;
      const childTf = n.op === "timeframe" ? n.timeframe : s.timeframe;
      const kids: IrNode[] =
        n.op === "call" ? [...n.args] :
        n.op === "and" || n.op === "or" ? [...n.operands] :
        n.op === "compare" || n.op === "arithmetic" ? [n.left, n.right] :
        n.op === "negate" || n.op === "not" || n.op === "timeframe" || n.op === "history" ? [n.operand] : [];
      s.children = kids.map((k) => get(k, childTf));
      s.frame = this.frame(s.timeframe);
      if (n.op === "timeframe") s.inner = this.frame(n.timeframe);
      s.blocked = isBlocked(n);
      if (n.op === "call") {
        s.extra = n.fn.extraLookback(n.consts);
        s.inputs = new Array<Float64Array>(s.children.length + n.fn.implicit.length).fill(EMPTY);
      }
      pending.push(...s.children);
    }
    // Costs bottom-up (children were discovered after parents).
    for (let i = order.length - 1; i >= 0; i--) {
      const s = order[i]!;
      s.cost = ownCost(s.node) + s.children.reduce((sum, c) => sum + c.cost, 0);
      if (s.node.op === "and" || s.node.op === "or") {
        s.ordered = [...s.children].sort((a, b) => a.cost - b.cost);
      }
    }
    return rootSlot;
  }

  /** Bytes of the buffers this program keeps between runs (they grow to the longest bars evaluated). */
  retainedBytes(): number {
    let bytes = 0;
    for (const slot of this.slots.values()) bytes += slot.retainedBytes();
    for (const frame of this.frames) for (const copy of frame.copies.values()) bytes += copy.retainedBytes();
    return bytes;
  }

  /** The frame of a timeframe the plan reads (every slot's is one: the plan lists them all). */
  private frame(timeframe: Timeframe): Frame {
    const frame = this.frameOf.get(timeframe);
    if (!frame) throw new Error(`internal: timeframe ${timeframe} is not a plan source`);
    return frame;
  }

  /**
   * Starts a new instrument: validates the bars of every source and sets up its frames. False
   * when a source has no bars at all (the instrument has no data for the query).
   */
  private attach(instrument: Instrument): boolean {
    this.epoch++;
    const frames = this.frames;
    for (let k = 0; k < frames.length; k++) {
      const frame = frames[k]!;
      const bars = instrument.bars[frame.timeframe];
      if (!bars) return false;
      const length = checkBars(instrument.symbol, frame.timeframe, bars, this.columnsRead[k]!);
      if (length === 0) return false;
      frame.bars = bars;
      frame.length = length;
      frame.end = length - 1;
    }
    return true;
  }

  /**
   * Makes base bar `baseEnd` the latest: every other frame ends at its last bar closed by then
   * (decisions §1 alignment). False when a source then has fewer bars than its minLookback.
   */
  private alignAt(baseEnd: number): boolean {
    const sources = this.planned.plan.sources;
    const base = this.frames[0]!;
    if (baseEnd + 1 < sources[0]!.minLookback) return false;
    base.end = baseEnd;
    if (sources.length === 1) return true;
    const baseClose = alignmentCut(base.bars.time[baseEnd]!, base.duration);
    let enough = true;
    for (let i = 1; i < sources.length; i++) {
      const source = sources[i]!;
      const frame = this.frames[i]!;
      frame.end = lastClosedIndex(frame.bars.time, frame.length, frame.duration, baseClose);
      // minLookback counts aligned bars: those closed by the base bar's close.
      if (frame.end + 1 < source.minLookback) enough = false;
    }
    return enough;
  }

  /** Values of `slot` valid at least on [from, to) of its timeframe. */
  private values(slot: Slot, from: number, to: number): Float64Array {
    if (from < 0) from = 0;
    if (slot.epoch === this.epoch && from >= slot.lo && to <= slot.hi) return slot.view ?? slot.buffer;
    if (slot.epoch === this.epoch && slot.hi > slot.lo) {
      // Widen to the union so values computed earlier stay valid.
      from = Math.min(from, slot.lo);
      to = Math.max(to, slot.hi);
    }
    const frame = slot.frame;
    if (slot.history > 0) from = Math.max(0, Math.min(from, frame.end - slot.history));
    if (slot.buffer.length < frame.length) slot.buffer = new Float64Array(Math.max(frame.length, slot.buffer.length * 2));
    slot.view = undefined;
    // A windowed kernel starts its running sums where its range starts, so its rounding would
    // depend on the range asked. It is always run over whole blocks of BLOCK bars instead, each
    // block primed afresh: a value is then a function of the bars alone, the same whichever
    // consumer asks and whatever else the query needs (history relies on it: see `history`).
    if (slot.blocked) from -= from % BLOCK;
    if (to > from) this.compute(slot, frame, from, to);
    slot.epoch = this.epoch;
    slot.lo = from;
    slot.hi = to;
    return slot.view ?? slot.buffer;
  }

  private compute(slot: Slot, frame: Frame, from: number, to: number): void {
    const node = slot.node;
    const out = slot.buffer;
    switch (node.op) {
      case "number":
        out.fill(node.value, from, to);
        return;
      case "boolean":
        out.fill(node.value ? 1 : 0, from, to);
        return;
      case "series":
        this.series(slot, node.series, frame, from, to);
        return;
      case "call": {
        const fn = node.fn;
        const inputFrom = fn.recursive ? 0 : from - slot.extra;
        const inputs = slot.inputs;
        const children = slot.children;
        for (let k = 0; k < children.length; k++) inputs[k] = this.values(children[k]!, inputFrom, to);
        const implicit = fn.implicit;
        for (let k = 0; k < implicit.length; k++) inputs[children.length + k] = this.raw(frame, implicit[k]!, inputFrom, to);
        const ctx = slot.context(frame.timeframe, this.planned.plan.market);
        if (!slot.blocked) {
          (fn.kernel as Kernel)(inputs, node.consts, out, from, to, ctx);
          return;
        }
        // `from` is a block start (see `values`): one kernel call per block.
        for (let start = from; start < to; start += BLOCK) {
          (fn.kernel as Kernel)(inputs, node.consts, out, start, Math.min(start + BLOCK, to), ctx);
        }
        return;
      }
      case "negate": {
        const a = this.values(slot.children[0]!, from, to);
        for (let i = from; i < to; i++) out[i] = -a[i]!;
        return;
      }
      case "not": {
        const a = this.values(slot.children[0]!, from, to);
        for (let i = from; i < to; i++) out[i] = a[i] === 1 ? 0 : 1;
        return;
      }
      case "compare": {
        const a = this.values(slot.children[0]!, from, to);
        const b = this.values(slot.children[1]!, from, to);
        compareInto(node.operator, a, b, out, from, to);
        return;
      }
      case "arithmetic":
        this.arithmetic(slot, from, to);
        return;
      case "and":
      case "or":
        this.logical(slot, node.op === "and", from, to);
        return;
      case "history": {
        const k = node.offset;
        const fill = fillType(node);
        const a = to - k > Math.max(0, from - k) ? this.values(slot.children[0]!, from - k, to - k) : undefined;
        for (let i = from; i < to; i++) out[i] = i - k >= 0 && a ? a[i - k]! : fill;
        return;
      }
      case "timeframe": {
        const inner = slot.inner!;
        const child = slot.children[0]!;
        const fill = fillType(node);
        const duration = frame.duration;
        const innerDuration = inner.duration;
        // Aligned indices are monotone in the outer index: find the ends, then walk forward.
        let j = lastClosedIndex(inner.bars.time, inner.length, innerDuration, frame.bars.time[from]! + duration);
        const last = Math.min(inner.end, lastClosedIndex(inner.bars.time, inner.length, innerDuration, frame.bars.time[to - 1]! + duration));
        const first = Math.min(j, last);
        const a = last >= 0 ? this.values(child, Math.max(first, 0), last + 1) : undefined;
        for (let i = from; i < to; i++) {
          const close = frame.bars.time[i]! + duration;
          while (j + 1 <= last && inner.bars.time[j + 1]! + innerDuration <= close) j++;
          const aligned = Math.min(j, last);
          out[i] = aligned >= 0 && a ? a[aligned]! : fill;
        }
        return;
      }
      default:
        assertNever(node, "IR op");
    }
  }

  /** A raw column as Float64Array on [from, to): the caller's array when it already is one. */
  private raw(frame: Frame, name: RawSeries | "time", from: number, to: number): Float64Array {
    const column = frame.bars[name];
    if (column instanceof Float64Array) return column;
    // Other array types are copied once per instrument into a slot of their own.
    let s = frame.copies.get(name);
    if (!s) {
      s = new Slot({ id: -1, op: "number", type: "number", value: 0 }, frame.timeframe);
      s.frame = frame;
      frame.copies.set(name, s);
    }
    if (s.epoch !== this.epoch || from < s.lo || to > s.hi) {
      if (s.buffer.length < frame.length) s.buffer = new Float64Array(Math.max(frame.length, s.buffer.length * 2));
      const lo = Math.max(0, from);
      for (let i = lo; i < to; i++) s.buffer[i] = Number(column[i]);
      s.epoch = this.epoch;
      s.lo = lo;
      s.hi = to;
    }
    return s.buffer;
  }

  /** A series: a raw column read in place, or a derived one combined from its raw columns. */
  private series(slot: Slot, spec: SeriesSpec, frame: Frame, from: number, to: number): void {
    const out = slot.buffer;
    if (spec.combine === undefined) {
      const column = frame.bars[spec.raw[0]!];
      if (column instanceof Float64Array && column.length === frame.length) {
        slot.view = column;
        return;
      }
      for (let i = from; i < to; i++) out[i] = Number(column[i]);
      return;
    }
    const columns = slot.columns ??= spec.raw.map(() => new Float64Array(0));
    for (let j = 0; j < spec.raw.length; j++) columns[j] = this.raw(frame, spec.raw[j]!, from, to);
    spec.combine(columns, out, from, to);
  }

  /** `a + b - c ...`: fold the left spine bottom-up so long chains cost no call depth. */
  private arithmetic(slot: Slot, from: number, to: number): void {
    const spine = slot.spine;
    spine.length = 0;
    let s: Slot = slot;
    while (
      s.node.op === "arithmetic" &&
      (s === slot || !(s.epoch === this.epoch && from >= s.lo && to <= s.hi))
    ) {
      spine.push(s);
      s = s.children[0]!;
    }
    let left = this.values(s, from, to);
    for (let k = spine.length - 1; k >= 0; k--) {
      const node = spine[k]!;
      const op = (node.node as Extract<IrNode, { op: "arithmetic" }>).operator;
      const right = this.values(node.children[1]!, from, to);
      const out = node === slot ? slot.buffer : this.prepare(node, from, to);
      switch (op) {
        case "+":
          for (let i = from; i < to; i++) out[i] = left[i]! + right[i]!;
          break;
        case "-":
          for (let i = from; i < to; i++) out[i] = left[i]! - right[i]!;
          break;
        case "*":
          for (let i = from; i < to; i++) out[i] = left[i]! * right[i]!;
          break;
        case "/":
          for (let i = from; i < to; i++) out[i] = left[i]! / right[i]!;
          break;
        default:
          assertNever(op, "arithmetic operator");
      }
      left = out;
    }
  }

  /** Marks an inner spine slot as computed on [from, to) and returns its buffer to write. */
  private prepare(slot: Slot, from: number, to: number): Float64Array {
    const frame = slot.frame;
    if (slot.buffer.length < frame.length) slot.buffer = new Float64Array(Math.max(frame.length, slot.buffer.length * 2));
    slot.view = undefined;
    slot.epoch = this.epoch;
    slot.lo = from;
    slot.hi = to;
    return slot.buffer;
  }

  /** `and`/`or` with short-circuit: each operand is asked only for the bars still undecided. */
  private logical(slot: Slot, isAnd: boolean, from: number, to: number): void {
    const out = slot.buffer;
    const decided = isAnd ? 0 : 1;
    out.fill(isAnd ? 1 : 0, from, to);
    let lo = from;
    let hi = to;
    for (const operand of slot.ordered) {
      const v = this.values(operand, lo, hi);
      let newLo = hi;
      let newHi = lo;
      for (let i = lo; i < hi; i++) {
        if (out[i] === decided) continue;
        if (v[i] === decided) out[i] = decided;
        else {
          if (i < newLo) newLo = i;
          newHi = i + 1;
        }
      }
      lo = newLo;
      hi = newHi;
      if (lo >= hi) return;
    }
  }

  /** Value of a base-timeframe slot at the latest base bar. */
  private latest(slot: Slot): number {
    const end = slot.frame.end;
    return this.values(slot, end, end + 1)[end]!;
  }

  /** The row of the instrument loaded, at its current base bar (columns and sort keys are base slots). */
  private row(symbol: string): RankedRow {
    return this.rowAt(symbol, this.frames[0]!.end);
  }

  /** Orders rows as the query's sort says (ties and no sort: by symbol) and applies its limit. */
  private rank(rows: RankedRow[]): RankedRow[] {
    rows.sort((a, b) => this.order(a.keys, a.row.symbol, b.keys, b.row.symbol));
    const limit = this.query.limit;
    return limit === undefined ? rows : rows.slice(0, limit);
  }

  /** The query's order: its sort keys, then the symbol. Negative when a comes first. */
  private order(a: readonly number[], aSymbol: string, b: readonly number[], bSymbol: string): number {
    const sort = this.sort;
    for (let k = 0; k < sort.length; k++) {
      const x = a[k]!;
      const y = b[k]!;
      // NaN sorts last whatever the direction (decisions §1). ±Infinity (a division by
      // zero) goes with it: it prints as null like NaN, and a null at the top of a
      // descending sort would bury every real value beneath an undefined one.
      const xn = !Number.isFinite(x);
      const yn = !Number.isFinite(y);
      if (xn || yn) {
        if (xn && yn) continue;
        return xn ? 1 : -1;
      }
      if (x !== y) return sort[k]!.descending ? y - x : x - y;
    }
    return aSymbol < bSymbol ? -1 : aSymbol > bSymbol ? 1 : 0;
  }

  run(universe: Iterable<Instrument>): RunResult {
    return drain(this.runSteps(universe));
  }

  /** `run`, one instrument per step: `runAsync` yields to the event loop between steps. */
  *runSteps(universe: Iterable<Instrument>): Generator<undefined, RunResult, undefined> {
    const rows: RankedRow[] = [];
    let instruments = 0;
    let shortHistory = 0;
    let noData = 0;
    let asOf = -Infinity;
    for (const instrument of universe) {
      instruments++;
      // No data first: an instrument lacking any bar on a needed source is noData, whatever
      // the other sources hold (decisions §2 meta), and never shortHistory.
      if (!this.attach(instrument)) {
        noData++;
        continue;
      }
      const base = this.frames[0]!;
      if (!this.alignAt(base.length - 1)) {
        shortHistory++;
        continue;
      }
      const latest = base.bars.time[base.length - 1]!;
      if (latest > asOf) asOf = latest;
      if (this.latest(this.condition) === 1) rows.push(this.row(instrument.symbol));
      yield;
    }
    const matched = rows.length;
    return {
      results: this.rank(rows).map((r) => r.row),
      meta: { instruments, matched, skipped: { shortHistory, noData }, asOf: asOf === -Infinity ? null : isoTime(asOf) },
    };
  }

  /**
   * The screen at each of the last `bars` distinct base bar times of the universe, as if that bar
   * were the latest (decisions §5), in one pass per instrument.
   *
   * Why this equals `run` over bars truncated after t, bit for bit: every value the evaluator
   * computes at a bar is a function of the bars up to that bar alone, never of the range asked
   * (recursive kernels stream from the first bar; windowed kernels run over fixed blocks, see
   * `values`; everything else is per bar), and alignment takes at each bar the last coarser bar
   * closed by its close. So the condition, columns and sort keys are computed once over the
   * window with every frame at its latest end, and read at each window bar; a window bar where a
   * truncated run would have too little history for a source is skipped, as run skips it.
   */
  history(universe: Iterable<Instrument>, bars: number, maxBytes = Infinity): HistoryScan {
    return drain(this.historySteps(universe, bars, maxBytes));
  }

  /**
   * `history`, one instrument per step: `historyAsync` yields to the event loop between steps.
   * With `maxBytes`, the JSON of the matches kept is counted as they are built, and the pass
   * stops with a plan error as soon as it exceeds that: an answer too large is never built.
   */
  *historySteps(universe: Iterable<Instrument>, bars: number, maxBytes = Infinity): Generator<undefined, HistoryScan, undefined> {
    const instruments = [...universe];
    const base = this.planned.baseTimeframe;
    const window = windowTimes(instruments, base, bars);
    const perBar: HistoryHit[][] = window.map(() => []);
    const limit = this.query.limit;
    const keys = new Array<number>(this.sort.length).fill(0);
    let noData = 0;
    let shortHistory = 0;
    let matched = 0;
    const size = Number.isFinite(maxBytes) ? new ColumnsSize(this.columns.map((c) => c.text)) : undefined;
    // JSON.stringify(matches): the brackets, and a comma after every match but the last.
    let bytes = 1;
    for (const instrument of instruments) {
      if (!this.attach(instrument)) {
        noData++;
        continue;
      }
      const frame = this.frames[0]!;
      const time = frame.bars.time;
      const length = frame.length;
      // The instrument's bars inside the window are a suffix of its bars (times increase, and
      // every time of the universe at or after the window's first is in the window).
      const first = lowerBound(time, length, window.length > 0 ? window[0]! : Infinity);
      // Bars, but none inside the window: nothing to evaluate, so no data for this screen.
      if (first === length) {
        noData++;
        continue;
      }
      // Window bars where every source has its minLookback, as a truncated run requires.
      let from = first;
      while (from < length && !this.enoughAt(from)) from++;
      if (from === length) {
        shortHistory++;
        continue;
      }
      this.alignAt(length - 1);
      const condition = this.values(this.condition, from, length);
      let rowsFrom = -1;
      // Where bar t sits in the window: walked forward with t, no lookup per bar.
      let w = lowerBound(window, window.length, Number(time[from]));
      for (let t = from; t < length; t++) {
        if (condition[t] !== 1) continue;
        const bt = Number(time[t]);
        while (window[w]! < bt) w++;
        if (rowsFrom < 0) {
          // Columns and sort keys over the rest of the window at once, then read per bar.
          rowsFrom = t;
          for (const c of this.columns) this.values(c.slot, t, length);
          for (const k of this.sort) this.values(k.slot, t, length);
        }
        matched++;
        const kept = perBar[w]!;
        if (limit !== undefined && kept.length >= limit) {
          // The bar's list is full: a row is built only if it beats the last one kept.
          for (let k = 0; k < keys.length; k++) keys[k] = this.values(this.sort[k]!.slot, t, t + 1)[t]!;
          const last = kept[kept.length - 1]!.ranked;
          if (this.order(keys, instrument.symbol, last.keys, last.row.symbol) >= 0) continue;
          bytes -= kept.pop()!.bytes;
        }
        const ranked = this.rowAt(instrument.symbol, t);
        const hit: HistoryHit = { ranked, close: frame.bars.close, index: t, length, bytes: size ? matchBytes(bt, instrument.symbol, size.bytes(ranked.row.columns)) : 0 };
        bytes += hit.bytes;
        if (bytes > maxBytes) throw responseTooLarge(maxBytes);
        if (limit === undefined) kept.push(hit);
        else kept.splice(this.insertionPoint(kept, hit.ranked), 0, hit);
      }
      yield;
    }
    // Sort and limit decided which rows match at each bar; they are listed by symbol.
    for (const kept of perBar) kept.sort((a, b) => bySymbol(a.ranked.row, b.ranked.row));
    return { window, perBar, instruments: instruments.length, noData, shortHistory, matched };
  }

  /** True when, with base bar `t` the latest, every source has at least its minLookback bars. */
  private enoughAt(t: number): boolean {
    const sources = this.planned.plan.sources;
    if (t + 1 < sources[0]!.minLookback) return false;
    const base = this.frames[0]!;
    const close = alignmentCut(base.bars.time[t]!, base.duration);
    for (let i = 1; i < sources.length; i++) {
      const source = sources[i]!;
      const frame = this.frames[i]!;
      if (lastClosedIndex(frame.bars.time, frame.length, frame.duration, close) + 1 < source.minLookback) return false;
    }
    return true;
  }

  /** The row at base bar `t`: columns and sort keys (computed there if not yet). */
  private rowAt(symbol: string, t: number): RankedRow {
    // No prototype: a column written `__proto__` is a key like any other, not the object's prototype.
    const columns: Record<string, number | null> = Object.create(null);
    for (const c of this.columns) {
      const v = this.values(c.slot, t, t + 1)[t]!;
      columns[c.text] = Number.isFinite(v) ? v : null;
    }
    return { row: { symbol, columns }, keys: this.sort.map((s) => this.values(s.slot, t, t + 1)[t]!) };
  }

  /** Where `row` goes in `kept`, which is in the query's order. */
  private insertionPoint(kept: readonly HistoryHit[], row: RankedRow): number {
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const other = kept[mid]!.ranked;
      if (this.order(other.keys, other.row.symbol, row.keys, row.row.symbol) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

interface RankedRow {
  row: ResultRow;
  keys: number[];
}

/** One match of `history` before statistics: the row and where its base bar is. */
export interface HistoryHit {
  readonly ranked: RankedRow;
  /** The instrument's base closes, for forward returns. */
  readonly close: ArrayLike<number>;
  readonly index: number;
  readonly length: number;
  /** Bytes of the match's JSON (with its comma), when the pass counts them; else 0. */
  readonly bytes: number;
}

/** What one `history` pass found, before forward statistics. */
export interface HistoryScan {
  /** The window's base bar open times, oldest first. */
  readonly window: readonly number[];
  /** Matches at each window bar, by symbol. */
  readonly perBar: readonly (readonly HistoryHit[])[];
  readonly instruments: number;
  readonly noData: number;
  readonly shortHistory: number;
  /** Matches over the window before limit. */
  readonly matched: number;
}

function bySymbol(a: ResultRow, b: ResultRow): number {
  return a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;
}

/** The first index i < length with a[i] >= x (length when none), a ascending. */
function lowerBound(a: ArrayLike<number>, length: number, x: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (Number(a[mid]) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The last `bars` distinct base bar open times over the universe, oldest first. The window so
 * far is kept as an ascending list; each instrument's newest `bars` times are merged into it
 * from the newest back. Instruments usually share their times, so the common case is a
 * sequential comparison that finds nothing new, with no hashing and no allocation.
 */
function windowTimes(instruments: readonly Instrument[], base: Timeframe, bars: number): number[] {
  let merged: number[] = [];
  for (const instrument of instruments) {
    const time = instrument.bars[base]?.time;
    if (!time) continue;
    const n = time.length;
    const k = Math.min(n, bars);
    const m = merged.length;
    if (k <= m) {
      // Nothing new when the instrument's newest times are the window's newest.
      let j = 1;
      while (j <= k && Number(time[n - j]) === merged[m - j]) j++;
      if (j > k) continue;
    }
    const out: number[] = [];
    let i = m - 1;
    let j = n - 1;
    const lo = n - k;
    // Merge from the newest back. Every step consumes at least one time, so times that are
    // not increasing (rejected later by `checkBars`) cannot stall it.
    while (out.length < bars && (i >= 0 || j >= lo)) {
      if (j < lo) out.push(merged[i--]!);
      else if (i < 0) out.push(Number(time[j--]));
      else {
        const a = merged[i]!;
        const b = Number(time[j]);
        if (a > b) out.push(merged[i--]!);
        else {
          out.push(b);
          j--;
          if (a === b) i--;
        }
      }
    }
    merged = out.reverse();
  }
  return merged;
}

/**
 * Windowed kernels run over whole blocks of this many bars, each primed afresh (see `values`).
 * Small enough that a run's latest bar costs little more than its window; large enough that
 * history over a few hundred bars primes few windows.
 */
const BLOCK = 64;

/** A call whose kernel's values could depend on the range it is asked for. */
function isBlocked(node: IrNode): boolean {
  return node.op === "call" && !node.fn.recursive && node.fn.rangeIndependent !== true;
}

/** Validates the bars a source reads (`series`: its raw columns); returns the bar count. */
function checkBars(symbol: string, timeframe: Timeframe, bars: Bars, series: readonly RawSeries[]): number {
  const time = bars.time;
  if (!time || typeof time.length !== "number") {
    throw new XqlDataError(`Instrument '${symbol}', timeframe ${timeframe}: bars have no time column`);
  }
  const length = time.length;
  for (let k = 0; k < series.length; k++) {
    const name = series[k]!;
    const column = bars[name];
    if (!column || column.length !== length) {
      throw new XqlDataError(
        `Instrument '${symbol}', timeframe ${timeframe}: column '${name}' has ${column ? column.length : "no"} values for ${length} bars`,
      );
    }
  }
  let previous = -Infinity;
  for (let i = 0; i < length; i++) {
    const t = time[i]!;
    if (!(t > previous)) {
      throw new XqlDataError(
        `Instrument '${symbol}', timeframe ${timeframe}: bar times must be finite and strictly increasing, oldest first (time[${i}] = ${t} after ${previous})`,
      );
    }
    previous = t;
  }
  if (length > 0 && !Number.isFinite(time[length - 1]!)) {
    throw new XqlDataError(`Instrument '${symbol}', timeframe ${timeframe}: bar time ${time[length - 1]} is not finite`);
  }
  return length;
}

/** A compiled query's evaluation entry points. */
export interface Runner {
  run(universe: Iterable<Instrument>): RunResult;
  /** With `maxBytes`: a plan error once the matches' JSON exceeds it (see `historySteps`). */
  history(universe: Iterable<Instrument>, bars: number, maxBytes?: number): HistoryScan;
  /** `run`, yielding to the event loop every `sliceMs` of work (through `turn`, default the next turn of the loop). */
  runAsync(universe: Iterable<Instrument>, sliceMs: number, turn?: () => Promise<void>): Promise<RunResult>;
  /** `history`, yielding to the event loop every `sliceMs` of work (through `turn`). */
  historyAsync(universe: Iterable<Instrument>, bars: number, sliceMs: number, maxBytes?: number, turn?: () => Promise<void>): Promise<HistoryScan>;
  /** Bytes of the buffers kept between runs (by the idle program), for caches that weigh what they hold. */
  retainedBytes(): number;
}

/** Compiles a planned query into a reusable runner over universes of instruments. */
export function createRunner(checked: CheckedQuery, planned: Planned): Runner {
  // One program per runner; a program is not re-entrant, so runs that overlap (an async one
  // waiting on the event loop, say) get their own.
  let idle: Program | undefined = new Program(checked, planned);
  const take = (): Program => {
    const program = idle ?? new Program(checked, planned);
    idle = undefined;
    return program;
  };
  const using = <T>(f: (program: Program) => T): T => {
    const program = take();
    try {
      return f(program);
    } finally {
      idle = program;
    }
  };
  const usingAsync = async <T>(f: (program: Program) => Promise<T>): Promise<T> => {
    const program = take();
    try {
      return await f(program);
    } finally {
      idle = program;
    }
  };
  return {
    run: (universe) => using((p) => p.run(universe)),
    history: (universe, bars, maxBytes) => using((p) => p.history(universe, bars, maxBytes)),
    runAsync: (universe, sliceMs, turn) => usingAsync((p) => drainAsync(p.runSteps(universe), sliceMs, turn)),
    historyAsync: (universe, bars, sliceMs, maxBytes, turn) =>
      usingAsync((p) => drainAsync(p.historySteps(universe, bars, maxBytes), sliceMs, turn)),
    retainedBytes: () => idle?.retainedBytes() ?? 0,
  };
}

/**
 * A turn of the event loop: `setImmediate` in Node (after pending I/O, without a timer's
 * minimum delay), a zero timeout where it does not exist (the browser's playground).
 */
const nextTurn: (callback: () => void) => void =
  (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate ?? ((callback) => setTimeout(callback, 0));

/** Runs every step at once. */
function drain<T>(steps: Generator<undefined, T, undefined>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs the steps, giving the event loop a turn (setImmediate) whenever `sliceMs` have passed
 * since the last: a server stays responsive to other callers during a long run, and the
 * result is the same as {@link drain}'s.
 */
async function drainAsync<T>(steps: Generator<undefined, T, undefined>, sliceMs: number, turn = loopTurn): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await turn();
      since = performance.now();
    }
  }
}

/** The next turn of the event loop, for any caller. */
function loopTurn(): Promise<void> {
  return new Promise<void>((resolve) => nextTurn(resolve));
}

/** ISO 8601 of a bar time; a time outside Date's range reads as null rather than throwing. */
function isoTime(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
