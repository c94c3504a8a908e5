/**
 * Computing a slot's values over a range of bars of its timeframe, for the instrument the
 * program's frames point at. Each slot computes only the range asked of it (usually just the
 * latest bar; more where offsets, crossovers or windows need history) and remembers it for
 * the instrument, so a shared subexpression is computed once. `and`/`or` evaluate their
 * cheapest operands first and only at the bars still undecided.
 *
 * Every value computed at a bar is a function of the bars up to that bar alone, never of the
 * range asked: recursive kernels stream from the first bar, windowed kernels run over primed
 * blocks (`PRIMED_BLOCK_BARS`), everything else is per bar. History relies on it.
 */
import type { ArithmeticOperator, CompareOperator, IrNode } from "../check/ir.js";
import type { Kernel } from "../functions/kernel.js";
import type { SeriesSpec } from "../functions/registry.js";
import { assertNever } from "../errors.js";
import type { Bars } from "../types.js";
import { lastClosedIndex } from "../alignment.js";
import { COLUMN_INDEX, type Column, type Frame } from "./bars.js";
import { EMPTY, PRIMED_BLOCK_BARS, type Program, type Slot } from "./program.js";

/**
 * Thrown (and caught by the carried pass, history.ts) when a restored pass would need a value
 * from before the tails it was given back: the pass is then evaluated afresh from its anchor.
 * Never seen outside the evaluator.
 */
export const CARRY_MISS: unique symbol = Symbol("carry miss");

/** Values of `slot` valid at least on [from, to) of its timeframe. */
export function values(program: Program, slot: Slot, from: number, to: number): Float64Array {
  if (from < 0) from = 0;
  if (slot.epoch === program.epoch && slot.hi > slot.lo) {
    const lo = slot.lo;
    const hi = slot.hi;
    if (from >= lo && to <= hi) return slot.view ?? slot.buffer;
    if (from <= hi && to >= lo) {
      // Overlapping what is already computed: compute only the bars missing on either side.
      // Each value is a function of the bars alone (see below), so the parts join exactly.
      const start = from < lo ? computeRange(program, slot, from, lo) : lo;
      if (to > hi) computeRange(program, slot, hi, to);
      slot.lo = Math.min(start, lo);
      slot.hi = Math.max(to, hi);
      return slot.view ?? slot.buffer;
    }
    // Apart from it: compute the union, so the values computed earlier stay valid.
    from = Math.min(from, lo);
    to = Math.max(to, hi);
  }
  computeRange(program, slot, from, to);
  return slot.view ?? slot.buffer;
}

/**
 * Computes `slot` on at least [from, to), records that as the slot's range for this instrument
 * and returns where the computed range starts.
 */
function computeRange(program: Program, slot: Slot, from: number, to: number): number {
  const frame = slot.frame;
  // A restored pass holds only the slots' tails: what lies before them was not given back
  // (every computation, of a range apart or of the bars missing on either side, starts here).
  if (program.restored && from < slot.floor) throw CARRY_MISS;
  // A carried kernel state positioned at `from` takes the range in steps from there.
  const resuming = resumesAt(program, slot, from, to);
  // A recursive kernel streams from the first bar whatever it writes: the bars its consumers
  // read before the asked range (the plan's `needs`) cost only their writes, so take them now.
  if (slot.history > 0 && !resuming) from = Math.max(0, Math.min(from, frame.end) - slot.history);
  if (slot.buffer.length < frame.length) slot.buffer = new Float64Array(Math.max(frame.length, slot.buffer.length * 2));
  slot.view = undefined;
  // A windowed kernel starts its running sums where its range starts, so its rounding would
  // depend on the range asked. It is always run over whole blocks instead, each block primed
  // afresh: a value is then a function of the bars alone, the same whichever consumer asks and
  // whatever else the query needs (history relies on it). A carried state resumes its block.
  if (slot.blocked && !resuming) from -= from % PRIMED_BLOCK_BARS;
  if (to > from) compute(program, slot, frame, from, to);
  slot.epoch = program.epoch;
  slot.lo = from;
  slot.hi = to;
  return from;
}

/**
 * The kernel state a computation of `slot` up to `to` is given: the slot's while the program
 * carries, except for a computation that ends before what the slot holds (a consumer reading
 * further back), which leaves the state where it is, at the slot's last bar.
 */
