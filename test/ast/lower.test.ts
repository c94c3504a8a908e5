import { describe, expect, it } from "vitest";
import { parse } from "../../src/ast/lower.js";
import type { Binary, Call, Condition, Expression, History, TimeframePrefix } from "../../src/ast/nodes.js";
import { printExpression, printQuery } from "../../src/ast/print.js";
import { XqlError } from "../../src/errors.js";
import { stripSpans } from "../../src/testing/index.js";

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';
const condition = (text: string): Expression => (parse(HEADER + text).statements.at(-1) as Condition).expression;
const shape = (text: string): unknown => stripSpans(condition(text));

function lowerError(text: string): { message: string; offset: number; stage: string } {
  try {
    parse(text);
  } catch (error) {
    const e = error as XqlError;
    return { message: e.message, offset: e.position!.offset, stage: e.stage };
  }
  throw new Error("expected an error");
}

describe("lowering to the AST", () => {
  it("keeps every statement in source order with its spans", () => {
    const text = 'market = "FOREX"\ntimeframe = h1\nlimit = 5\nlet a = close\na > 1';
    const q = parse(text);
    expect(q.statements.map((s) => s.kind)).toEqual(["market", "timeframeSetting", "limit", "let", "condition"]);
    expect(q.span).toEqual({ start: 0, end: text.length });
    const market = q.statements[0]!;
    expect(market).toMatchObject({ value: "FOREX", valueSpan: { start: 9, end: 16 }, span: { start: 0, end: 16 } });
    const let_ = q.statements[3]!;
    expect(let_).toMatchObject({ name: "a", nameSpan: { start: text.indexOf("a ="), end: text.indexOf("a =") + 1 } });
  });

  it("unescapes the market string", () => {
    const q = parse('market = "A\\"B\\\\C"\ntimeframe = h1\ntrue');
    expect(q.statements[0]).toMatchObject({ value: 'A"B\\C' });
  });

  it("folds operators of one level to the left", () => {
    expect(printExpression(condition("1 - 2 - 3 > 0"))).toBe("1 - 2 - 3 > 0");
    const sum = (condition("1 - 2 - 3 > 0") as Binary).left as Binary;
    expect(sum.operator).toBe("-");
    expect((sum.left as Binary).operator).toBe("-");
    expect(sum.right).toMatchObject({ kind: "number", value: 3 });
  });

  it("follows the precedence table of the spec", () => {
    expect(shape("a or b and not c")).toEqual({
      kind: "binary",
      operator: "or",
      left: { kind: "identifier", name: "a" },
      right: {
        kind: "binary",
        operator: "and",
        left: { kind: "identifier", name: "b" },
        right: { kind: "unary", operator: "not", operand: { kind: "identifier", name: "c" } },
      },
    });
    // not < comparison < + - < * / < unary - < tf:: < [n]
    expect(printExpression(condition("not -d::close[1] * 2 + 1 < 3"))).toBe("not -d::close[1] * 2 + 1 < 3");
    const not = condition("not -d::close[1] * 2 + 1 < 3");
    expect(not).toMatchObject({ kind: "unary", operator: "not", operand: { kind: "binary", operator: "<" } });
    const negate = ((((not as { operand: Binary }).operand.left as Binary).left as Binary).left);
    expect(negate).toMatchObject({ kind: "unary", operator: "-" });
    const prefix = (negate as { operand: TimeframePrefix }).operand;
    expect(prefix).toMatchObject({ kind: "timeframe", timeframe: "d", expression: { kind: "history", offset: 1 } });
  });

  it("applies a prefix to the postfix expression only", () => {
    expect(shape("d::close * 2 > 1")).toMatchObject({ left: { left: { kind: "timeframe" }, right: { kind: "number" } } });
    const history = condition("(d::close)[1] > 1") as Binary;
    expect((history.left as History).expression.kind).toBe("timeframe");
  });

  it("keeps column text exactly as written, trimmed", () => {
    const q = parse(`${HEADER}columns = [  rsi( 14 ) ,close*2,\n d::close[1] // last day\n]\ntrue`);
    const columns = q.statements.find((s) => s.kind === "columns");
    expect(columns && columns.kind === "columns" && columns.columns.map((c) => c.text)).toEqual([
      "rsi( 14 )",
      "close*2",
      "d::close[1] // last day",
    ]);
  });

  it("defaults the sort direction to asc", () => {
    const q = parse(`${HEADER}sort = close, open desc\ntrue`);
    expect(q.statements[2]).toMatchObject({ keys: [{ direction: "asc" }, { direction: "desc" }] });
  });

  it("records the callee and its span", () => {
    const call = (condition("  rsi(14) < 30") as Binary).left as Call;
    expect(call).toMatchObject({ callee: "rsi", calleeSpan: { start: HEADER.length + 2, end: HEADER.length + 5 } });
    expect(call.span).toEqual({ start: HEADER.length + 2, end: HEADER.length + 9 });
  });
});

