import { describe, expect, it } from "vitest";
import { parse } from "../../src/ast/lower.js";
import { check } from "../../src/check/check.js";
import { children, type IrNode } from "../../src/check/ir.js";
import { closest, editDistance, withSuggestion } from "../../src/suggest.js";
import { XqlError } from "../../src/errors.js";

const HEADER = 'market = "FOREX"\ntimeframe = h1\n';
const checked = (body: string, markets?: readonly string[]) => {
  const text = HEADER + body;
  return check(parse(text), text, markets);
};

/** The error of `HEADER + body`, with its offset relative to the body. */
function checkError(body: string, markets?: readonly string[]): { message: string; at: number } {
  try {
    checked(body, markets);
  } catch (error) {
    const e = error as XqlError;
    expect(e.stage).toBe("check");
    expect(e.type).toBe("syntax");
    return { message: e.message, at: e.position!.offset - HEADER.length };
  }
  throw new Error("expected an error");
}

describe("suggestions", () => {
  it("measures edit distance", () => {
    expect(editDistance("rsii", "rsi")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("abcdef", "x", 2)).toBe(3);
  });

  it("suggests the closest name within distance 2, ties by case-folded distance, then alphabetically", () => {
    expect(closest("rsii", ["rsi", "roc", "sma"])).toBe("rsi");
    expect(closest("m2", ["m5", "m1"])).toBe("m1");
    expect(closest("zzzz", ["rsi", "close"])).toBeUndefined();
    expect(closest("close", ["close"])).toBeUndefined();
    // A tie goes to the name that differs only in case, then alphabetically.
    expect(closest("Sma", ["ema", "sma", "wma"])).toBe("sma");
    expect(closest("Sma", ["wma", "ema"])).toBe("ema");
    expect(closest("CLose", ["close", "clone"])).toBe("close");
    expect(withSuggestion("Unknown identifier 'closs'", "closs", ["close"])).toBe("Unknown identifier 'closs', did you mean 'close'?");
    expect(withSuggestion("Unknown identifier 'zzzz'", "zzzz", ["close"])).toBe("Unknown identifier 'zzzz'");
  });
});

describe("names", () => {
  it("gives the spec's messages for unknown names", () => {
    expect(checkError("rsii(14) < 30")).toEqual({ message: "Unknown identifier 'rsii', did you mean 'rsi'?", at: 0 });
    expect(checkError("zzzz < 30")).toEqual({ message: "Unknown identifier 'zzzz'", at: 0 });
  });

  it("suggests lets in scope, and only those", () => {
    expect(checkError("let spread = high - low\nspred > 0").message).toBe("Unknown identifier 'spred', did you mean 'spread'?");
    expect(checkError("let a = sprea > 0\nlet spread = 1\na").message).toBe("Unknown identifier 'sprea'");
  });

  it("tells functions, series and lets apart", () => {
    expect(checkError("close > sma")).toEqual({ message: "'sma' is a function; call it with arguments, as in close > sma(200)", at: 8 });
    expect(checkError("close(2) > 0")).toEqual({ message: "'close' is a series, not a function", at: 0 });
    expect(checkError("let a = close\na(2) > 0")).toEqual({ message: "'a' is a let binding, not a function", at: 14 });
  });

  it("forbids redefinition, self and forward reference, and shadowing built-ins", () => {
    expect(checkError("let a = 1\nlet a = 2\ntrue")).toEqual({ message: "Duplicate let 'a'", at: 14 });
    expect(checkError("let a = a\ntrue")).toEqual({ message: "Let 'a' cannot refer to itself", at: 8 });
    expect(checkError("let a = b\nlet b = 1\ntrue")).toEqual({ message: "Let 'b' is used before its definition; move it above", at: 8 });
    expect(checkError("let ema = 1\ntrue")).toEqual({ message: "'ema' is a built-in function and cannot be redefined by let", at: 4 });
    expect(checkError("let hl2 = 1\ntrue")).toEqual({ message: "'hl2' is a built-in series and cannot be redefined by let", at: 4 });
  });

  it("lets columns and sort use lets written after them", () => {
    expect(() => checked("columns = [x]\nsort = x desc\nlet x = close * 2\nx > 0")).not.toThrow();
  });
});

