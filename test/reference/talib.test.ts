/**
 * Every function with a TA-Lib reference, checked against TA-Lib's C library at every bar of
 * the committed fixtures (test/reference/fixtures, written by scripts/reference/build.sh).
 *
 * Each fixture case is evaluated through the public library path: `compile()` of a query
 * whose only column is the call, run over a universe whose t-th instrument holds the
 * fixture's bars 0..t, so the column of instrument t is the value at bar t exactly as a
 * screen sees it when bar t is the latest. Then, at every bar:
 * - XQL reports the instrument exactly from bar L − 1 on (L = the plan's minLookback), and
 *   TA-Lib's first output is at that same bar (L = TA-Lib's lookback + 1 for every function);
 * - numbers agree within 1e-9 relative, or 1e-9 × min(1, the case's scale) absolute near zero;
 * - booleans (candlestick patterns) agree exactly;
 * - where they do not, the function has an exact rule (./exact.ts: rational arithmetic for
 *   the running-sum variance family, the exact zero-denominator test where TA-Lib writes 0
 *   or uses an epsilon), TA-Lib is off the exact value, and XQL is on it. Those bars are
 *   counted and printed (docs/functions-reference.md, "Where TA-Lib is not the reference").
 * The same calls run through the stepper (src/functions/stepper.ts, one bar at a time) give
 * the run's value at every bar, bit for bit: the stepper keeps the same tolerances.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compile, type Instrument } from "../../src/index.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { steppedValues } from "../kit/index.js";
import { EXACT, type FixtureBars, type Params } from "./exact.js";

interface Case {
  function: string;
  call: string;
  params: Params;
  talib: string;
  kind: "number" | "boolean";
  output: (number | null)[];
  note?: string;
}

interface Fixture {
  series: string;
  timeframe: "h1";
  bars: FixtureBars;
  cases: Case[];
}

const DIR = join(import.meta.dirname, "fixtures");
const FIXTURES: Fixture[] = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")) as Fixture);

/** Instruments P0000, P0001, ...: instrument t holds bars 0..t (typed-array views, no copies). */
function prefixes(bars: FixtureBars): Instrument[] {
  const cols = {
    time: Float64Array.from(bars.time),
    open: Float64Array.from(bars.open),
    high: Float64Array.from(bars.high),
    low: Float64Array.from(bars.low),
    close: Float64Array.from(bars.close),
    volume: Float64Array.from(bars.volume),
  };
  return bars.time.map((_, t) => ({
    symbol: `P${String(t).padStart(4, "0")}`,
    bars: {
      h1: {
        time: cols.time.subarray(0, t + 1),
        open: cols.open.subarray(0, t + 1),
        high: cols.high.subarray(0, t + 1),
        low: cols.low.subarray(0, t + 1),
        close: cols.close.subarray(0, t + 1),
        volume: cols.volume.subarray(0, t + 1),
      },
    },
  }));
}

/** XQL's value of `call` at every bar: `undefined` where the instrument was not reported. */
function evaluate(call: string, universe: Instrument[]): { values: (number | null | undefined)[]; minLookback: number } {
  const q = compile(`market = "FOREX"\ntimeframe = h1\ncolumns = [${call}]\ntrue`, { lookbackCeiling: 100_000 });
  const values: (number | null | undefined)[] = new Array(universe.length).fill(undefined);
  for (const r of q.run(universe).results) values[Number(r.symbol.slice(1))] = r.columns[call];
  return { values, minLookback: q.plan.sources[0]!.minLookback };
}

/** Within 1e-9 relative, or 1e-9 · min(1, scale) absolute near zero. */
function agrees(a: number, b: number, scale: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(b), Math.min(1, scale));
}

/** The call's value at every bar from a stepper fed the fixture's bars one at a time (null where not finite). */
function stepperValues(c: Case, bars: FixtureBars): (number | null)[] {
  const m = FUNCTIONS.get(c.function)!;
  const column = (name: string): Float64Array => Float64Array.from(bars[name as keyof FixtureBars] as readonly number[]);
  const inputs: Float64Array[] = [];
  const consts: number[] = [];
  for (const p of m.params) {
    const given = c.params[p.name];
    if (p.kind === "series") inputs.push(column(String(given ?? p.default)));
    else consts.push(Number(given));
  }
  for (const col of m.implicit) inputs.push(column(col));
  return Array.from(steppedValues(m, inputs, consts), (v) => (Number.isFinite(v) ? v : null));
}

const patternBars = new Map<string, number>();
const exactBars = new Map<string, number>();
const exactExample = new Map<string, string>();
const checked = new Set<string>();

