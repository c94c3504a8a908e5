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
