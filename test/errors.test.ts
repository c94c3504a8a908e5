/**
 * Errors are raised by code (src/errors.ts, docs/errors.md "Raising errors"): the rule read off
 * the source, so it stays true as code is added, and the coded errors outside the query as a
 * caller meets them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DATA_ERROR_CATALOGUE, ERROR_CATALOGUE, XqlDataError, errorMessage, messageOf } from "../src/errors.js";
import { CsvImportError } from "../src/ingest/errors.js";
import { BarsCsvParser, normalizeMarket } from "../src/ingest/csv.js";
import { checkedScope } from "../src/accounts/records.js";
import { compile } from "../src/index.js";

const SRC = new URL("../src/", import.meta.url).pathname;

/** Every TypeScript file under src/, by its path from src/. */
function sources(dir = SRC): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") ? [{ path: relative(SRC, full), text: readFileSync(full, "utf8") }] : [];
  });
}

/** `path:line: text` of each line of src/ the pattern matches (comments included: a rule holds in examples too). */
function offending(pattern: RegExp, except: (path: string, line: string) => boolean = () => false): string[] {
  return sources().flatMap(({ path, text }) =>
    text.split("\n").flatMap((line, i) => (pattern.test(line) && !except(path, line) ? [`${path}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe("the rule, read off src/", () => {
  it("makes a plain Error only for what cannot happen, and says so: throw new Error(\"internal: …\")", () => {
    // A user's mistake, a bad file, a refusing store or feed is an XqlDataError (or an area's
    // subclass) with a catalogue code; `new Error` is left for a broken invariant.
    expect(offending(/\bnew Error\(/, (_, line) => /throw new Error\((`|")internal: /.test(line))).toEqual([]);
    const internal = offending(/throw new Error\((`|")internal: /);
    expect(internal.length).toBeGreaterThan(0);
  });

  it("never throws a string", () => {
    expect(offending(/\bthrow\s+(["'`]|String\()/)).toEqual([]);
  });

  it("has one messageOf, in src/errors.ts, and no inline copy of it", () => {
    expect(offending(/instanceof Error \? \w+\.message : String\(/, (path) => path === "errors.ts")).toEqual([]);
    expect(offending(/function messageOf\(/, (path) => path === "errors.ts")).toEqual([]);
  });

  it("never tells an error's kind from its message's first words", () => {
    // The one exception is not ours: undici's fetch reports a dropped body as a bare TypeError
    // whose message is all there is (sync-http.ts checks the cause's errno code first).
    const foreign = (path: string) => path === "ingest/sync-http.ts";
    expect(offending(/\.(message|reason)\.(startsWith|endsWith)\(|\.(message|reason) === "/, foreign)).toEqual([]);
    expect(offending(/\.test\(\w+\.message\)/, foreign)).toEqual([]);
  });

  it("raises every code of the catalogue outside the query somewhere, and lists none twice", () => {
    const text = sources()
      .filter(({ path }) => path !== "errors.ts")
      .map(({ text }) => text)
      .join("\n");
    expect(DATA_ERROR_CATALOGUE.map((e) => e.code).filter((code) => !text.includes(`"${code}"`))).toEqual([]);
    const codes = [...ERROR_CATALOGUE.map((e) => e.code), ...DATA_ERROR_CATALOGUE.map((e) => e.code)];
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("documents every code outside the query in docs/errors.md", () => {
    const docs = readFileSync(new URL("../docs/errors.md", import.meta.url), "utf8");
    expect(DATA_ERROR_CATALOGUE.map((e) => e.code).filter((code) => !docs.includes(`\`${code}\``))).toEqual([]);
  });
});

describe("errors outside the query, as a caller meets them", () => {
  it("carry their code, the message rendered from the catalogue, and no stage or position", () => {
    const error = new XqlDataError("account-unknown", { account: "acc_nope" });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("XqlDataError");
    expect(error.code).toBe("account-unknown");
    expect(error.message).toBe("No account 'acc_nope'");
    expect(error.message).toBe(errorMessage("account-unknown", { account: "acc_nope" }));
    expect(error).not.toHaveProperty("position");
  });

  it("bars a run cannot evaluate: bars-times, with the message as before", () => {
    const bars = { time: [2, 1], open: [1, 1], high: [1, 1], low: [1, 1], close: [1, 1], volume: [0, 0] };
    let thrown: unknown;
    try {
      compile('market = "TEST"\ntimeframe = h1\nclose > 0', { markets: ["TEST"] }).run([{ symbol: "X", bars: { h1: bars } }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(XqlDataError);
    expect((thrown as XqlDataError).code).toBe("bars-times");
    expect(messageOf(thrown)).toBe("Instrument 'X', timeframe h1: bar times must be finite and strictly increasing, oldest first (time[1] = 1 after 2)");
  });

  it("an import's options: each mistake its own code, the words as the CLI shows them", () => {
    expect(() => normalizeMarket("my market")).toThrow(expect.objectContaining({ code: "import-market", message: "Invalid market name 'my market': use letters, digits and _ (starting with a letter)" }));
    expect(() => new BarsCsvParser({ market: "FOREX", timeframe: "1h" })).toThrow(expect.objectContaining({ code: "import-timeframe" }));
    expect(() => new BarsCsvParser({ market: "FOREX", timeframe: "h1", tz: "Mars/Olympus" }).push("2026.01.02,00:00,1,1,1,1,0", 1)).toThrow(
      expect.objectContaining({ code: "import-time-zone" }),
    );
    expect(() => new BarsCsvParser({ market: "FOREX", timeframe: "h1" }).push("2026.01.02,00:00,1,1,1,1,0", 1)).toThrow(
      expect.objectContaining({ code: "import-needs-symbol", message: expect.stringMatching(/: its rows carry no symbol; give --symbol S$/) }),
    );
    expect(() => checkedScope("admin")).toThrow(expect.objectContaining({ code: "key-scope", message: "Unknown scope 'admin': use run or write" }));
  });

  it("a bad line of a file: a CsvImportError (an XqlDataError) at its line, where the decoder threw a LineError", () => {
    const parser = new BarsCsvParser({ market: "FOREX", timeframe: "h1" });
    parser.push("symbol,time,open,high,low,close,volume", 1);
    let thrown: unknown;
    try {
      parser.push('EURUSD,"2026-01-02T00:00:00Z,1,1,1,1,0', 2);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CsvImportError);
    expect(thrown).toBeInstanceOf(XqlDataError);
    expect(thrown).toMatchObject({ name: "CsvImportError", code: "import-line", line: 2, reason: "unterminated quoted field", message: "line 2: unterminated quoted field" });
  });

  it("a file without bars says so by code, so a push can say it in its own words", () => {
    const parser = new BarsCsvParser({ market: "FOREX", timeframe: "h1" });
    parser.push("", 1);
    expect(() => parser.finish()).toThrow(expect.objectContaining({ code: "import-empty", message: "the file holds no bars" }));
  });

  it("messageOf shows anything thrown", () => {
    expect(messageOf(new Error("disk full"))).toBe("disk full");
    expect(messageOf("text")).toBe("text");
    expect(messageOf(undefined)).toBe("undefined");
  });
});
