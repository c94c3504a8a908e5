import { describe, expect, it } from "vitest";
import { compile, explain, validate } from "../../src/api.js";
import { XqlError } from "../../src/errors.js";
import { QueryCache } from "../../src/server/query-cache.js";

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

  it("keeps at most `capacity` texts and never a long one", () => {
    const cache = new QueryCache({}, 2, 100);
    cache.validate(GOOD);
    cache.validate(BAD);
    cache.validate(`${GOOD} // 3`);
    expect(cache.size).toBe(2);
    cache.validate(`${GOOD}\n// ${"x".repeat(200)}`);
    expect(cache.size).toBe(2);
    expect(new QueryCache({}, 0).validate(GOOD)).toEqual({ valid: true });
  });
});
