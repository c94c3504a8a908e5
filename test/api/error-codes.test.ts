/**
 * Errors are raised by code (src/errors.ts): `fail(code, params, at)` renders the catalogue's
 * template, and `XqlError.code` is the code the error was raised with, in the library only.
 */
import { describe, expect, it } from "vitest";
import { compile, validate, XqlError } from "../../src/index.js";
import { ERROR_CATALOGUE, errorMessage, fail, type ErrorCode } from "../../src/errors.js";

function thrown(query: unknown): XqlError {
  try {
    compile(query as string);
  } catch (e) {
    expect(e).toBeInstanceOf(XqlError);
    return e as XqlError;
  }
  return expect.fail("expected an error");
}

describe("XqlError.code", () => {
  it("is the catalogue code of the error, and never part of the body", () => {
    const error = thrown('market = "FOREX"\ntimeframe = h1\nrsii(14) < 30');
    expect(error.code).toBe("unknown-identifier");
    expect(Object.keys(error.body).sort()).toEqual(["message", "position", "type"]);
    expect(JSON.stringify(error.toResult())).not.toContain("code");
  });

  it("is set for the errors no query text gives", () => {
    expect(thrown(42).code).toBe("query-not-string");
    expect(validate(42 as unknown as string)).toEqual({
      valid: false,
      error: { type: "syntax", message: "The query must be a string", position: { line: 1, column: 1, offset: 0 } },
    });
  });

  it("is the code raised, whatever else the message would resemble", () => {
    // A let named like a keyword's miscasing is legal; used as a value the checker names the
    // miscased keyword, and the code says so rather than "unknown identifier".
    expect(thrown('market = "FOREX"\ntimeframe = h1\nAND').code).toBe("miscased-keyword");
    expect(thrown('market = "FOREX"\ntimeframe = h1\nclose > sma(400)').code).toBe("lookback-ceiling");
  });
});

describe("fail(code, params, at)", () => {
  it("renders the template with the parameters, at the position of the offset", () => {
    const text = 'market = "FOREX"\ntimeframe = h1\nrsii(14) < 30';
    const error = fail("unknown-identifier", { name: "rsii", suggestion: "rsi" }, { text, offset: 32, stage: "check" });
    expect(error.code).toBe("unknown-identifier");
    expect(error.stage).toBe("check");
    expect(error.body).toEqual({
      type: "syntax",
      message: "Unknown identifier 'rsii', did you mean 'rsi'?",
      position: { line: 3, column: 1, offset: 32 },
    });
    // The library raises exactly this error for that text.
    expect(thrown(text).body).toEqual(error.body);
  });

  it("gives plan errors no position", () => {
    const error = fail("lookback-ceiling", { lookback: 400, timeframe: "d", ceiling: 300 });
    expect(error.body).toEqual({ type: "plan", message: "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars" });
    expect(error.position).toBeUndefined();
    expect(error.stage).toBe("plan");
  });

  it("renders optional parts only when given", () => {
    expect(errorMessage("unknown-identifier", { name: "zzzz" })).toBe("Unknown identifier 'zzzz'");
    expect(errorMessage("unknown-market", { market: "NYSE", known: ["FOREX", "CRYPTO"] })).toBe("Unknown market 'NYSE'; known markets: FOREX, CRYPTO");
    expect(errorMessage("unknown-market", { market: "CRYPT", suggestion: "CRYPTO", known: [] })).toBe("Unknown market 'CRYPT', did you mean 'CRYPTO'?");
    expect(errorMessage("unknown-timeframe", { timeframe: "1h", suggestion: "h1", known: ["h1", "d"] })).toBe(
      "Unknown timeframe '1h', did you mean 'h1'? Timeframes are h1 d",
    );
    expect(errorMessage("unknown-timeframe", { timeframe: "zz", known: ["h1", "d"] })).toBe("Unknown timeframe 'zz'; Timeframes are h1 d");
    expect(errorMessage("arity", { name: "rsi", min: 1, max: 2, signature: "rsi([src,], n)", got: 3 })).toBe(
      "Function 'rsi' takes 1 or 2 arguments (rsi([src,], n)), got 3",
    );
    expect(errorMessage("arity", { name: "abs", min: 1, max: 1, signature: "abs(x)", got: 0 })).toBe("Function 'abs' takes 1 argument (abs(x)), got 0");
    expect(errorMessage("cost-budget", { cost: 123456, budget: 100000 })).toMatch(/its cost is 123,456 bar-steps per instrument, above the budget of 100,000;/);
  });
});

describe("ERROR_CATALOGUE", () => {
  it("lists every code once, in the order of docs/errors.md, with a template and an example", () => {
    const codes: ErrorCode[] = ERROR_CATALOGUE.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const e of ERROR_CATALOGUE) {
      expect(e.template.length, e.code).toBeGreaterThan(0);
      expect(e.example.length, e.code).toBeGreaterThan(0);
      expect(e.stages.length, e.code).toBeGreaterThan(0);
      // Plan errors are raised by the planner alone; a syntax error may be noticed by several stages.
      if (e.type === "plan") expect(e.stages).toEqual(["plan"]);
    }
  });
});
