/**
 * A reference evaluator for the evaluator tests, written from decisions §1 alone and sharing no
 * code with src/: expressions are built here as small objects that print XQL text (with the
 * parentheses the precedence rules need) and compute their whole series with naive loops
 * (every window summed directly, every recursive average restarted from its seed), so a
 * mistake in the kernels, the slot graph, alignment or the result assembly shows as a mismatch.
 * The one exception is `moduleCall`, which runs a module's own kernel over the whole history so
 * that every module, present and future, is checked for its evaluation around the kernel.
 */
import { standaloneContext, type FunctionModule } from "../../src/functions/module.js";
import { TIMEFRAME_MS, type Timeframe } from "../../src/types.js";
import { atrOf, emaOf, rsiOf, smaOf, stdevOf, within, type ArrayBars } from "../kit/index.js";

type Series = Float64Array;
type Raw = "open" | "high" | "low" | "close" | "volume";

/** Precedence levels, lowest first (decisions §1 "Expressions"). */
const P = { or: 1, and: 2, not: 3, compare: 4, add: 5, mul: 6, neg: 7, prefix: 8, postfix: 9, primary: 10 } as const;

export interface RefInstrument {
  symbol: string;
  bars: Partial<Record<Timeframe, ArrayBars>>;
}

/** Per-instrument evaluation context: bars and computed series by (expression, timeframe). */
export class Ctx {
  private readonly cache = new Map<string, Series>();
  constructor(readonly inst: RefInstrument) {}

  bars(tf: Timeframe): ArrayBars {
    const b = this.inst.bars[tf];
    if (!b) throw new Error(`reference: ${this.inst.symbol} has no ${tf} bars`);
    return b;
  }

  get(e: Expr, tf: Timeframe): Series {
    const key = `${e.uid}@${tf}`;
    let s = this.cache.get(key);
    if (!s) this.cache.set(key, (s = e.compute(this, tf)));
    return s;
  }
}

let nextUid = 0;

export class Expr {
  readonly uid = nextUid++;
  constructor(
    readonly text: string,
    readonly prec: number,
    readonly type: "number" | "boolean",
    readonly compute: (ctx: Ctx, tf: Timeframe) => Series,
    /** Records the bars needed per timeframe when this is needed `k` bars before the latest on `tf`. */
    readonly need: (tf: Timeframe, k: number, acc: Map<Timeframe, number>) => void,
  ) {}
}

function wrap(e: Expr, min: number): string {
  return e.prec >= min ? e.text : `(${e.text})`;
}

function record(acc: Map<Timeframe, number>, tf: Timeframe, bars: number): void {
  acc.set(tf, Math.max(acc.get(tf) ?? 0, bars));
}

const len = (ctx: Ctx, tf: Timeframe): number => ctx.bars(tf).time.length;

function map(n: number, f: (i: number) => number): Series {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = f(i);
  return out;
}

// ---- leaves ---------------------------------------------------------------------------------

export function num(value: number): Expr {
  return new Expr(
    String(value),
    P.primary,
    "number",
    (ctx, tf) => map(len(ctx, tf), () => value),
    (tf, k, acc) => record(acc, tf, k + 1),
  );
}

export const TRUE = new Expr("true", P.primary, "boolean", (ctx, tf) => map(len(ctx, tf), () => 1), (tf, k, acc) => record(acc, tf, k + 1));

function rawSeries(name: string, f: (b: ArrayBars, i: number) => number): Expr {
  return new Expr(
    name,
    P.primary,
    "number",
    (ctx, tf) => {
      const b = ctx.bars(tf);
      return map(b.time.length, (i) => f(b, i));
    },
    (tf, k, acc) => record(acc, tf, k + 1),
  );
}

export const close = rawSeries("close", (b, i) => b.close[i]!);
export const open = rawSeries("open", (b, i) => b.open[i]!);
export const high = rawSeries("high", (b, i) => b.high[i]!);
export const low = rawSeries("low", (b, i) => b.low[i]!);
export const volume = rawSeries("volume", (b, i) => b.volume[i]!);
export const hl2 = rawSeries("hl2", (b, i) => (b.high[i]! + b.low[i]!) / 2);
export const hlc3 = rawSeries("hlc3", (b, i) => (b.high[i]! + b.low[i]! + b.close[i]!) / 3);
export const ohlc4 = rawSeries("ohlc4", (b, i) => (b.open[i]! + b.high[i]! + b.low[i]! + b.close[i]!) / 4);