describe("types, arity and lengths", () => {
  it("reports arity at the callee name with the signature", () => {
    expect(checkError("close > 1 and rsi(close, 14, 3) < 30")).toEqual({
      message: "Function 'rsi' takes 1 or 2 arguments (rsi([src,], n)), got 3",
      at: 14,
    });
    expect(checkError("abs() > 0").message).toBe("Function 'abs' takes 1 argument (abs(x)), got 0");
    expect(checkError("crossover(close) and true").message).toBe("Function 'crossover' takes 2 arguments (crossover(a, b)), got 1");
    expect(checkError("bb_upper(1) > 0").message).toBe("Function 'bb_upper' takes 2 or 3 arguments (bb_upper([src,], n, k)), got 1");
  });

  it("reports type errors at the offending operand", () => {
    expect(checkError("close > 1 and volume")).toEqual({ message: "Each side of 'and' must be a boolean, got a number", at: 14 });
    // Parentheses leave no node: the operand starts at its first token inside them.
    expect(checkError("close + (open > 1) > 0")).toEqual({ message: "Each side of '+' must be a number, got a boolean", at: 9 });
    expect(checkError("not close")).toEqual({ message: "The operand of 'not' must be a boolean, got a number", at: 4 });
    expect(checkError("-(close > 1)")).toEqual({ message: "The operand of '-' must be a number, got a boolean", at: 2 });
    expect(checkError("sma(close, 10) > ema(close > 1, 5)")).toEqual({ message: "Argument 'src' of ema must be a number, got a boolean", at: 21 });
    expect(checkError("rsi(14)")).toEqual({ message: "The condition must be a boolean, got a number; compare it, as in rsi(14) < 30", at: 0 });
  });

  it("reports length and literal errors at the argument", () => {
    expect(checkError("sma(close, 1 + 1) > 0")).toEqual({ message: "Length 'n' of sma must be a positive integer literal, as in close > sma(200)", at: 11 });
    expect(checkError("sma(close, 0) > 0")).toEqual({ message: "Length 'n' of sma must be a positive integer, got 0", at: 11 });
    expect(checkError("macd_signal(12, 26, 1.5) > 0")).toEqual({ message: "Length 'signal' of macd_signal must be a positive integer, got 1.5", at: 20 });
    expect(checkError("close > bb_lower(20, close)")).toEqual({ message: "Argument 'k' of bb_lower must be a number literal, as in close < bb_lower(20, 2)", at: 21 });
  });

  it("accepts a negated multiplier and booleans in columns and sort", () => {
    expect(() => checked("columns = [close > open, 1]\nsort = close > open desc\nclose > bb_lower(20, -2)")).not.toThrow();
  });
});

describe("settings", () => {
  it("reports a duplicate setting at its second occurrence", () => {
    expect(checkError("limit = 1\nlimit = 2\ntrue")).toEqual({ message: "Duplicate setting 'limit'", at: 10 });
    expect(checkError('market = "CRYPTO"\ntrue')).toEqual({ message: "Duplicate setting 'market'", at: 0 });
  });

  it("reports a duplicate column at its second occurrence", () => {
    expect(checkError("columns = [close, rsi(14), close]\ntrue")).toEqual({ message: "Duplicate column 'close'", at: 27 });
  });

  it("treats columns with different text as different", () => {
    const q = checked("columns = [rsi(14), rsi( 14 )]\ntrue");
    expect(q.columns.map((c) => c.text)).toEqual(["rsi(14)", "rsi( 14 )"]);
    // ...though they are one node of the IR.
    expect(q.columns[0]!.ir).toBe(q.columns[1]!.ir);
  });

  it("matches the market case-insensitively and keeps the configured spelling", () => {
    const text = 'market = "nasdaq"\ntimeframe = d\ntrue';
    expect(check(parse(text), text, ["NYSE", "Nasdaq"]).market).toBe("Nasdaq");
  });

  it("reports an unknown market at its string with the known ones", () => {
    const text = 'market = "FORX"\ntimeframe = h1\ntrue';
    expect(() => check(parse(text), text)).toThrow("Unknown market 'FORX', did you mean 'FOREX'?; known markets: FOREX, CRYPTO");
  });
});

describe("first error in source order", () => {
  it("reports the earliest of several checker errors", () => {
    expect(checkError("columns = [qqqq]\nlet a = xxxx\nyyyy > 0").message).toBe("Unknown identifier 'qqqq'");
    expect(checkError("sort = x\nlet x = qqqq\nx > 0").message).toBe("Unknown identifier 'qqqq'");
    expect(checkError("closs + (open > 1) > 0").message).toBe("Unknown identifier 'closs', did you mean 'close'?");
  });

  it("does not cascade from one mistake", () => {
    expect(checkError("let a = qqqq\na > 0 and a < 1").message).toBe("Unknown identifier 'qqqq'");
  });
});

describe("the checked IR", () => {
  const nodes = (root: IrNode): IrNode[] => {
    const seen = new Set<IrNode>();
    const stack = [root];
    while (stack.length) {
      const n = stack.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...children(n));
    }
    return [...seen];
  };

  it("shares identical subexpressions across columns, sort, lets and condition", () => {
    const q = checked("columns = [rsi(14)]\nsort = rsi(14) desc\nlet r = rsi(close, 14)\nr < 30 and rsi(14) > 10");
    expect(q.columns[0]!.ir).toBe(q.sort[0]!.ir);
    const rsis = nodes(q.condition.ir).filter((n) => n.op === "call");
    expect(rsis).toHaveLength(1);
    expect(rsis[0]).toBe(q.columns[0]!.ir);
  });

  it("fills the default source and splits lengths into constants", () => {
    const ir = checked("highest(20) > 0").condition.ir;
    const call = nodes(ir).find((n) => n.op === "call")!;
    expect(call).toMatchObject({ op: "call", consts: [20], args: [{ op: "series", series: { name: "high" } }] });
  });

  it("flattens and/or chains, parenthesized or not", () => {
    const ir = checked("(true and false) and (true and close > 1)").condition.ir;
    expect(ir).toMatchObject({ op: "and" });
    expect(children(ir).map((n) => n.op)).toEqual(["boolean", "boolean", "boolean", "compare"]);
  });
});
