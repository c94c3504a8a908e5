import { describe, expect, it } from "vitest";
import { compile, explain, validate } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import { printQuery } from "../../src/ast/print.js";
import { XqlError } from "../../src/errors.js";
import * as core from "../../src/index.js";
import { expectErrorShape } from "../syntax/positions.js";

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';
const SPEC_EXAMPLE =
  'market = "FOREX"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nlet avgv = avg(volume, 20)\nrsi(14) < 30 and volume > avgv * 2 and close > d::sma(200)';

describe("validate and explain return the HTTP bodies", () => {
  it("answers a valid query with exactly {valid: true}", () => {
    expect(validate(SPEC_EXAMPLE)).toEqual({ valid: true });
  });

  it("explains the spec's example", () => {
    expect(explain(SPEC_EXAMPLE)).toEqual({
      plan: {
        market: "FOREX",
        sources: [
          { timeframe: "h1", series: ["close", "volume"], minLookback: 20 },
          { timeframe: "d", series: ["close"], minLookback: 200 },
        ],
      },
      explanation:
        "Matches when rsi(14) < 30 and volume > avgv * 2 and close > d::sma(200), where avgv = avg(volume, 20). Returns close, rsi(14), sorted by rsi(14) ascending, at most 20 results.",
    });
  });

  it("answers an empty query with a syntax error at 1:1", () => {
    expect(validate("")).toEqual({
      valid: false,
      error: {
        type: "syntax",
        message: "Missing condition: a query ends with a boolean condition, such as rsi(14) < 30",
        position: { line: 1, column: 1, offset: 0 },
      },
    });
  });

  it("gives the spec's messages exactly", () => {
    expect(validate(`${HEADER}rsi(14`)).toEqual({
      valid: false,
      error: { type: "syntax", message: "Unexpected end of input, expected ')'", position: { line: 3, column: 7, offset: HEADER.length + 6 } },
    });
    expect(validate(`${HEADER}rsii(14) < 30`)).toEqual({
      valid: false,
      error: { type: "syntax", message: "Unknown identifier 'rsii', did you mean 'rsi'?", position: { line: 3, column: 1, offset: HEADER.length } },
    });
    expect(validate(`${HEADER}zzzz(14) < 30`)).toMatchObject({ error: { message: "Unknown identifier 'zzzz'" } });
    expect(validate(`${HEADER}close > d::sma(400)`)).toEqual({
      valid: false,
      error: { type: "plan", message: "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars" },
    });
  });

  it("fails explain with the same body as validate, without plan or explanation", () => {
    const text = `${HEADER}rsii(14) < 30`;
    expect(explain(text)).toEqual(validate(text));
  });

  it("reports syntax errors before plan errors", () => {
    expect(validate("zzzz > 0")).toMatchObject({ error: { type: "syntax" } });
  });

  it("answers a non-string query with a syntax error instead of throwing", () => {
    expect(validate(42 as unknown as string)).toEqual({
      valid: false,
      error: { type: "syntax", message: "The query must be a string", position: { line: 1, column: 1, offset: 0 } },
    });
  });
});

describe("options", () => {
  it("takes custom markets, matched case-insensitively and reported as configured", () => {
    const options = { markets: ["NYSE", "Nasdaq"] };
    const result = explain('market = "nasdaq"\ntimeframe = d\nclose > 0', options);
    expect(result).toMatchObject({ plan: { market: "Nasdaq" } });
    expect(validate(`${HEADER}true`, options)).toMatchObject({
      error: { type: "syntax", message: "Unknown market 'FOREX'; known markets: NYSE, Nasdaq", position: { offset: 9 } },
    });
    expect(explain('market = "forex"\ntimeframe = h1\ntrue')).toMatchObject({ plan: { market: "FOREX" } });
  });

  it("takes a custom lookback ceiling", () => {
    expect(validate(`${HEADER}close > d::sma(400)`, { lookbackCeiling: 400 })).toEqual({ valid: true });
    expect(validate(`${HEADER}rsi(14) < 30`, { lookbackCeiling: 14 })).toEqual({
      valid: false,
      error: { type: "plan", message: "Lookback of 15 bars on timeframe h1 exceeds the ceiling of 14 bars" },
    });
  });

  it("rejects malformed options as a programming error", () => {
    expect(() => validate(`${HEADER}true`, { lookbackCeiling: 0 })).toThrow(TypeError);
    expect(() => validate(`${HEADER}true`, { lookbackCeiling: 2.5 })).toThrow(TypeError);
    expect(() => validate(`${HEADER}true`, { markets: "FOREX" as unknown as string[] })).toThrow(TypeError);
  });
});