/** A `let` name standing for `value`; `letLine` is its definition. */
export function named(name: string, value: Expr): Expr & { letLine: string } {
  const e = new Expr(name, P.primary, value.type, (ctx, tf) => ctx.get(value, tf), value.need) as Expr & { letLine: string };
  e.letLine = `let ${name} = ${value.text}`;
  return e;
}

// ---- operators ------------------------------------------------------------------------------

function binary(op: string, a: Expr, b: Expr, prec: number, type: "number" | "boolean", f: (x: number, y: number) => number): Expr {
  // Left-associative arithmetic: the right operand binds tighter; comparisons are non-associative.
  const leftMin = prec === P.compare ? P.compare + 1 : prec;
  return new Expr(
    `${wrap(a, leftMin)} ${op} ${wrap(b, prec + 1)}`,
    prec,
    type,
    (ctx, tf) => {
      const x = ctx.get(a, tf);
      const y = ctx.get(b, tf);
      return map(x.length, (i) => f(x[i]!, y[i]!));
    },
    (tf, k, acc) => {
      record(acc, tf, k + 1);
      a.need(tf, k, acc);
      b.need(tf, k, acc);
    },
  );
}

export const add = (a: Expr, b: Expr) => binary("+", a, b, P.add, "number", (x, y) => x + y);
export const sub = (a: Expr, b: Expr) => binary("-", a, b, P.add, "number", (x, y) => x - y);
export const mul = (a: Expr, b: Expr) => binary("*", a, b, P.mul, "number", (x, y) => x * y);
export const div = (a: Expr, b: Expr) => binary("/", a, b, P.mul, "number", (x, y) => x / y);
// Non-finite operands (NaN, ±Infinity from a division by zero) make every comparison false, `!=` included.
function comparison(op: string, f: (x: number, y: number) => boolean) {
  return (a: Expr, b: Expr) => binary(op, a, b, P.compare, "boolean", (x, y) => +(Number.isFinite(x) && Number.isFinite(y) && f(x, y)));
}
export const lt = comparison("<", (x, y) => x < y);
export const le = comparison("<=", (x, y) => x <= y);
export const gt = comparison(">", (x, y) => x > y);
export const ge = comparison(">=", (x, y) => x >= y);
export const eq = comparison("==", (x, y) => x === y);
export const ne = comparison("!=", (x, y) => x !== y);

function logical(op: "and" | "or", operands: Expr[]): Expr {
  const prec = op === "and" ? P.and : P.or;
  return new Expr(
    operands.map((o) => wrap(o, prec)).join(` ${op} `),
    prec,
    "boolean",
    (ctx, tf) => {
      const vs = operands.map((o) => ctx.get(o, tf));
      return map(vs[0]!.length, (i) => (op === "and" ? +vs.every((v) => v[i] === 1) : +vs.some((v) => v[i] === 1)));
    },
    (tf, k, acc) => {
      record(acc, tf, k + 1);
      for (const o of operands) o.need(tf, k, acc);
    },
  );
}

export const and = (...xs: Expr[]) => logical("and", xs);
export const or = (...xs: Expr[]) => logical("or", xs);

export function not(a: Expr): Expr {
  return new Expr(
    `not ${wrap(a, P.not)}`,
    P.not,
    "boolean",
    (ctx, tf) => map(len(ctx, tf), (i) => (ctx.get(a, tf)[i] === 1 ? 0 : 1)),
    (tf, k, acc) => {
      record(acc, tf, k + 1);
      a.need(tf, k, acc);
    },
  );
}

export function neg(a: Expr): Expr {
  return new Expr(
    `-${wrap(a, P.neg)}`,
    P.neg,
    "number",
    (ctx, tf) => map(len(ctx, tf), (i) => -ctx.get(a, tf)[i]!),
    (tf, k, acc) => {
      record(acc, tf, k + 1);
      a.need(tf, k, acc);
    },
  );
}

/** `x[k]`: the value k bars ago on x's timeframe; undefined (NaN, or false) before the first bar. */
export function ago(a: Expr, k: number): Expr {
  return new Expr(
    `${wrap(a, P.postfix)}[${k}]`,
    P.postfix,
    a.type,
    (ctx, tf) => {
      const x = ctx.get(a, tf);
      return map(x.length, (i) => (i - k >= 0 ? x[i - k]! : a.type === "boolean" ? 0 : NaN));
    },
    (tf, kk, acc) => {
      record(acc, tf, kk + 1);
      a.need(tf, kk + k, acc);
    },
  );
}

/**
 * Index of the last `inner` bar closed by `closeTime` (close = open + duration), by a plain
 * scan from the start: −1 when none.
 */
export function alignedIndex(times: ArrayLike<number>, inner: Timeframe, closeTime: number): number {
  let j = -1;
  for (let i = 0; i < times.length; i++) if (times[i]! + TIMEFRAME_MS[inner] <= closeTime) j = i;
  return j;
}

