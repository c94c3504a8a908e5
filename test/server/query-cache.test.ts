import { describe, expect, it } from "vitest";
import { compile, explain, validate } from "../../src/api.js";
import { XqlError } from "../../src/errors.js";
import { COMPILED_BYTES_PER_CHAR, QueryCache } from "../../src/server/query-cache.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import type { CompiledQuery } from "../../src/api.js";

const GOOD = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nrsi(14) < 30';
const BAD = 'market = "FOREX"\ntimeframe = h1\nrsi(14 < 30';

describe("QueryCache", () => {
  it("answers exactly what validate, explain and compile answer", () => {
    const cache = new QueryCache({});
    for (const text of [GOOD, BAD, "", GOOD, BAD]) {
      expect(cache.validate(text)).toEqual(validate(text));
      expect(cache.explain(text)).toEqual(explain(text));
      const compiled = cache.compile(text);
      if (compiled instanceof XqlError) expect(compiled.toResult()).toEqual(validate(text));
      else expect(compiled.plan).toEqual(compile(text).plan);
    }
  });

  it("does the work once per text", () => {
    const cache = new QueryCache({});
    expect(cache.compile(GOOD)).toBe(cache.compile(GOOD));
    expect(cache.validate(BAD)).toBe(cache.validate(BAD));
  });

  it("honours the server's options", () => {
    const cache = new QueryCache({ markets: ["STOCKS"] });
    expect(cache.validate('market = "stocks"\ntimeframe = d\ntrue')).toEqual({ valid: true });
    expect(cache.validate('market = "FOREX"\ntimeframe = d\ntrue').valid).toBe(false);
  });

  it("keeps texts within its budget in bytes, never a long one", () => {
    // Validate results weigh little: three of them fit in 1,000 bytes, and a long text is never kept.
    const small = new QueryCache({}, 1000, 100);
    small.validate(GOOD);
    small.validate(BAD);
    small.validate(`${GOOD} // 3`);
    expect(small.size).toBe(3);
    expect(small.bytes).toBeLessThanOrEqual(1000);
    small.validate(`${GOOD}\n// ${"x".repeat(200)}`);
    expect(small.size).toBe(3);
    expect(new QueryCache({}, 0).validate(GOOD)).toEqual({ valid: true });
  });

  it("weighs a compiled query by its text and its evaluator's buffers, and evicts whatever is read later", () => {
    const budget = 100 * COMPILED_BYTES_PER_CHAR * GOOD.length;
    const cache = new QueryCache({}, budget);
    const compiled = cache.compile(GOOD) as CompiledQuery;
    const before = cache.bytes;
    expect(before).toBeGreaterThan(COMPILED_BYTES_PER_CHAR * GOOD.length);
    // A run over 5,000 bars grows the evaluator's buffers; weighed again, the entry is heavier.
    compiled.run(syntheticUniverse({ market: "FOREX", symbols: 2, timeframes: ["h1"], bars: 5000 }));
    cache.reweigh(GOOD);
    expect(cache.bytes).toBeGreaterThan(before + 5000 * 8);
    // Many distinct texts (a comment apiece, as an attacker varies them) never exceed the budget.
    for (let i = 0; i < 300; i++) cache.compile(`${GOOD} // ${i}`);
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    expect(cache.size).toBeLessThan(300);
  });
});