function carriedState(program: Program, slot: Slot, to: number): Float64Array | undefined {
  if (!program.carrying || (slot.epoch === program.epoch && to < slot.hi)) return undefined;
  return slot.state;
}

/**
 * Whether the slot's carried kernel state takes a computation starting at `from` in steps: it
 * is positioned there, and (for a kernel run in primed blocks) `from` is not a block start,
 * where the batch primes the window afresh.
 */
function resumesAt(program: Program, slot: Slot, from: number, to: number): boolean {
  const state = carriedState(program, slot, to);
  return state !== undefined && state[0] === from && !(slot.blocked && from % PRIMED_BLOCK_BARS === 0);
}

/** Value of a base-timeframe slot at the frame's end (the base bar being evaluated). */
export function valueAtEnd(program: Program, slot: Slot): number {
  const end = slot.frame.end;
  return values(program, slot, end, end + 1)[end]!;
}

/** What an offset or another timeframe gives where there is no value: false for a condition, else NaN. */
export function fillType(node: IrNode): number {
  return node.type === "boolean" ? 0 : NaN;
}

function compute(program: Program, slot: Slot, frame: Frame, from: number, to: number): void {
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
      series(program, slot, node.series.combine, frame, from, to);
      return;
    case "call": {
      const fn = node.fn;
      // While carrying, a resumable kernel is given its state: resumed when positioned at
      // `from` (then it reads its inputs from `from − extraLookback` only), else it computes as
      // without one and leaves the state positioned at `to` (module.ts, `Kernel`).
      const state = carriedState(program, slot, to);
      const resuming = resumesAt(program, slot, from, to);
      // A restored pass has no inputs before the tails: a recursion that cannot resume would stream garbage.
      if (program.restored && fn.recursive && !resuming) throw CARRY_MISS;
      const inputFrom = fn.recursive && !resuming ? 0 : from - slot.extra;
      const inputs = slot.inputs;
      const children = slot.children;
      for (let k = 0; k < children.length; k++) inputs[k] = values(program, children[k]!, inputFrom, to);
      const implicit = slot.columnIndices;
      for (let k = 0; k < implicit.length; k++) inputs[children.length + k] = raw(program, frame, implicit[k]!, inputFrom, to);
      const ctx = slot.context(frame.timeframe, program.market);
      if (!slot.blocked) {
        (fn.kernel as Kernel)(inputs, node.consts, out, from, to, ctx, state);
        return;
      }
      // `from` is a block start (see `values`), or where a carried state resumes inside its
      // block: one kernel call per block, each block primed afresh (a fresh state), as the
      // stepper does (functions/stepper.ts).
      for (let start = from; start < to; ) {
        const end = Math.min(start - (start % PRIMED_BLOCK_BARS) + PRIMED_BLOCK_BARS, to);
        if (state !== undefined && !(resuming && start === from)) state.fill(NaN);
        (fn.kernel as Kernel)(inputs, node.consts, out, start, end, ctx, state);
        start = end;
      }
      return;
    }
    case "negate": {
      negateInto(values(program, slot.children[0]!, from, to), out, from, to);
      return;
    }
    case "not": {
      notInto(values(program, slot.children[0]!, from, to), out, from, to);
      return;
    }
    case "compare": {
      const a = values(program, slot.children[0]!, from, to);
      const b = values(program, slot.children[1]!, from, to);
      compareInto(node.operator, a, b, out, from, to);
      return;
    }
    case "arithmetic":
      arithmetic(program, slot, from, to);
      return;
    case "and":
    case "or":
      logical(program, slot, node.op === "and", from, to);
      return;
    case "history": {
      const k = node.offset;
      const fill = fillType(node);
      const a = to - k > Math.max(0, from - k) ? values(program, slot.children[0]!, from - k, to - k) : undefined;
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
      const a = last >= 0 ? values(program, child, Math.max(first, 0), last + 1) : undefined;
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

/** Comparison operators as small numbers, for {@link holds}. */
const LT = 0;
const LE = 1;
const GT = 2;
const GE = 3;
const EQ = 4;
const NE = 5;
const OPERATOR_CODE: Readonly<Record<CompareOperator, number>> = { "<": LT, "<=": LE, ">": GT, ">=": GE, "==": EQ, "!=": NE };

/**
 * Whether `x op y` holds, the one definition of a comparison. Decisions §1: division by zero and
 * other non-finite values make comparisons false, so an operand that is NaN or ±Infinity (x − x
 * is 0 only for finite x) fails every operator, != included.
 */
function holds(op: number, x: number, y: number): boolean {
  switch (op) {
    case LT:
      return x < y && x - x === 0 && y - y === 0;
    case LE:
      return x <= y && x - x === 0 && y - y === 0;
    case GT:
      return x > y && x - x === 0 && y - y === 0;
    case GE:
      return x >= y && x - x === 0 && y - y === 0;
    case EQ:
      return x === y && x - x === 0;
    default:
      return x !== y && x - x === 0 && y - y === 0;
  }
}

// One loop per operator, so that the comparison is inlined with its operator known.
export function compareInto(op: CompareOperator, a: Float64Array, b: Float64Array, out: Float64Array, from: number, to: number): void {
  switch (op) {
    case "<":
      for (let i = from; i < to; i++) out[i] = holds(LT, a[i]!, b[i]!) ? 1 : 0;
      return;
    case "<=":
      for (let i = from; i < to; i++) out[i] = holds(LE, a[i]!, b[i]!) ? 1 : 0;
      return;
    case ">":
      for (let i = from; i < to; i++) out[i] = holds(GT, a[i]!, b[i]!) ? 1 : 0;
      return;
    case ">=":
      for (let i = from; i < to; i++) out[i] = holds(GE, a[i]!, b[i]!) ? 1 : 0;
      return;
    case "==":
      for (let i = from; i < to; i++) out[i] = holds(EQ, a[i]!, b[i]!) ? 1 : 0;
      return;
    case "!=":
      for (let i = from; i < to; i++) out[i] = holds(NE, a[i]!, b[i]!) ? 1 : 0;
      return;
    default:
      assertNever(op, "comparison operator");
  }
}

/** Column `index` (`COLUMN_INDEX`) as Float64Array on [from, to): the caller's array when it already is one. */
function raw(program: Program, frame: Frame, index: number, from: number, to: number): Float64Array {
  const float = frame.float[index];
  if (float !== undefined) return float;
  // Other array types are copied once per instrument into a buffer of their own.
  const column = columnOf(frame.bars, index);
  let copy = frame.copies[index];
  if (!copy) frame.copies[index] = copy = { buffer: new Float64Array(0), epoch: -1, lo: 0, hi: 0 };
  if (copy.epoch !== program.epoch || from < copy.lo || to > copy.hi) {
    if (copy.buffer.length < frame.length) copy.buffer = new Float64Array(Math.max(frame.length, copy.buffer.length * 2));
    const lo = Math.max(0, from);
    for (let i = lo; i < to; i++) copy.buffer[i] = Number(column[i]);
    copy.epoch = program.epoch;
    copy.lo = lo;
    copy.hi = to;
  }
  return copy.buffer;
}

function columnOf(bars: Bars, index: number): ArrayLike<number> {
  return bars[COLUMNS[index]!];
}

const COLUMNS = Object.keys(COLUMN_INDEX) as Column[];

/** A series: a raw column read in place, or a derived one combined from its raw columns. */
function series(program: Program, slot: Slot, combine: SeriesSpec["combine"], frame: Frame, from: number, to: number): void {
  const indices = slot.columnIndices;
  if (combine === undefined) {
    const float = frame.float[indices[0]!];
    if (float !== undefined && float.length === frame.length) {
      slot.view = float;
      return;
    }
    const out = slot.buffer;
    const column = columnOf(frame.bars, indices[0]!);
    for (let i = from; i < to; i++) out[i] = Number(column[i]);
    return;
  }
  const columns = (slot.columns ??= indices.map(() => EMPTY));
  for (let j = 0; j < indices.length; j++) columns[j] = raw(program, frame, indices[j]!, from, to);
  combine(columns, slot.buffer, from, to);
}

/** `a + b - c ...`: fold the left spine bottom-up so long chains cost no call depth. */
function arithmetic(program: Program, slot: Slot, from: number, to: number): void {
  const spine = slot.spine;
  spine.length = 0;
  let s: Slot = slot;
  while (s.node.op === "arithmetic" && (s === slot || !(s.epoch === program.epoch && from >= s.lo && to <= s.hi))) {
    spine.push(s);
    s = s.children[0]!;
  }
  let left = values(program, s, from, to);
  for (let k = spine.length - 1; k >= 0; k--) {
    const node = spine[k]!;
    const op = (node.node as Extract<IrNode, { op: "arithmetic" }>).operator;
    const right = values(program, node.children[1]!, from, to);
    const out = node === slot ? slot.buffer : prepare(program, node, from, to);
    arithmeticInto(op, left, right, out, from, to);
    left = out;
  }
}

/** `a op b` on [from, to): one loop per operator, so the operation is inlined rather than called per bar. */
export function arithmeticInto(op: ArithmeticOperator, left: Float64Array, right: Float64Array, out: Float64Array, from: number, to: number): void {
  switch (op) {
    case "+":
      for (let i = from; i < to; i++) out[i] = left[i]! + right[i]!;
      return;
    case "-":
      for (let i = from; i < to; i++) out[i] = left[i]! - right[i]!;
      return;
    case "*":
      for (let i = from; i < to; i++) out[i] = left[i]! * right[i]!;
      return;
    case "/":
      for (let i = from; i < to; i++) out[i] = left[i]! / right[i]!;
      return;
    default:
      assertNever(op, "arithmetic operator");
  }
}

/** `-a` on [from, to). */
export function negateInto(a: Float64Array, out: Float64Array, from: number, to: number): void {
  for (let i = from; i < to; i++) out[i] = -a[i]!;
}

/** `not a` on [from, to): a condition is 1 or 0, and `not` of anything but 1 is 1. */
export function notInto(a: Float64Array, out: Float64Array, from: number, to: number): void {
  for (let i = from; i < to; i++) out[i] = a[i] === 1 ? 0 : 1;
}

/** Marks an inner spine slot as computed on [from, to) and returns its buffer to write. */
function prepare(program: Program, slot: Slot, from: number, to: number): Float64Array {
  const frame = slot.frame;
  if (slot.buffer.length < frame.length) slot.buffer = new Float64Array(Math.max(frame.length, slot.buffer.length * 2));
  slot.view = undefined;
  slot.epoch = program.epoch;
  slot.lo = from;
  slot.hi = to;
  return slot.buffer;
}

/** `and`/`or` with short-circuit: each operand is asked only for the bars still undecided. */
function logical(program: Program, slot: Slot, isAnd: boolean, from: number, to: number): void {
  // A carried pass keeps every operand at every bar, so that the next bar is one step of each.
  if (program.carrying) for (const operand of slot.ordered) values(program, operand, from, to);
  const out = slot.buffer;
  const decided = isAnd ? 0 : 1;
  out.fill(isAnd ? 1 : 0, from, to);
  // The bars still undecided, in order, once an operand has decided some: each operand after the
  // first reads only those (over a history's window, a few of every range's bars).
  const undecided = slot.context(slot.frame.timeframe, program.market).scratch(0, to - from);
  let n = -1;
  let lo = from;
  let hi = to;
  for (const operand of slot.ordered) {
    let m = 0;
    const node = operand.node;
    if (node.op === "compare" && !(operand.epoch === program.epoch && lo >= operand.lo && hi <= operand.hi)) {
      // A comparison not computed here is decided in place: writing it at every bar of the
      // range to read it back at the undecided ones cost more than the comparisons themselves.
      const a = values(program, operand.children[0]!, lo, hi);
      const b = values(program, operand.children[1]!, lo, hi);
      const op = OPERATOR_CODE[node.operator];
      if (n < 0) {
        for (let i = lo; i < hi; i++) {
          if (holds(op, a[i]!, b[i]!) !== isAnd) out[i] = decided;
          else undecided[m++] = i;
        }
      } else {
        for (let k = 0; k < n; k++) {
          const i = undecided[k]!;
          if (holds(op, a[i]!, b[i]!) !== isAnd) out[i] = decided;
          else undecided[m++] = i;
        }
      }
    } else {
      const v = values(program, operand, lo, hi);
      if (n < 0) {
        for (let i = lo; i < hi; i++) {
          if (v[i] === decided) out[i] = decided;
          else undecided[m++] = i;
        }
      } else {
        for (let k = 0; k < n; k++) {
          const i = undecided[k]!;
          if (v[i] === decided) out[i] = decided;
          else undecided[m++] = i;
        }
      }
    }
    n = m;
    if (n === 0) return;
    lo = undecided[0]!;
    hi = undecided[n - 1]! + 1;
  }
}