/** `tf::x`: at each outer bar, x at the latest tf bar closed when the outer bar closes. */
export function on(inner: Timeframe, a: Expr): Expr {
  return new Expr(
    `${inner}::${wrap(a, P.postfix)}`,
    P.prefix,
    a.type,
    (ctx, outer) => {
      const ot = ctx.bars(outer).time;
      const it = ctx.bars(inner).time;
      const x = ctx.get(a, inner);
      // Outer bars are in time order, so the aligned inner index only moves forward.
      let j = -1;
      return map(ot.length, (i) => {
        const closeTime = ot[i]! + TIMEFRAME_MS[outer];
        while (j + 1 < it.length && it[j + 1]! + TIMEFRAME_MS[inner] <= closeTime) j++;
        return j >= 0 ? x[j]! : a.type === "boolean" ? 0 : NaN;
      });
    },
    (outer, k, acc) => {
      record(acc, outer, k + 1);
      a.need(inner, k === 0 ? 0 : Math.ceil((k * TIMEFRAME_MS[outer]) / TIMEFRAME_MS[inner]), acc);
    },
  );
}

// ---- functions ------------------------------------------------------------------------------

/** A call printed as `name(args)`; `extra` is the history each series argument needs beyond the output. */
function call(
  name: string,
  printed: (Expr | number)[],
  inputs: Expr[],
  extra: number,
  type: "number" | "boolean",
  f: (xs: Series[], n: number) => Series,
  implicit: Expr[] = [],
): Expr {
  return new Expr(
    `${name}(${printed.map((p) => (typeof p === "number" ? String(p) : p.text)).join(", ")})`,
    P.primary,
    type,
    (ctx, tf) => f([...inputs, ...implicit].map((x) => ctx.get(x, tf)), len(ctx, tf)),
    (tf, k, acc) => {
      record(acc, tf, k + 1);
      for (const x of inputs) x.need(tf, k + extra, acc);
      if (implicit.length > 0) record(acc, tf, k + extra + 1);
    },
  );
}

/** Splits `(src?, ...numbers)` call arguments: a missing source is the default (and not printed). */
function srcArgs(args: (Expr | number)[], fallback: Expr): { src: Expr; printed: (Expr | number)[]; nums: number[] } {
  if (args[0] instanceof Expr) return { src: args[0], printed: args, nums: args.slice(1) as number[] };
  return { src: fallback, printed: args, nums: args as number[] };
}

function windowOf(x: Series, n: number, pick: (w: number[]) => number): Series {
  return map(x.length, (i) => {
    if (i < n - 1) return NaN;
    const w = Array.from(x.subarray(i - n + 1, i + 1));
    return w.some(Number.isNaN) ? NaN : pick(w);
  });
}

type Args = (Expr | number)[];

export const sma = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  return call("sma", printed, [src], nums[0]! - 1, "number", ([x]) => smaOf(x!, nums[0]!));
};
export const avg = (src: Expr, n: number) => call("avg", [src, n], [src], n - 1, "number", ([x]) => smaOf(x!, n));
export const ema = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  return call("ema", printed, [src], nums[0]! - 1, "number", ([x]) => emaOf(x!, nums[0]!));
};
export const wma = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  const n = nums[0]!;
  return call("wma", printed, [src], n - 1, "number", ([x]) =>
    map(x!.length, (i) => {
      if (i < n - 1) return NaN;
      let s = 0;
      for (let w = 1; w <= n; w++) s += w * x![i - n + w]!;
      return s / ((n * (n + 1)) / 2);
    }),
  );
};
export const rsi = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  return call("rsi", printed, [src], nums[0]!, "number", ([x]) => rsiOf(x!, nums[0]!));
};
export const stdev = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  return call("stdev", printed, [src], nums[0]! - 1, "number", ([x]) => stdevOf(x!, nums[0]!));
};
function band(name: string, sign: number, a: Args): Expr {
  const { src, printed, nums } = srcArgs(a, close);
  const [n, k] = nums as [number, number];
  return call(name, printed, [src], n - 1, "number", ([x]) => {
    const m = smaOf(x!, n);
    const s = stdevOf(x!, n);
    return map(x!.length, (i) => m[i]! + sign * k * s[i]!);
  });
}
export const bb_upper = (...a: Args) => band("bb_upper", 1, a);
export const bb_lower = (...a: Args) => band("bb_lower", -1, a);
export const highest = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, high);
  return call("highest", printed, [src], nums[0]! - 1, "number", ([x]) => windowOf(x!, nums[0]!, (w) => Math.max(...w)));
};
export const lowest = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, low);
  return call("lowest", printed, [src], nums[0]! - 1, "number", ([x]) => windowOf(x!, nums[0]!, (w) => Math.min(...w)));
};
export const roc = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  const n = nums[0]!;
  return call("roc", printed, [src], n, "number", ([x]) => map(x!.length, (i) => (i < n ? NaN : 100 * (x![i]! / x![i - n]! - 1))));
};
export const change = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  const n = nums[0]!;
  return call("change", printed, [src], n, "number", ([x]) => map(x!.length, (i) => (i < n ? NaN : x![i]! - x![i - n]!)));
};
export const atr = (n: number) => call("atr", [n], [], n, "number", ([h, l, c]) => atrOf({ high: h!, low: l!, close: c! }, n), [high, low, close]);
export const abs = (x: Expr) => call("abs", [x], [x], 0, "number", ([v]) => map(v!.length, (i) => Math.abs(v![i]!)));
export const min = (a: Expr, b: Expr) => call("min", [a, b], [a, b], 0, "number", ([x, y]) => map(x!.length, (i) => Math.min(x![i]!, y![i]!)));
export const max = (a: Expr, b: Expr) => call("max", [a, b], [a, b], 0, "number", ([x, y]) => map(x!.length, (i) => Math.max(x![i]!, y![i]!)));

