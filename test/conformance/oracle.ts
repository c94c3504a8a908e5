/**
 * Expected values for the conformance cases over the TA-Lib fixtures, computed without the
 * library: a column that is a call TA-Lib was asked for (test/reference/fixtures, written by
 * TA-Lib's C library) takes TA-Lib's output at the instrument's last bar; any other call is
 * computed here from its row in decisions §1 ("Functions v2" and the v1 table), with the
 * plain definitions of the test kit. `L` is the row's lookback, for the short-history rule.
 *
 * A column is a call `name(args)` or a bare name; an argument is a number, a series name, or
 * `x op y` of two of those (`close > open`, `close - open`).
 */
import {
  atrOf,
  emaOf,
  series,
  smaOf,
  stdevOf,
  supertrendOf,
  windowMax,
  windowMin,
  windowSum,
  wmaOf,
  type Columns,
} from "../kit/index.js";

/** A column's values at every bar (NaN where undefined; booleans 1/0) and the bars it needs (L). */
export interface OracleColumn {
  readonly values: Float64Array;
  readonly lookback: number;
}

type Arg = { readonly series: Float64Array; readonly lookback: number } | { readonly number: number };

const DERIVED: Readonly<Record<string, (c: Columns, i: number) => number>> = {
  hl2: (c, i) => (c.high[i]! + c.low[i]!) / 2,
  hlc3: (c, i) => (c.high[i]! + c.low[i]! + c.close[i]!) / 3,
  ohlc4: (c, i) => (c.open[i]! + c.high[i]! + c.low[i]! + c.close[i]!) / 4,
};

function seriesNamed(c: Columns, name: string): Float64Array | undefined {
  if (name === "open" || name === "high" || name === "low" || name === "close" || name === "volume") return c[name];
  const f = DERIVED[name];
  return f ? Float64Array.from({ length: c.close.length }, (_, i) => f(c, i)) : undefined;
}

const OPERATORS: Readonly<Record<string, (a: number, b: number) => number>> = {
  ">": (a, b) => +(a > b),
  "<": (a, b) => +(a < b),
  ">=": (a, b) => +(a >= b),
  "<=": (a, b) => +(a <= b),
  "-": (a, b) => a - b,
  "+": (a, b) => a + b,
};

function operand(c: Columns, text: string): Arg {
  if (/^-?\d+(\.\d+)?$/.test(text)) return { number: Number(text) };
  const s = seriesNamed(c, text);
  if (!s) throw new Error(`oracle: '${text}' is no series or number`);
  return { series: s, lookback: 1 };
}

function argument(c: Columns, text: string): Arg {
  const m = /^(\S+) (>=|<=|>|<|-|\+) (\S+)$/.exec(text);
  if (!m) return operand(c, text);
  const [a, b] = [operand(c, m[1]!), operand(c, m[3]!)];
  const at = (x: Arg, i: number): number => ("number" in x ? x.number : x.series[i]!);
  const op = OPERATORS[m[2]!]!;
  return { series: Float64Array.from({ length: c.close.length }, (_, i) => op(at(a, i), at(b, i))), lookback: 1 };
}

const isSeries = (a: Arg | undefined): a is { series: Float64Array; lookback: number } => a !== undefined && "series" in a;

/** The arguments of a call with an optional leading source (`fallback` when left out), then its numbers. */
function withSource(c: Columns, args: Arg[], fallback: keyof Columns): { src: Float64Array; L: number; k: number[] } {
  const given = isSeries(args[0]);
  const src = given ? (args[0] as { series: Float64Array }).series : c[fallback];
  const rest = (given ? args.slice(1) : args).map((a) => ("number" in a ? a.number : NaN));
  return { src, L: given ? (args[0] as { lookback: number }).lookback : 1, k: rest };
}

const nums = (args: Arg[]): number[] => args.map((a) => ("number" in a ? a.number : NaN));
const seriesOf = (a: Arg | undefined): Float64Array => {
  if (!isSeries(a)) throw new Error("oracle: a series argument is missing");
  return a.series;
};
const map = (n: number, f: (i: number) => number): Float64Array => Float64Array.from({ length: n }, (_, i) => f(i));
/** A ratio that is undefined where its denominator is 0 (decisions §1, Functions v2). */
const ratio = (a: number, b: number): number => (b === 0 ? NaN : a / b);

type Definition = (c: Columns, args: Arg[]) => OracleColumn;