describe("structural errors", () => {
  it("requires a condition, reported at the end of input", () => {
    expect(lowerError("")).toEqual({ message: "Missing condition: a query ends with a boolean condition, such as rsi(14) < 30", offset: 0, stage: "lower" });
    expect(lowerError(HEADER)).toMatchObject({ offset: HEADER.length });
  });

  it("allows exactly one condition, last", () => {
    expect(lowerError(`${HEADER}true\nfalse`)).toMatchObject({ message: "A query has exactly one condition; combine conditions with 'and' or 'or'", offset: HEADER.length + 5 });
    expect(lowerError(`${HEADER}true\nlet a = 1`)).toMatchObject({ message: "The condition must be the last statement; write settings and lets before it", offset: HEADER.length + 5 });
  });

  it("rejects unknown timeframes at their token, with a suggestion", () => {
    const list = "Timeframes are m1 m5 m15 m30 h1 h4 d w";
    expect(lowerError('market = "FOREX"\ntimeframe = h2\ntrue')).toMatchObject({ message: `Unknown timeframe 'h2', did you mean 'h1'? ${list}`, offset: 29 });
    expect(lowerError(`${HEADER}close > mo::close`)).toMatchObject({ message: `Unknown timeframe 'mo::', did you mean 'm1::'? ${list}`, offset: HEADER.length + 8 });
    expect(lowerError(`${HEADER}close > month::close`)).toMatchObject({ message: `Unknown timeframe 'month::'; ${list}` });
  });

  it("names the timeframe meant by a common spelling, in the setting and as a prefix, at its token", () => {
    const list = "Timeframes are m1 m5 m15 m30 h1 h4 d w";
    const setting = (tf: string) => lowerError(`market = "FOREX"\ntimeframe = ${tf}\ntrue`);
    for (const [written, meant] of [["1h", "h1"], ["15m", "m15"], ["4h", "h4"], ["4H", "h4"], ["1d", "d"], ["daily", "d"], ["D", "d"], ["1w", "w"], ["weekly", "w"], ["60", "h1"], ["H1", "h1"]]) {
      expect(setting(written!)).toMatchObject({ message: `Unknown timeframe '${written}', did you mean '${meant}'? ${list}`, offset: 29 });
    }
    expect(lowerError(`${HEADER}close > 1d::sma(200)`)).toMatchObject({ message: `Unknown timeframe '1d::', did you mean 'd::'? ${list}`, offset: HEADER.length + 8 });
    expect(lowerError(`${HEADER}close > daily::sma(200)`)).toMatchObject({ message: `Unknown timeframe 'daily::', did you mean 'd::'? ${list}`, offset: HEADER.length + 8 });
    expect(lowerError(`${HEADER}close > 15m::close`)).toMatchObject({ message: `Unknown timeframe '15m::', did you mean 'm15::'? ${list}`, offset: HEADER.length + 8 });
  });

  it("checks limits, offsets, chained comparisons and huge numbers", () => {
    expect(lowerError(`${HEADER}limit = 0\ntrue`)).toMatchObject({ message: "Limit must be an integer from 1 to 10000, got 0", offset: HEADER.length + 8 });
    expect(lowerError(`${HEADER}close[2.5] > 0`)).toMatchObject({ offset: HEADER.length + 6 });
    expect(lowerError(`${HEADER}1 < 2 <= 3`)).toMatchObject({ message: "Comparisons cannot be chained; join them with 'and', as in a < b and b < c", offset: HEADER.length + 6 });
    expect(lowerError(`${HEADER}close > 1e309`)).toMatchObject({ message: "Number '1e309' is too large", offset: HEADER.length + 8 });
  });

  it("hints at keywords typed in another case, wherever the mistake surfaces", () => {
    expect(lowerError(`${HEADER}close > 1 AND close < 2`)).toMatchObject({ message: "Unexpected 'AND'; keywords are lower case: did you mean 'and'?", offset: HEADER.length + 10 });
    expect(lowerError(`${HEADER}NOT close > 1`)).toMatchObject({ message: "Unexpected 'NOT'; keywords are lower case: did you mean 'not'?", offset: HEADER.length });
    expect(lowerError(`MARKET = "FOREX"\ntimeframe = h1\ntrue`)).toMatchObject({ message: "Unexpected 'MARKET'; keywords are lower case: did you mean 'market'?", offset: 0, stage: "parse" });
    expect(lowerError(`${HEADER}sort = close Desc\ntrue`)).toMatchObject({ message: "Unexpected 'Desc'; keywords are lower case: did you mean 'desc'?" });
  });

  it("lets a name spelled like a keyword in another case stand when nothing is wrong", () => {
    expect(() => parse(`${HEADER}let And = close\nAnd > 1`)).not.toThrow();
  });
});

