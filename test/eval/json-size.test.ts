/**
 * Counting an answer's JSON without writing it (src/json-size.ts), and history's `maxBytes`:
 * the count equals `Buffer.byteLength(JSON.stringify(...))`, and history stops with a plan error
 * the moment its matches would exceed the bound.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compile } from "../../src/api.js";
import { XqlError } from "../../src/errors.js";
import { ColumnsSize, matchBytes, resultBytes, runResultBytes, utf8Bytes } from "../../src/json-size.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";

/** Any UTF-16 text, lone surrogates included (fast-check's "binary" unit is slow to generate). */
const text = (maxLength: number) => fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength }).map((units) => String.fromCharCode(...units));
const value = fc.oneof(fc.double(), fc.constant(null), fc.integer(), fc.constantFrom(0.1 + 0.2, -0, 1e21, 5e-324, Number.MAX_VALUE));

describe("JSON sizes", () => {
  it("counts UTF-8 bytes as Buffer does, astral characters and lone surrogates included", () => {
    fc.assert(
      fc.property(text(64), (t) => {
        expect(utf8Bytes(t)).toBe(Buffer.byteLength(t));
      }),
    );
    expect(utf8Bytes("\ud83d")).toBe(Buffer.byteLength("\ud83d"));
  });

  it("counts a history match and a run result exactly", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(text(12), { maxLength: 6 }),
        fc.array(value, { minLength: 6, maxLength: 6 }),
        text(12),
        fc.integer({ min: 0, max: 2 ** 50 }),
        (keys, values, symbol, time) => {
          const columns: Record<string, number | null> = Object.create(null);
          keys.forEach((k, i) => (columns[k] = values[i]!));
          const size = new ColumnsSize(keys);
          const json = JSON.stringify(columns);
          expect(size.bytes(columns)).toBe(Buffer.byteLength(json));
          // With the comma that separates it from the next.
          expect(matchBytes(time, symbol, size.bytes(columns))).toBe(Buffer.byteLength(JSON.stringify({ time, symbol, columns })) + 1);
          expect(resultBytes(symbol, size.bytes(columns))).toBe(Buffer.byteLength(JSON.stringify({ symbol, columns })) + 1);
        },
      ),
    );
  });

  it("counts a run's results as the array written", () => {
    const q = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(14), close > 0 // ü\n]\ntrue');
    const result = q.run(syntheticUniverse({ market: "CRYPTO", symbols: 30, timeframes: ["h1"], bars: 300 }));
    const exact = Buffer.byteLength(JSON.stringify(result.results));
    expect(runResultBytes(result)).toBe(exact);
    expect(runResultBytes({ results: [] })).toBe(2);
  });
});

describe("history's maxBytes", () => {
  const query = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, volume]\ntrue');
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: 20, timeframes: ["h1"], bars: 400 });
  const whole = query.history(universe, { bars: 50 });
  const bytes = Buffer.byteLength(JSON.stringify(whole.matches));

  it("gives the same answer when the matches fit, to the byte", () => {
    expect(query.history(universe, { bars: 50, maxBytes: bytes })).toEqual(whole);
    expect(() => query.history(universe, { bars: 50, maxBytes: bytes - 1 })).toThrow(XqlError);
  });

  it("throws a plan error, not the answer, when they do not", () => {
    let error: unknown;
    try {
      query.history(universe, { bars: 50, maxBytes: bytes - 100 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(XqlError);
    expect((error as XqlError).body).toEqual({
      type: "plan",
      message: `Response too large: its JSON would exceed ${(bytes - 100).toLocaleString("en-US")} bytes; use fewer columns, shorter column expressions or a limit, or ask history for fewer bars`,
    });
    expect((error as XqlError).code).toBe("response-too-large");
  });

  it("counts only the rows a limit keeps", async () => {
    const limited = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nlimit = 2\ntrue');
    const kept = limited.history(universe, { bars: 50 });
    expect(kept.matches).toHaveLength(100);
    const exact = Buffer.byteLength(JSON.stringify(kept.matches));
    expect(await limited.historyAsync(universe, { bars: 50, maxBytes: exact })).toEqual(kept);
    expect(() => limited.history(universe, { bars: 50, maxBytes: exact - 1 })).toThrow(XqlError);
  });

  it("refuses a bound that is not a positive number", () => {
    expect(() => query.history(universe, { bars: 5, maxBytes: 0 })).toThrow(RangeError);
  });
});