/** The rows of decisions §1 for the functions TA-Lib is not the reference of. */
const DEFINITIONS: Readonly<Record<string, Definition>> = {
  abs: (_c, [x]) => ({ values: seriesOf(x).map(Math.abs), lookback: 1 }),
  min: (c, [a, b]) => ({ values: map(c.close.length, (i) => Math.min(seriesOf(a)[i]!, seriesOf(b)[i]!)), lookback: 1 }),
  max: (c, [a, b]) => ({ values: map(c.close.length, (i) => Math.max(seriesOf(a)[i]!, seriesOf(b)[i]!)), lookback: 1 }),
  log: (_c, [x]) => ({ values: seriesOf(x).map((v) => (v > 0 ? Math.log(v) : NaN)), lookback: 1 }),
  sqrt: (_c, [x]) => ({ values: seriesOf(x).map((v) => (v >= 0 ? Math.sqrt(v) : NaN)), lookback: 1 }),
  sign: (_c, [x]) => ({ values: seriesOf(x).map(Math.sign), lookback: 1 }),
  change: (c, args) => {
    const { src, k: [n] } = withSource(c, args, "close");
    return { values: series(src.length, n!, (i) => src[i]! - src[i - n!]!), lookback: n! + 1 };
  },
  crossover: (c, [a, b]) => cross(c, a, b, "up"),
  crossunder: (c, [a, b]) => cross(c, a, b, "down"),
  cross: (c, [a, b]) => cross(c, a, b, "either"),
  rising: (_c, [x, n]) => streak(seriesOf(x), nums([n!])[0]!, (d) => d > 0),
  falling: (_c, [x, n]) => streak(seriesOf(x), nums([n!])[0]!, (d) => d < 0),
  count: (c, [cond, n]) => {
    const k = nums([n!])[0]!;
    return { values: series(c.close.length, k - 1, (i) => windowSum(seriesOf(cond), i, k)), lookback: k };
  },
  bars_since: (c, [cond, n]) => {
    const k = nums([n!])[0]!;
    const x = seriesOf(cond);
    return {
      values: series(c.close.length, k - 1, (i) => {
        for (let back = 0; back < k; back++) if (x[i - back] === 1) return back;
        return NaN;
      }),
      lookback: k,
    };
  },
  bb_width: (c, args) => {
    const { src, k: [n, k] } = withSource(c, args, "close");
    const m = smaOf(src, n!);
    const s = stdevOf(src, n!);
    return { values: map(src.length, (i) => ratio(2 * k! * s[i]!, m[i]!)), lookback: n! };
  },
  bb_percent: (c, args) => {
    const { src, k: [n, k] } = withSource(c, args, "close");
    const m = smaOf(src, n!);
    const s = stdevOf(src, n!);
    return { values: map(src.length, (i) => ratio(src[i]! - (m[i]! - k! * s[i]!), 2 * k! * s[i]!)), lookback: n! };
  },
  zscore: (c, args) => {
    const { src, k: [n] } = withSource(c, args, "close");
    const m = smaOf(src, n!);
    const s = stdevOf(src, n!);
    return { values: map(src.length, (i) => ratio(src[i]! - m[i]!, s[i]!)), lookback: n! };
  },
  percent_rank: (c, args) => {
    const { src, k: [n] } = withSource(c, args, "close");
    return {
      values: series(src.length, n!, (i) => {
        let below = 0;
        for (let j = i - n!; j < i; j++) if (src[j]! <= src[i]!) below++;
        return (100 * below) / n!;
      }),
      lookback: n! + 1,
    };
  },
  cmo: (c, args) => {
    const { src, k: [n] } = withSource(c, args, "close");
    return {
      values: series(src.length, n!, (i) => {
        let up = 0;
        let down = 0;
        for (let j = i - n! + 1; j <= i; j++) {
          const d = src[j]! - src[j - 1]!;
          if (d > 0) up += d;
          else down -= d;
        }
        return ratio(100 * (up - down), up + down);
      }),
      lookback: n! + 1,
    };
  },
  hma: (c, args) => {
    const { src, k: [n] } = withSource(c, args, "close");
    const half = wmaOf(src, Math.floor(n! / 2));
    const full = wmaOf(src, n!);
    const diff = map(src.length, (i) => 2 * half[i]! - full[i]!);
    const root = Math.floor(Math.sqrt(n!));
    // wma over the difference, which is defined from bar n − 1.
    const out = series(src.length, n! - 1 + root - 1, (i) => {
      let s = 0;
      for (let k = 0; k < root; k++) s += (root - k) * diff[i - k]!;
      return s / ((root * (root + 1)) / 2);
    });
    return { values: out, lookback: n! + root - 1 };
  },
  vwma: (c, args) => {
    const { src, k: [n] } = withSource(c, args, "close");
    const pv = map(src.length, (i) => src[i]! * c.volume[i]!);
    return { values: series(src.length, n! - 1, (i) => ratio(windowSum(pv, i, n!), windowSum(c.volume, i, n!))), lookback: n! };
  },
  kc_upper: (c, args) => keltner(c, args, 1),
  kc_lower: (c, args) => keltner(c, args, -1),
  supertrend: (c, [n, mult]) => {
    const [k, m] = nums([n!, mult!]);
    return { values: supertrendOf(c, k!, m!), lookback: k! + 1 };
  },
  tenkan: (c, [n]) => midline(c, nums([n!])[0]!),
  kijun: (c, [n]) => midline(c, nums([n!])[0]!),
  senkou_a: (c, [conv, base, disp]) => {
    const [a, b, d] = nums([conv!, base!, disp!]);
    const t = midline(c, a!).values;
    const k = midline(c, b!).values;
    return { values: map(c.close.length, (i) => (i - d! + 1 >= 0 ? (t[i - d! + 1]! + k[i - d! + 1]!) / 2 : NaN)), lookback: Math.max(a!, b!) + d! - 1 };
  },
  senkou_b: (c, [n, disp]) => {
    const [k, d] = nums([n!, disp!]);
    const line = midline(c, k!).values;
    return { values: map(c.close.length, (i) => (i - d! + 1 >= 0 ? line[i - d! + 1]! : NaN)), lookback: k! + d! - 1 };
  },
  cmf: (c, [n]) => {
    const k = nums([n!])[0]!;
    const flow = map(c.close.length, (i) => {
      const range = c.high[i]! - c.low[i]!;
      return range === 0 ? 0 : (((c.close[i]! - c.low[i]!) - (c.high[i]! - c.close[i]!)) / range) * c.volume[i]!;
    });
    return { values: series(c.close.length, k - 1, (i) => ratio(windowSum(flow, i, k), windowSum(c.volume, i, k))), lookback: k };
  },
  vwap: (c) => {
    // Intraday bars: the session is the UTC day of the bar.
    const day = 86_400_000;
    let pv = 0;
    let v = 0;
    const out = map(c.close.length, (i) => {
      if (i === 0 || Math.floor(c.time[i]! / day) !== Math.floor(c.time[i - 1]! / day)) pv = v = 0;
      pv += ((c.high[i]! + c.low[i]! + c.close[i]!) / 3) * c.volume[i]!;
      v += c.volume[i]!;
      return ratio(pv, v);
    });
    return { values: out, lookback: 1 };
  },
};