describe("canonical printer", () => {
  const canonical = (text: string): string => printQuery(parse(HEADER + text)).slice(HEADER.length);

  it("normalizes spacing and drops redundant parentheses", () => {
    expect(canonical("((close>(1)))and(volume>2)")).toBe("close > 1 and volume > 2");
    expect(canonical("rsi( close ,14 )<30")).toBe("rsi(close, 14) < 30");
  });

  it("keeps the parentheses the tree needs", () => {
    expect(canonical("(a or b) and c")).toBe("(a or b) and c");
    expect(canonical("a - (b - c) > 0")).toBe("a - (b - c) > 0");
    expect(canonical("a / (b * c) > 0")).toBe("a / (b * c) > 0");
    expect(canonical("-(a + b) > 0")).toBe("-(a + b) > 0");
    expect(canonical("(a < b) == (c < d)")).toBe("(a < b) == (c < d)");
    expect(canonical("(d::close)[1] > 0")).toBe("(d::close)[1] > 0");
    expect(canonical("not (a and b)")).toBe("not (a and b)");
    expect(canonical("d::(high - low) > 0")).toBe("d::(high - low) > 0");
  });

  it("prints numbers as JavaScript does", () => {
    expect(canonical("close > 1e6 and close > 2.50 and close > 1E-3")).toBe("close > 1000000 and close > 2.5 and close > 0.001");
  });

  it("prints settings one per line, columns as written", () => {
    expect(printQuery(parse('timeframe=h1 market="FOREX" columns=[close*2 ,  rsi(14)] sort=close limit=3 true'))).toBe(
      'timeframe = h1\nmarket = "FOREX"\ncolumns = [close*2, rsi(14)]\nsort = close asc\nlimit = 3\ntrue',
    );
  });

  it("ends a let with ';' when the next line would otherwise continue it", () => {
    const text = `${HEADER}let a = close;\n(a > 1 or a < 0) and true`;
    expect(printQuery(parse(text))).toBe(text);
    expect(printQuery(parse(`${HEADER}let a = close;-a < 0`))).toBe(`${HEADER}let a = close;\n-a < 0`);
    expect(printQuery(parse(`${HEADER}let a = close;a > 0`))).toBe(`${HEADER}let a = close\na > 0`);
  });

  it("puts back the line break a column's comment needs", () => {
    const text = `${HEADER}columns = [close // price\n]\ntrue`;
    const printed = printQuery(parse(text));
    expect(stripSpans(parse(printed))).toEqual(stripSpans(parse(text)));
  });
});