describe.each(FIXTURES.map((f) => [f.series, f] as const))("TA-Lib fixtures: %s", (_series, fixture) => {
  const universe = prefixes(fixture.bars);
  const n = fixture.bars.time.length;

  it.each(fixture.cases.map((c) => [c.call, c] as const))("%s", (_call, c) => {
    expect(FUNCTIONS.has(c.function), `'${c.function}' has no module in the registry (fixture ${c.call})`).toBe(true);
    const { values, minLookback } = evaluate(c.call, universe);
    const first = c.output.findIndex((v) => v !== null);
    expect(first, `TA-Lib ${c.talib} has no output`).toBeGreaterThanOrEqual(0);
    // Lookback: XQL's first value is at L − 1, the bar of TA-Lib's first output.
    expect(minLookback - 1, `L − 1 of ${c.call} vs TA-Lib ${c.talib}'s lookback`).toBe(first);
    const scale = Math.max(...c.output.map((v) => Math.abs(v ?? 0)));
    const exact = EXACT[c.function];
    const failures: string[] = [];
    for (let i = 0; i < n; i++) {
      const ours = values[i];
      const ref = c.output[i];
      if (i < first) {
        if (ours !== undefined) failures.push(`bar ${i}: XQL reports ${ours} before L − 1 = ${first}`);
        continue;
      }
      if (ref === null) {
        failures.push(`bar ${i}: TA-Lib has no output after its first`);
        continue;
      }
      if (ours === undefined) {
        failures.push(`bar ${i}: XQL reports nothing from bar L − 1 = ${first} on`);
        continue;
      }
      if (c.kind === "boolean") {
        if (ours !== ref) failures.push(`bar ${i}: XQL ${ours}, TA-Lib ${ref}`);
        continue;
      }
      if (ours !== null && agrees(ours, ref, scale)) continue;
      const e = exact?.(fixture.bars, c.params, i);
      if (e === undefined) {
        failures.push(`bar ${i}: XQL ${ours}, TA-Lib ${ref} (no exact rule for ${c.function})`);
      } else if (e === null ? ours !== null : ours === null || !agrees(ours, e, scale)) {
        failures.push(`bar ${i}: XQL ${ours}, exact ${e}, TA-Lib ${ref}`);
      } else if (e !== null && agrees(ref, e, scale)) {
        failures.push(`bar ${i}: XQL ${ours} differs from TA-Lib ${ref}, which is exact (${e})`);
      } else {
        const key = `${c.function} (${fixture.series})`;
        exactBars.set(key, (exactBars.get(key) ?? 0) + 1);
        if (!exactExample.has(key)) exactExample.set(key, `${c.call} at bar ${i}: TA-Lib ${ref}, exact ${e}, XQL ${ours}`);
      }
    }
    expect(failures.slice(0, 10), `${c.call} on ${fixture.series} vs TA-Lib ${c.talib}`).toEqual([]);
    // Through the stepper: the run's value at every bar it reports, bit for bit.
    const stepped = stepperValues(c, fixture.bars);
    const apart: string[] = [];
    for (let i = first; i < n; i++) {
      const ours = stepped[i];
      if (!Object.is(ours, values[i])) apart.push(`bar ${i}: stepper ${ours}, run ${values[i]}`);
    }
    expect(apart.slice(0, 10), `${c.call} on ${fixture.series} through the stepper`).toEqual([]);
    checked.add(c.function);
    if (c.kind === "boolean") {
      patternBars.set(c.function, (patternBars.get(c.function) ?? 0) + c.output.filter((v) => v === 1).length);
    }
  });
});

describe("TA-Lib coverage", () => {
  it("every candlestick pattern is true on some fixture bars", () => {
    const patterns = FIXTURES.flatMap((f) => f.cases.filter((c) => c.kind === "boolean").map((c) => c.function));
    const counts = new Map<string, number>();
    for (const f of FIXTURES) {
      for (const c of f.cases) {
        if (c.kind === "boolean") counts.set(c.function, (counts.get(c.function) ?? 0) + c.output.filter((v) => v === 1).length);
      }
    }
    for (const p of patterns) expect(counts.get(p), p).toBeGreaterThan(0);
  });

  afterAll(() => {
    const lines = [...patternBars].map(([p, k]) => `  ${p}: ${k} true bars`);
    const exact = [...exactBars].map(([f, k]) => `  ${f}: ${k} bars, e.g. ${exactExample.get(f)}`);
    console.log(
      `TA-Lib reference: ${checked.size} functions checked at every bar.\n` +
        `Candlestick patterns (true bars over all fixtures):\n${lines.join("\n")}\n` +
        `Bars where TA-Lib's shortcut is off the exact value and XQL is on it:\n${exact.join("\n") || "  none"}`,
    );
  });
});