describe("compile", () => {
  it("gives the plan and explanation of explain", () => {
    const compiled = compile(SPEC_EXAMPLE);
    const explained = explain(SPEC_EXAMPLE);
    expect({ plan: compiled.plan, explanation: compiled.explanation }).toEqual(explained);
  });

  it("throws one XqlError carrying the body", () => {
    try {
      compile(`${HEADER}rsi(14`);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(XqlError);
      const e = error as XqlError;
      expect(e.type).toBe("syntax");
      expect(e.message).toBe("Unexpected end of input, expected ')'");
      expect(e.position).toEqual({ line: 3, column: 7, offset: HEADER.length + 6 });
      expect(e.toResult()).toEqual(validate(`${HEADER}rsi(14`));
    }
    expect(() => compile(`${HEADER}close[301] > 0`)).toThrow(XqlError);
  });

  it("is exported from the core barrel", () => {
    expect(core.validate).toBe(validate);
    expect(core.explain).toBe(explain);
    expect(core.compile).toBe(compile);
    expect(core.XqlError).toBe(XqlError);
  });
});

describe("robustness", () => {
  it("rejects 20,000 open parentheses with a positioned syntax error", () => {
    const text = `${HEADER}${"(".repeat(20_000)}`;
    const error = expectErrorShape(text, validate(text));
    expect(error.message).toBe("Expression nested too deeply: at most 64 levels of parentheses, brackets and prefix operators");
    expect(error.position!.offset).toBe(HEADER.length + 64);
  });

  it("rejects 20,000 history offsets in a row the same way", () => {
    const text = `${HEADER}close${"[0]".repeat(20_000)} > 0`;
    expect(expectErrorShape(text, validate(text)).message).toMatch(/^Expression nested too deeply/);
  });

  it("refuses 60 KB of 'or' chain after lexing (the cost guard's token limit) and validates the longest chain allowed", () => {
    const chain = (count: number): string => HEADER + Array.from({ length: count }, (_, i) => `close > ${i}`).join(" or ");
    const long = chain(4_000);
    expect(long.length).toBeGreaterThanOrEqual(60_000);
    const refused = expectErrorShape(long, validate(long));
    expect(refused.message).toMatch(/^Query too long: at most 4000 tokens \(names, numbers, operators\), this one has 16005$/);
    // 4 tokens per term (3 for the last) and 6 for the settings: 998 terms stay within the limit.
    const text = chain(998);
    expect(validate(text)).toEqual({ valid: true });
    const result = explain(text);
    expect(result).toMatchObject({ plan: { sources: [{ timeframe: "h1", series: ["close"], minLookback: 1 }] } });
    // The printer walks the chain without recursion; a deep toEqual of 5,000 levels would not.
    const printed = printQuery(parse(text));
    expect(printQuery(parse(printed))).toBe(printed);
    expect(printed).toBe(text);
  });

  it("validates an arithmetic chain up to the token limit", () => {
    const terms: string[] = [];
    for (let i = 0, tokens = 9; tokens < 3_990; i++) {
      terms.push(i % 3 === 0 ? "close" : i % 3 === 1 ? `${i} * volume` : `sma(${(i % 50) + 1})`);
      tokens += i % 3 === 0 ? 2 : i % 3 === 1 ? 4 : 5;
    }
    const text = `${HEADER}${terms.join(" + ")} > 0`;
    expect(validate(text)).toEqual({ valid: true });
    // 50 distinct sma kernels over 300 bars, and some 1,300 products at the latest bar only.
    expect(validate(text, { costBudget: 15_000 })).toMatchObject({ valid: false, error: { type: "plan", message: expect.stringMatching(/^Query too costly to run: its cost is 16,862 bar-steps/) } });
    expect(explain(text)).toMatchObject({ plan: { sources: [{ timeframe: "h1", series: ["close", "volume"], minLookback: 50 }] } });
  });

  it("allows astral characters in comments and reports them as stray tokens at their UTF-16 offset", () => {
    expect(validate(`${HEADER}// 🚀📈 to the moon\nclose > 0 // 🌙`)).toEqual({ valid: true });
    const text = `${HEADER}close > 0 and 📈 > 1`;
    expect(validate(text)).toEqual({
      valid: false,
      error: { type: "syntax", message: "Unexpected character '📈'", position: { line: 3, column: 15, offset: text.indexOf("📈") } },
    });
    const after = `// 🚀\nclose @`;
    expect(validate(after)).toMatchObject({ error: { position: { line: 2, column: 7, offset: 12 } } });
  });

  it("reads \\r and \\r\\n line endings for line and column", () => {
    const crlf = 'market = "FOREX"\r\ntimeframe = h1\r\nrsi(14 < 30';
    expect(validate(crlf)).toEqual({
      valid: false,
      error: { type: "syntax", message: "Unexpected end of input, expected ')'", position: { line: 3, column: 12, offset: crlf.length } },
    });
    const cr = 'market = "FOREX"\rtimeframe = h1\r\rzzzz > 0';
    expect(validate(cr)).toMatchObject({ error: { message: "Unknown identifier 'zzzz'", position: { line: 4, column: 1, offset: cr.indexOf("zzzz") } } });
    expect(validate('market = "FOREX"\r\ntimeframe = h1\rclose > 0\n')).toEqual({ valid: true });
  });

  it("reports end-of-input errors at offset = text.length", () => {
    for (const text of [`${HEADER}close >`, `${HEADER}close > (1`, `${HEADER}columns = [close`, `${HEADER}let a =`]) {
      const error = expectErrorShape(text, validate(text));
      expect(error.position!.offset).toBe(text.length);
    }
  });
});