function cross(name: string, a: Expr, b: Expr, up: boolean): Expr {
  return call(name, [a, b], [a, b], 1, "boolean", ([x, y]) =>
    map(x!.length, (i) => {
      if (i === 0) return 0;
      // Decisions §1: comparisons with a non-finite operand are false.
      if (![x![i]!, y![i]!, x![i - 1]!, y![i - 1]!].every(Number.isFinite)) return 0;
      return up ? +(x![i]! > y![i]! && x![i - 1]! <= y![i - 1]!) : +(x![i]! < y![i]! && x![i - 1]! >= y![i - 1]!);
    }),
  );
}
export const crossover = (a: Expr, b: Expr) => cross("crossover", a, b, true);
export const crossunder = (a: Expr, b: Expr) => cross("crossunder", a, b, false);

function macdLine(x: Series, fast: number, slow: number): Series {
  const f = emaOf(x, fast);
  const s = emaOf(x, slow);
  return map(x.length, (i) => f[i]! - s[i]!);
}
export const macd = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  const [fast, slow] = nums as [number, number];
  return call("macd", printed, [src], Math.max(fast, slow) - 1, "number", ([x]) => macdLine(x!, fast, slow));
};
export const macd_signal = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  const [fast, slow, signal] = nums as [number, number, number];
  return call("macd_signal", printed, [src], Math.max(fast, slow) - 1 + signal - 1, "number", ([x]) => emaOf(macdLine(x!, fast, slow), signal));
};
export const macd_hist = (...a: Args) => {
  const { src, printed, nums } = srcArgs(a, close);
  const [fast, slow, signal] = nums as [number, number, number];
  return call("macd_hist", printed, [src], Math.max(fast, slow) - 1 + signal - 1, "number", ([x]) => {
    const line = macdLine(x!, fast, slow);
    const sig = emaOf(line, signal);
    return map(x!.length, (i) => line[i]! - sig[i]!);
  });
}

// ---- any module, by its own kernel ------------------------------------------------------------

/**
 * A call of any built-in module, computed by running the module's own kernel once over the whole
 * history [0, len) of the timeframe, with this file's naive handling of everything around it
 * (inputs computed whole, offsets, alignment, lookback counting). New modules are covered by the
 * differential test with no per-function code; the hand-written functions above check the v1
 * kernels themselves. `omitSource` leaves a defaulted leading source out of the text.
 */
export function moduleCall(fn: FunctionModule, args: readonly Expr[], consts: readonly number[], omitSource = false): Expr {
  const printed: string[] = [];
  let a = 0;
  let k = 0;
  const inputs: Expr[] = [];
  fn.params.forEach((p, i) => {
    if (p.kind === "series" || p.kind === "condition") {
      if (i === 0 && omitSource && p.default !== undefined) {
        inputs.push(rawByName[p.default]);
        return;
      }
      const x = args[a++]!;
      inputs.push(x);
      printed.push(x.text);
    } else {
      printed.push(String(consts[k++]!));
    }
  });
  const extra = fn.extraLookback(consts);
  return new Expr(
    fn.params.length === 0 ? fn.name : `${fn.name}(${printed.join(", ")})`,
    P.primary,
    fn.result,
    (ctx, tf) => {
      const n = len(ctx, tf);
      const b = ctx.bars(tf);
      const columns = [...inputs.map((x) => ctx.get(x, tf)), ...fn.implicit.map((c) => Float64Array.from(b[c], Number))];
      const out = new Float64Array(n);
      if (n > 0) fn.kernel(columns, consts, out, 0, n, standaloneContext(TIMEFRAME_MS[tf]));
      return out;
    },
    (tf, kk, acc) => {
      record(acc, tf, kk + 1);
      for (const x of inputs) x.need(tf, kk + extra, acc);
      if (fn.implicit.length > 0 || inputs.length === 0) record(acc, tf, kk + extra + 1);
    },
  );
}