function cross(c: Columns, a: Arg | undefined, b: Arg | undefined, way: "up" | "down" | "either"): OracleColumn {
  const x = seriesOf(a);
  const y = seriesOf(b);
  const up = (i: number): boolean => x[i]! > y[i]! && x[i - 1]! <= y[i - 1]!;
  const down = (i: number): boolean => x[i]! < y[i]! && x[i - 1]! >= y[i - 1]!;
  return {
    values: map(c.close.length, (i) => (i === 0 ? 0 : +(way === "up" ? up(i) : way === "down" ? down(i) : up(i) || down(i)))),
    lookback: 2,
  };
}

function streak(x: Float64Array, n: number, moved: (d: number) => boolean): OracleColumn {
  return {
    values: map(x.length, (i) => {
      if (i < n) return 0;
      for (let j = i - n + 1; j <= i; j++) if (!moved(x[j]! - x[j - 1]!)) return 0;
      return 1;
    }),
    lookback: n + 1,
  };
}

function keltner(c: Columns, args: Arg[], sign: 1 | -1): OracleColumn {
  const { src, k: [n, mult] } = withSource(c, args, "close");
  const e = emaOf(src, n!);
  const a = atrOf(c, n!);
  return { values: map(src.length, (i) => e[i]! + sign * mult! * a[i]!), lookback: n! + 1 };
}

function midline(c: Columns, n: number): OracleColumn {
  return { values: series(c.close.length, n - 1, (i) => (windowMax(c.high, i, n) + windowMin(c.low, i, n)) / 2), lookback: n };
}

/** Splits `a, b(c, d), e` at its top-level commas. */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (text.trim() !== "") out.push(text.slice(start).trim());
  return out;
}

/** The oracle's column for `text` over `bars`: a call of one of {@link DEFINITIONS}. */
export function oracleColumn(text: string, bars: Columns): OracleColumn {
  const m = /^(\w+)(?:\((.*)\))?$/.exec(text);
  const definition = m ? DEFINITIONS[m[1]!] : undefined;
  if (!m || !definition) {
    throw new Error(
      `oracle: no definition for '${text}': add the function's definition to DEFINITIONS in test/conformance/oracle.ts, or its TA-Lib cases to scripts/reference/generate.py (docs/functions.md, "Add a built-in", steps 4 and 5)`,
    );
  }
  return definition(bars, splitArgs(m[2] ?? "").map((a) => argument(bars, a)));
}

/** The functions the oracle defines. */
export const ORACLE_FUNCTIONS: readonly string[] = Object.keys(DEFINITIONS);
