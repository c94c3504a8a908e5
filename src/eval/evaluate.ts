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
import { lastClosedIndex } from "./align.js";

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

/** Per-instrument view of one timeframe's bars. */
interface Frame {
  readonly timeframe: Timeframe;
  readonly bars: Bars;
  readonly length: number;
  /** Index of the latest bar that counts at the latest base bar (aligned end). */
  readonly end: number;
}

const RAW_FIELDS: readonly RawSeries[] = ["open", "high", "low", "close", "volume"];

class Slot {
  private scratchBuffers: Float64Array[] = [];
  private ctx: KernelContext | undefined;

  /** What a kernel may know beyond its inputs; scratch buffers live as long as the slot. */
  context(timeframe: Timeframe): KernelContext {
    return (this.ctx ??= {
      timeframeMs: TIMEFRAME_MS[timeframe],
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
const compare: Record<CompareOperator, (a: number, b: number) => boolean> = {
  "<": (a, b) => a < b && a - a === 0 && b - b === 0,
  "<=": (a, b) => a <= b && a - a === 0 && b - b === 0,
  ">": (a, b) => a > b && a - a === 0 && b - b === 0,
  ">=": (a, b) => a >= b && a - a === 0 && b - b === 0,
  "==": (a, b) => a === b && a - a === 0,
  "!=": (a, b) => a !== b && a - a === 0 && b - b === 0,
};

class Program {
  private readonly slots = new Map<string, Slot>();
  private readonly frames = new Map<Timeframe, Frame>();
  private epoch = 0;
  /** Open time of the latest base bar of the instrument last loaded. */
  private latestBaseTime = -Infinity;
  readonly condition: Slot;
  readonly columns: { text: string; slot: Slot }[];
  readonly sort: { slot: Slot; descending: boolean }[];

  constructor(
    private readonly checked: CheckedQuery,
    private readonly planned: Planned,
  ) {
    const base = planned.baseTimeframe;
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

  /**
   * Prepares the frames of one instrument. Returns false when it lacks a timeframe or the bars
   * a source needs (it then does not match and is not reported).
   */
  private load(instrument: Instrument): LoadOutcome {
    this.epoch++;
    this.frames.clear();
    const sources = this.planned.plan.sources;
    // No data first: an instrument lacking any bar on a needed source is noData, whatever
    // the other sources hold (decisions §2 meta), and is never shortHistory.
    const lengths: number[] = [];
    for (const source of sources) {
      const bars = instrument.bars[source.timeframe];
      if (!bars) return "noData";
      const length = checkBars(instrument.symbol, source.timeframe, bars, source.series);
      if (length === 0) return "noData";
      lengths.push(length);
    }
    const base = sources[0]!;
    const baseBars = instrument.bars[base.timeframe]!;
    const baseLength = lengths[0]!;
    if (baseLength < base.minLookback) return "shortHistory";
    const baseEnd = baseLength - 1;
    this.frames.set(base.timeframe, { timeframe: base.timeframe, bars: baseBars, length: baseLength, end: baseEnd });
    const baseClose = baseBars.time[baseEnd]! + TIMEFRAME_MS[base.timeframe];
    for (let i = 1; i < sources.length; i++) {
      const source = sources[i]!;
      const bars = instrument.bars[source.timeframe]!;
      const length = lengths[i]!;
      const end = lastClosedIndex(bars.time, length, TIMEFRAME_MS[source.timeframe], baseClose);
      // minLookback counts aligned bars: those closed by the latest base bar's close.
      if (end + 1 < source.minLookback) return "shortHistory";
      this.frames.set(source.timeframe, { timeframe: source.timeframe, bars, length, end });
    }
    this.latestBaseTime = baseBars.time[baseEnd]!;
    return "ok";
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
    const frame = this.frames.get(slot.timeframe)!;
    if (slot.history > 0) from = Math.max(0, Math.min(from, frame.end - slot.history));
    if (slot.buffer.length < frame.length) slot.buffer = new Float64Array(Math.max(frame.length, slot.buffer.length * 2));
    slot.view = undefined;
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
        const extra = fn.extraLookback(node.consts);
        const inputFrom = fn.recursive ? 0 : from - extra;
        const inputs: Float64Array[] = slot.children.map((c) => this.values(c, inputFrom, to));
        for (const raw of fn.implicit) inputs.push(this.raw(frame, raw, inputFrom, to));
        (fn.kernel as Kernel)(inputs, node.consts, out, from, to, slot.context(frame.timeframe));
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
        const f = compare[node.operator];
        for (let i = from; i < to; i++) out[i] = f(a[i]!, b[i]!) ? 1 : 0;
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
        const inner = this.frames.get(node.timeframe)!;
        const child = slot.children[0]!;
        const fill = fillType(node);
        const duration = TIMEFRAME_MS[frame.timeframe];
        const innerDuration = TIMEFRAME_MS[node.timeframe];
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
    }
  }

  /** A raw column as Float64Array on [from, to): the caller's array when it already is one. */
  private raw(frame: Frame, name: RawSeries | "time", from: number, to: number): Float64Array {
    const column = frame.bars[name];
    if (column instanceof Float64Array) return column;
    // Other array types are copied once per instrument into a slot of their own.
    const key = `raw:${name}`;
    let s = this.slots.get(`${key}@${frame.timeframe}`);
    if (!s) {
      s = new Slot({ id: -1, op: "number", type: "number", value: 0 }, frame.timeframe);
      this.slots.set(`${key}@${frame.timeframe}`, s);
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
    const spine: Slot[] = [];
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
      }
      left = out;
    }
  }

  /** Marks an inner spine slot as computed on [from, to) and returns its buffer to write. */
  private prepare(slot: Slot, from: number, to: number): Float64Array {
    const frame = this.frames.get(slot.timeframe)!;
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
    const end = this.frames.get(slot.timeframe)!.end;
    return this.values(slot, end, end + 1)[end]!;
  }

  run(universe: Iterable<Instrument>): RunResult {
    const rows: { row: ResultRow; keys: number[] }[] = [];
    let instruments = 0;
    let shortHistory = 0;
    let noData = 0;
    let asOf = -Infinity;
    for (const instrument of universe) {
      instruments++;
      const outcome = this.load(instrument);
      if (outcome !== "ok") {
        if (outcome === "noData") noData++;
        else shortHistory++;
        continue;
      }
      if (this.latestBaseTime > asOf) asOf = this.latestBaseTime;
      if (this.latest(this.condition) !== 1) continue;
      const columns: Record<string, number | null> = {};
      for (const c of this.columns) {
        const v = this.latest(c.slot);
        columns[c.text] = Number.isFinite(v) ? v : null;
      }
      rows.push({ row: { symbol: instrument.symbol, columns }, keys: this.sort.map((s) => this.latest(s.slot)) });
    }
    const sort = this.sort;
    rows.sort((a, b) => {
      for (let k = 0; k < sort.length; k++) {
        const x = a.keys[k]!;
        const y = b.keys[k]!;
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
      return a.row.symbol < b.row.symbol ? -1 : a.row.symbol > b.row.symbol ? 1 : 0;
    });
    const limit = this.checked.limit;
    const kept = limit === undefined ? rows : rows.slice(0, limit);
    return {
      results: kept.map((r) => r.row),
      meta: {
        instruments,
        matched: rows.length,
        skipped: { shortHistory, noData },
        asOf: asOf === -Infinity ? null : isoTime(asOf),
      },
    };
  }
}

/** Why {@link Program.load} did or did not prepare an instrument. */
type LoadOutcome = "ok" | "noData" | "shortHistory";

/** ISO 8601 of a bar time; a time outside Date's range still reads as a number rather than throwing. */
function isoTime(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Validates the bars a source reads; returns the bar count. */
function checkBars(symbol: string, timeframe: Timeframe, bars: Bars, series: readonly RawSeries[]): number {
  const time = bars.time;
  if (!time || typeof time.length !== "number") {
    throw new XqlDataError(`Instrument '${symbol}', timeframe ${timeframe}: bars have no time column`);
  }
  const length = time.length;
  for (const name of RAW_FIELDS) {
    if (!series.includes(name)) continue;
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

/** Compiles a planned query into a reusable runner over universes of instruments. */
export function createRunner(checked: CheckedQuery, planned: Planned): (universe: Iterable<Instrument>) => RunResult {
  // One program per runner; a runner is not re-entrant, so concurrent runs get their own.
  let idle: Program | undefined = new Program(checked, planned);
  return (universe) => {
    const program = idle ?? new Program(checked, planned);
    idle = undefined;
    try {
      return program.run(universe);
    } finally {
      idle = program;
    }
  };
}
