/** XqlError.code: the stable code of the catalogue (src/errors.ts), in the library only. */
import { describe, expect, it } from "vitest";
import { compile, validate, XqlError } from "../../src/index.js";
import { ERROR_CATALOGUE, errorCodeOf } from "../../src/errors.js";

describe("XqlError.code", () => {
  it("is the catalogue code of the error, and never part of the body", () => {
    try {
      compile('market = "FOREX"\ntimeframe = h1\nrsii(14) < 30');
      expect.fail("expected an error");
    } catch (e) {
      expect(e).toBeInstanceOf(XqlError);
      const error = e as XqlError;
      expect(error.code).toBe("unknown-identifier");
      expect(Object.keys(error.body).sort()).toEqual(["message", "position", "type"]);
      expect(JSON.stringify(error.toResult())).not.toContain("code");
    }
  });

  it("classifies the errors no query text gives", () => {
    const result = validate(42 as unknown as string);
    expect(result.valid).toBe(false);
    if (!result.valid) expect(errorCodeOf(result.error.type, result.error.message)).toBe("query-not-string");
    for (const message of ["Query too complex", "Query too complex to parse", "Query too deeply nested to parse"]) {
      expect(errorCodeOf("syntax", message)).toBe("query-too-complex");
    }
    expect(errorCodeOf("plan", "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars")).toBe("lookback-ceiling");
    // The type counts: a plan message reported as a syntax error is no known kind.
    expect(errorCodeOf("syntax", "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars")).toBe("unclassified");
  });

  it("has unique codes", () => {
    const codes = ERROR_CATALOGUE.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