const rawByName: Record<Raw, Expr> = { open, high, low, close, volume };

// ---- queries --------------------------------------------------------------------------------

export interface RefQuery {
  market?: string;
  timeframe: Timeframe;
  lets?: (Expr & { letLine: string })[];
  columns?: Expr[];
  sort?: [Expr, "asc" | "desc"][];
  limit?: number;
  condition: Expr;
}

/** The query text, one statement per line. */
export function queryText(q: RefQuery): string {
  const lines = [`market = "${q.market ?? "CRYPTO"}"`, `timeframe = ${q.timeframe}`];
  for (const l of q.lets ?? []) lines.push(l.letLine);
  if (q.columns && q.columns.length > 0) lines.push(`columns = [${q.columns.map((c) => c.text).join(", ")}]`);
  if (q.sort) lines.push(`sort = ${q.sort.map(([e, d]) => `${e.text} ${d}`).join(", ")}`);
  if (q.limit !== undefined) lines.push(`limit = ${q.limit}`);
  lines.push(q.condition.text);
  return lines.join("\n");
}

/** Bars needed per timeframe (decisions §1 "Lookback"), from the expressions themselves. */
export function lookbacks(q: RefQuery): Map<Timeframe, number> {
  const acc = new Map<Timeframe, number>();
  q.condition.need(q.timeframe, 0, acc);
  for (const c of q.columns ?? []) c.need(q.timeframe, 0, acc);
  for (const [s] of q.sort ?? []) s.need(q.timeframe, 0, acc);
  return acc;
}

export interface ExpectedRow {
  symbol: string;
  columns: Record<string, number | null>;
  keys: number[];
}

/** The rows `run` must return, from the reference alone. */
export function expectedRun(q: RefQuery, universe: readonly RefInstrument[]): ExpectedRow[] {
  const needs = lookbacks(q);
  const rows: ExpectedRow[] = [];
  for (const inst of universe) {
    const ctx = new Ctx(inst);
    const base = inst.bars[q.timeframe];
    if (!base || base.time.length === 0) continue;
    const end = base.time.length - 1;
    const baseClose = base.time[end]! + TIMEFRAME_MS[q.timeframe];
    let enough = true;
    for (const [tf, bars] of needs) {
      const b = inst.bars[tf];
      // Non-base sources count only the bars closed by the latest base bar's close.
      const available = !b ? 0 : tf === q.timeframe ? b.time.length : alignedIndex(b.time, tf, baseClose) + 1;
      if (available < bars) enough = false;
    }
    if (!enough) continue;
    if (ctx.get(q.condition, q.timeframe)[end] !== 1) continue;
    const columns: Record<string, number | null> = {};
    for (const c of q.columns ?? []) {
      const v = ctx.get(c, q.timeframe)[end]!;
      columns[c.text] = Number.isFinite(v) ? v : null;
    }
    rows.push({ symbol: inst.symbol, columns, keys: (q.sort ?? []).map(([s]) => ctx.get(s, q.timeframe)[end]!) });
  }
  const dirs = (q.sort ?? []).map(([, d]) => d);
  rows.sort((a, b) => {
    for (let k = 0; k < dirs.length; k++) {
      const x = a.keys[k]!;
      const y = b.keys[k]!;
      // Non-finite keys (NaN, ±Infinity: null in the columns) sort last either way (docs/language.md).
      if (!Number.isFinite(x) && !Number.isFinite(y)) continue;
      if (!Number.isFinite(x)) return 1;
      if (!Number.isFinite(y)) return -1;
      if (x < y) return dirs[k] === "asc" ? -1 : 1;
      if (x > y) return dirs[k] === "asc" ? 1 : -1;
    }
    return a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;
  });
  return q.limit === undefined ? rows : rows.slice(0, q.limit);
}

/** Equal within 1e-9 relative to the expected magnitude or to `scale` (the price level). */
export function close9(a: number | null, b: number | null, scale = 1): boolean {
  return within(a, b, { rel: 1e-9, floor: scale });
}
