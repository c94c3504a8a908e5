/**
 * `truncateInstrument` (src/eval/truncate.ts), the cut shared by the alert engine and the
 * playground's chart: against a cut written here from the closed-bar rule, on typed and plain
 * columns, with the store's mark kept and an uncut instrument returned as it is.
 */
import { describe, expect, it } from "vitest";
import { isTrusted, trustBars } from "../../src/eval/bars.js";
import { truncateInstrument } from "../../src/eval/truncate.js";
import type { Bars, Instrument, Timeframe } from "../../src/types.js";
import { TIMEFRAME_MS } from "../../src/types.js";
import { HOUR, MONDAY, asPlainArrays, tickWalk } from "../kit/index.js";

function instrument(): Instrument {
  return {
    symbol: "AAA",
    bars: {
      m15: asPlainArrays(tickWalk({ seed: 1, count: 400, timeframe: "m15", start: MONDAY, vol: 0.01 })),
      h1: tickWalk({ seed: 2, count: 100, timeframe: "h1", start: MONDAY, vol: 0.01 }),
      d: trustBars(tickWalk({ seed: 3, count: 5, timeframe: "d", start: MONDAY, vol: 0.01 })),
    },
  };
}

/** The rule, written out: base bars opening by `latest`, others opening before its close. */
function expected(inst: Instrument, base: Timeframe, latest: number): Record<string, number[]> {
  const close = latest + TIMEFRAME_MS[base];
  const out: Record<string, number[]> = {};
  for (const [tf, b] of Object.entries(inst.bars) as [Timeframe, Bars][]) {
    out[tf] = Array.from(b.time).filter((t) => (tf === base ? t <= latest : t < close));
  }
  return out;
}

describe("truncateInstrument", () => {
  it("cuts every timeframe at the base bar's close, columns of one length", () => {
    const inst = instrument();
    const h1 = inst.bars.h1!;
    for (const t of [0, 1, 23, 24, 50, 98]) {
      const latest = h1.time[t]!;
      const cut = truncateInstrument(inst, "h1", latest);
      const want = expected(inst, "h1", latest);
      for (const [tf, b] of Object.entries(cut.bars) as [Timeframe, Bars][]) {
        expect(Array.from(b.time), `${tf} at ${t}`).toEqual(want[tf]);
        for (const column of ["open", "high", "low", "close", "volume"] as const) expect(b[column].length).toBe(b.time.length);
        expect(Array.from(b.close)).toEqual(Array.from(inst.bars[tf]!.close).slice(0, b.time.length));
      }
    }
  });

  it("keeps the store's mark on a prefix of the store's bars and only there", () => {
    const inst = instrument();
    const cut = truncateInstrument(inst, "h1", MONDAY + 30 * HOUR);
    expect(cut.bars.d!.time.length).toBe(2);
    expect(isTrusted(cut.bars.d!)).toBe(true);
    expect(isTrusted(cut.bars.h1!)).toBe(false);
    expect(cut.bars.h1!.time).toBeInstanceOf(Float64Array);
    expect(Array.isArray(cut.bars.m15!.time)).toBe(true);
  });

  it("returns the instrument itself when nothing is cut", () => {
    const inst = instrument();
    const last = inst.bars.h1!.time[99]!;
    // The day bars end on Friday, the m15 bars on Friday 04:00: all opened before the last h1 bar's close.
    expect(truncateInstrument(inst, "h1", last)).toBe(inst);
    expect(truncateInstrument(inst, "h1", inst.bars.h1!.time[98]!)).not.toBe(inst);
  });
});
