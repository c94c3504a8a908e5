/**
 * Names that are also properties of every JavaScript object (issue 24.7): a column written
 * `__proto__` used to set the result row's prototype instead of a key, and vanished from the
 * answer of the library and the service. Such a column is now defined as a key of its own.
 */
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import type { Instrument } from "../../src/types.js";
import { rampBars } from "../kit/index.js";
import { NOW, startServer, type Running } from "./helpers.js";
import { barOpen } from "../kit/index.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\nlet __proto__ = close\nlet constructor = open\ncolumns = [__proto__, close, constructor]\nsort = __proto__ desc\n__proto__ > 498';

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("a let or column named __proto__", () => {
  // EURUSD closes 100..499 on h1 (the test server's seed): only its latest bar closes above 498.
  const universe: Instrument[] = [{ symbol: "EURUSD", bars: { h1: rampBars("h1", 400, barOpen("h1", NOW), 100) } }];
  const expected = [{ symbol: "EURUSD", columns: { ["__proto__"]: 499, close: 499, constructor: 498.5 } }];

  it("is a column like any other in the library, in run and history", () => {
    const q = compile(QUERY);
    const { results } = q.run(universe);
    expect(JSON.parse(JSON.stringify(results))).toEqual(expected);
    expect(Object.keys(results[0]!.columns)).toEqual(["__proto__", "close", "constructor"]);
    const { matches } = q.history(universe, { bars: 3 });
    expect(Object.keys(matches[0]!.columns)).toEqual(["__proto__", "close", "constructor"]);
  });

  it("is a column like any other in the service, in run and history", async () => {
    server = await startServer();
    const { key } = await server.key("plus");
    const run = await server.post("/xql/run", QUERY, key);
    const text = await run.text();
    expect(text).toContain('"__proto__":499');
    expect((JSON.parse(text) as { results: unknown }).results).toEqual(expected);
    const history = await (await server.post("/xql/history?bars=3", QUERY, key)).text();
    expect(history).toContain('"columns":{"__proto__":499,"close":499,"constructor":');
    // why's columns too (they were assigned, so `__proto__` went missing from its answer).
    const why = await (await server.post("/xql/why", JSON.stringify({ query: QUERY, symbol: "EURUSD" }), key, { "content-type": "application/json" })).text();
    expect(why).toContain('"columns":{"__proto__":499,"close":499,"constructor":498.5}');
  });
});
