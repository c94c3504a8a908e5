/** The editor services on their own: properties over generated queries, and the edges. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validate } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import { printQuery } from "../../src/ast/print.js";
import { complete, diagnose, format, hover, scan, signatureHelp } from "../../src/editor/index.js";
import { arbitraryMutation, arbitraryQuery } from "../../src/testing/index.js";

const nearValid = arbitraryQuery().chain(({ text }) => arbitraryMutation(text));

describe("format", () => {
  it("gives the same query, and is a fixed point", () => {
    fc.assert(
      fc.property(arbitraryQuery(), ({ text }) => {
        const once = format(text);
        expect(once).toBeDefined();
        expect(printQuery(parse(once!))).toBe(printQuery(parse(text)));
        expect(format(once!)).toBe(once);
      }),
      { numRuns: 150 },
    );
  });

  it("keeps every comment", () => {
    const text = '// a screen\nmarket = "FOREX" // fx\n\n// the base\ntimeframe = h1\nclose > 1 // last\n// end';
    const out = format(text)!;
    for (const c of ["// a screen", "// fx", "// the base", "// last", "// end"]) expect(out).toContain(c);
    expect(out).toBe('// a screen\nmarket = "FOREX" // fx\n// the base\ntimeframe = h1\nclose > 1 // last\n// end\n');
  });

  it("keeps a comment written inside an expression after the same token, and goes on on the next line", () => {
    const head = 'market = "FOREX"\ntimeframe = h1\n';
    const cases: [string, string][] = [
      ["rsi(14) < 30 and // oversold\nvolume > avg(volume, 20)", "rsi(14) < 30 and // oversold\n  volume > avg(volume, 20)\n"],
      ["rsi(14)<30 and\n// volume confirms\nvolume>avg(volume,20)", "rsi(14) < 30 and\n  // volume confirms\n  volume > avg(volume, 20)\n"],
      ["let a = (close + // c1\n open) / 2 // tail\n(a > 1) and (rsi(14) // r\n < 30)", "let a = (close + // c1\n  open) / 2 // tail\na > 1 and rsi(14) // r\n  < 30\n"],
      ["columns = // the columns\n[close, rsi(14)]\nclose > 2.50", "columns = // the columns\n  [close, rsi(14)]\nclose > 2.5\n"],
      ["sort = rsi(14) // by rsi\n desc\nclose > 1", "sort = rsi(14) // by rsi\n  desc\nclose > 1\n"],
      ["d:: // daily\nclose > 1 and // one\n// two\nclose > 2", "d:: // daily\n  close > 1 and // one\n  // two\n  close > 2\n"],
    ];
    for (const [body, expected] of cases) {
      const once = format(head + body);
      expect(once, body).toBe(head + expected);
      expect(format(once!), body).toBe(once);
    }
  });

  it("keeps a comment put after any token where it was: after the same token, once", () => {
    const code = (text: string) => scan(text).filter((p) => p.type !== "Comment" && p.type !== "Invalid");
    fc.assert(
      fc.property(arbitraryQuery(), fc.nat(), ({ text }, n) => {
        const tokens = code(text);
        const index = n % tokens.length;
        const anchor = tokens[index]!;
        // A column's text is its result key: a comment there is part of the column.
        const inColumns = parse(text).statements.some((st) => st.kind === "columns" && st.span.start <= anchor.start && anchor.end < st.span.end);
        fc.pre(!inColumns && anchor.type !== "LParen" && anchor.type !== "RParen" && anchor.type !== "Semicolon");
        const commented = `${text.slice(0, anchor.end)} // note\n${text.slice(anchor.end)}`;
        const once = format(commented);
        expect(once).toBeDefined();
        expect(printQuery(parse(once!))).toBe(printQuery(parse(text)));
        expect(format(once!)).toBe(once);
        const at = once!.indexOf("// note");
        expect(once!.indexOf("// note", at + 1)).toBe(-1);
        const printed = code(once!.slice(0, at));
        // A comment between a statement's last token and a `;` the next line needs is printed
        // after the `;`, at the end of the statement's line (docs/editors.md).
        const before = printed.at(-1)!.type === "Semicolon" && tokens[index + 1]?.type === "Semicolon" ? printed.at(-2)! : printed.at(-1)!;
        // The printer writes numbers canonically (2.50 → 2.5): compare their values.
        if (anchor.type === "NumberLiteral") expect(Number(before.image)).toBe(Number(anchor.image));
        else expect(before.image).toBe(anchor.image);
      }),
      { numRuns: 150 },
    );
  });

  it("puts a comment written before a needed ';' after the ';', and keeps one before a ';' it drops", () => {
    const head = 'market = "CRYPTO"\ntimeframe = h1\n';
    expect(format(`${head}let a = close // note\n;\n-a < 1`)).toBe(`${head}let a = close; // note\n-a < 1\n`);
    expect(format(`${head}let a = close // note\n;\na > 1`)).toBe(`${head}let a = close // note\na > 1\n`);
  });

  it("leaves a query that does not parse alone", () => {
    expect(format("market = (")).toBeUndefined();
  });
});

describe("diagnose", () => {
  it("reports exactly validate's error, starting at its offset, inside the text", () => {
    fc.assert(
      fc.property(nearValid, (text) => {
        const result = validate(text);
        const found = diagnose(text);
        if (result.valid) {
          expect(found).toEqual([]);
          return;
        }
        expect(found).toHaveLength(1);
        expect(found[0]!.message).toBe(result.error.message);
        if (result.error.position) expect(found[0]!.start).toBe(result.error.position.offset);
        expect(found[0]!.end).toBeGreaterThanOrEqual(found[0]!.start);
        expect(found[0]!.end).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe("signature help", () => {
  const activeAt = (text: string): string | undefined => {
    const help = signatureHelp(text, text.length);
    return help === undefined ? undefined : help.parameters[help.active]!.name;
  };

  it("takes a series as first argument for the source, and a number for the length after a left-out source", () => {
    const head = 'market = "FOREX"\ntimeframe = h1\n';
    expect(activeAt(`${head}bb_upper(close, `)).toBe("n");
    expect(activeAt(`${head}bb_upper(close, 20, `)).toBe("k");
    expect(activeAt(`${head}bb_upper((high + low) / 2, `)).toBe("n");
    expect(activeAt(`${head}bb_upper(d::close[1], `)).toBe("n");
    expect(activeAt(`${head}bb_upper(20, `)).toBe("k");
    expect(activeAt(`${head}bb_upper(close`)).toBe("src");
    expect(activeAt(`${head}rsi(`)).toBe("n");
    expect(activeAt(`${head}rsi(14`)).toBe("n");
    expect(activeAt(`${head}rsi(hl2, `)).toBe("n");
    expect(activeAt(`${head}stochrsi_k(close, 14, `)).toBe("k");
    expect(activeAt(`${head}stochrsi_k(14, 14, `)).toBe("smooth");
    // Functions without an optional source count commas only.
    expect(activeAt(`${head}correl(close, open, `)).toBe("n");
  });

  it("on a whole call agrees with the checker about which parameter each argument is", () => {
    const head = 'market = "FOREX"\ntimeframe = h1\n';
    for (const call of ["bb_upper(close, 20, 2)", "bb_upper(20, 2)", "macd_signal(hl2, 12, 26, 9)", "macd_signal(12, 26, 9)"]) {
      const text = `${head}${call} > 0`;
      expect(validate(text), call).toEqual({ valid: true });
      const last = text.lastIndexOf(",") + 2;
      const help = signatureHelp(text, last)!;
      expect(help.active, call).toBe(help.fn.params.length - 1);
    }
  });
});

describe("scan, complete, hover and signature help never throw and stay inside the text", () => {
  it("on near-valid text at every offset", () => {
    fc.assert(
      fc.property(nearValid, fc.nat(), (text, n) => {
        const offset = text.length === 0 ? 0 : n % (text.length + 1);
        const pieces = scan(text);
        for (const p of pieces) expect(text.slice(p.start, p.end)).toBe(p.image);
        const c = complete(text, offset);
        expect(c.from).toBeGreaterThanOrEqual(0);
        expect(c.to).toBeLessThanOrEqual(text.length);
        expect(c.from).toBeLessThanOrEqual(c.to);
        const h = hover(text, offset);
        if (h) expect(h.end).toBeLessThanOrEqual(text.length);
        const s = signatureHelp(text, offset);
        if (s) expect(s.active).toBeLessThan(s.fn.params.length);
      }),
      { numRuns: 200 },
    );
  });
});
