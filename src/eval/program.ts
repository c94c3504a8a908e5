/**
 * Lowering a checked, planned query to a program: a graph of slots, one per distinct (IR node,
 * timeframe). Identical subexpressions share a slot, so `rsi(14)` in columns, sort and
 * condition is computed once per instrument. Each slot holds a buffer reused across
 * instruments and what its computation needs decided once (its kernel's lookback, its inputs
 * array, whether it runs in primed blocks, its operands cheapest first), so evaluating an
 * instrument allocates nothing per bar. `values.ts` computes slots; `run.ts` and `history.ts`
 * read them.
 */
import type { CheckedQuery } from "../check/check.js";
import { children, type IrNode } from "../check/ir.js";
import type { KernelContext } from "../functions/kernel.js";
import { freshState } from "../functions/module.js";
import { needKey, type Planned } from "../plan/plan.js";
import { TIMEFRAME_MS, type Timeframe } from "../types.js";
import { COLUMN_INDEX, Frame } from "./bars.js";

export const EMPTY = new Float64Array(0);

export class Slot {
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
  /** Whether the slot runs over whole primed blocks (see `runsInPrimedBlocks`), decided once. */
  blocked = false;
  /** For calls: the kernel's extra lookback for this node's constants, decided once. */
  extra = 0;
  /** For calls: the kernel's inputs, refilled per computation (children, then implicit columns). */
  inputs: Float64Array[] = [];
  /** For calls, the implicit columns; for series, the raw columns: as `COLUMN_INDEX` indices. */
  columnIndices: number[] = [];
  /** For arithmetic: the left spine being folded, reused (a slot is never folded re-entrantly). */
  spine: Slot[] = [];
  /**
   * For recursive calls: bars before the latest that the plan says some consumer needs. The
   * first computation covers them all, since a recursive kernel streams the whole history
   * whatever range it writes (`rsi(14) > rsi(14)[1]` would otherwise stream it twice).
   */
  history = 0;
  /**
   * For a resumable call (a module with `stateSize`): its kernel's state, which the kernel is
   * given while the program carries a pass from bar to bar (`Program.carrying`, carry.ts).
   */
  state: Float64Array | undefined;
  /**
   * While a carried pass is restored (`Program.restored`): the first bar whose value the slot
   * was given back; a computation asked to start before it is a miss (see `CARRY_MISS`).
   */
  floor = -Infinity;

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

/**
 * Windowed kernels run over whole blocks of this many bars, each primed afresh from the bars
 * before it (see `values`), so that a value never depends on the range asked. Small enough
 * that a run's latest bar costs little more than its window; large enough that history over a
 * few hundred bars primes few windows. (Unrelated to the store's packed blocks of
 * `BLOCK_BARS` bars, src/store/blocks.ts.)
 */
export const PRIMED_BLOCK_BARS = 64;

/** A call whose kernel's values could depend on the range it is asked for: run in primed blocks. */
function runsInPrimedBlocks(node: IrNode): boolean {
  return node.op === "call" && !node.fn.recursive && node.fn.rangeIndependent !== true;
}

/** Estimated work per evaluation, for ordering `and`/`or` operands (recursive kernels read all history). */
function ownCost(node: IrNode): number {
  if (node.op === "call") return node.fn.recursive ? 300 : node.fn.extraLookback(node.consts) + 1;
  if (node.op === "series") return node.series.raw.length;
  return 1;
}

/**
 * A query lowered for evaluation. Not re-entrant (its slots and frames hold one instrument's
 * state at a time): a runner keeps one per evaluation in progress.
 */
export class Program {
  private readonly slots = new Map<string, Slot>();
  /** One per plan source, in plan order: the base timeframe's first. */
  readonly frames: readonly Frame[];
  private readonly frameOf = new Map<Timeframe, Frame>();
  /** Advanced per instrument: a slot's values are valid only for the epoch they were computed in. */
  epoch = 0;
  readonly condition: Slot;
  readonly columns: readonly { readonly text: string; readonly slot: Slot }[];
  readonly sort: readonly { readonly slot: Slot; readonly descending: boolean }[];
  readonly limit: number | undefined;
  readonly baseTimeframe: Timeframe;
  /** The plan's market, which kernels may read (the FOREX session of `vwap`). */
  readonly market: string;
  /** Every slot of the program, once. */
  readonly all: readonly Slot[];
  /**
   * True while a pass is evaluated to be carried to the next bar (alerts, `watch`; carry.ts):
   * resumable kernels are given their slot's state, and `and`/`or` compute every operand, so
   * that every slot holds its value at every bar of the pass and can take the next one in a step.
   */
  carrying = false;
  /**
   * True while a carried pass resumes from a saved one: the slots hold only their tails
   * (`Slot.floor`), and a computation that would read before them is a miss (`CARRY_MISS`).
   */
  restored = false;

  constructor(
    checked: CheckedQuery,
    private readonly planned: Planned,
  ) {
    const market = planned.plan.market;
    this.market = market;
    this.frames = planned.plan.sources.map((source) => new Frame(source.timeframe, source.minLookback, source.series, market));
    for (const frame of this.frames) this.frameOf.set(frame.timeframe, frame);
    planned.fetch.forEach((source, k) => (this.frames[k]!.fetchBars = source.bars));
    this.baseTimeframe = planned.baseTimeframe;
    const base = planned.baseTimeframe;
    this.condition = this.slot(checked.condition.ir, base);
    this.columns = checked.columns.map((c) => ({ text: c.text, slot: this.slot(c.ir, base) }));
    this.sort = checked.sort.map((s) => ({ slot: this.slot(s.ir, base), descending: s.direction === "desc" }));
    this.limit = checked.limit;
    this.all = [...this.slots.values()];
  }

  /** The base timeframe's frame. */
  get base(): Frame {
    return this.frames[0]!;
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
      s.children = children(n).map((k) => get(k, childTf));
      s.frame = this.frame(s.timeframe);
      if (n.op === "timeframe") s.inner = this.frame(n.timeframe);
      s.blocked = runsInPrimedBlocks(n);
      // A recursion (or a count) on the frame: its values depend on where the frame starts.
      if (n.op === "call" && n.fn.recursive) s.frame.recursive = true;
      if (n.op === "call") {
        s.extra = n.fn.extraLookback(n.consts);
        s.inputs = new Array<Float64Array>(s.children.length + n.fn.implicit.length).fill(EMPTY);
        s.columnIndices = n.fn.implicit.map((c) => COLUMN_INDEX[c]);
        if (n.fn.stateSize) s.state = freshState(n.fn.stateSize(n.consts));
      }
      if (n.op === "series") s.columnIndices = n.series.raw.map((c) => COLUMN_INDEX[c]);
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
    for (const frame of this.frames) for (const copy of frame.copies) bytes += copy?.buffer.byteLength ?? 0;
    return bytes;
  }

  /** The frame of a timeframe the plan reads (every slot's is one: the plan lists them all). */
  private frame(timeframe: Timeframe): Frame {
    const frame = this.frameOf.get(timeframe);
    if (!frame) throw new Error(`internal: timeframe ${timeframe} is not a plan source`);
    return frame;
  }
}
