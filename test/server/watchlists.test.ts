/**
 * Watchlists over real HTTP on loopback and a real SQLite file (decisions §13): saved per
 * account, unmetered, another account's list is a 404; run and history over a list equal the
 * whole market's filtered to it; a missing list is the plan error; symbols with watchlist a 400.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type Running } from "./helpers.js";
import { checkedFetch } from "./openapi-check.js";

const BODY = "columns = [close]\nclose > 0";
const WHOLE = `market = "FOREX"\ntimeframe = h1\n${BODY}`;
const ON = (name: string): string => `market = "FOREX"\ntimeframe = h1\nwatchlist = "${name}"\n${BODY}`;

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const put = (s: Running, name: string, body: unknown, key: string): Promise<Response> =>
  checkedFetch(`${s.url}/xql/watchlists/${name}`, { method: "PUT", body: typeof body === "string" ? body : JSON.stringify(body), headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } });
const del = (s: Running, name: string, key: string): Promise<Response> =>
  checkedFetch(`${s.url}/xql/watchlists/${name}`, { method: "DELETE", headers: { authorization: `Bearer ${key}` } });

describe("/xql/watchlists", () => {
  it("saves, lists, reads and deletes an account's lists, unmetered; another account sees 404", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const other = await server.key("free");
    const created = await put(server, "majors", { symbols: ["EURUSD", "GBPUSD"] }, key);
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "majors", symbols: ["EURUSD", "GBPUSD"] });
    expect((await put(server, "majors", { symbols: ["EURUSD"] }, key)).status).toBe(200);
    const listed = (await (await server.get("/xql/watchlists", key)).json()) as { watchlists: { name: string; symbols: string[] }[] };
    expect(listed.watchlists.map((w) => [w.name, w.symbols])).toEqual([["majors", ["EURUSD"]]]);
    expect((await server.get("/xql/watchlists/majors", key)).status).toBe(200);
    expect((await server.get("/xql/watchlists/majors", other.key)).status).toBe(404);
    expect((await del(server, "majors", other.key)).status).toBe(404);
    expect(((await (await server.get("/xql/watchlists", other.key)).json()) as { watchlists: unknown[] }).watchlists).toEqual([]);
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(0);
    expect((await del(server, "majors", key)).status).toBe(204);
    expect((await server.get("/xql/watchlists/majors", key)).status).toBe(404);
    expect((await server.get("/xql/watchlists", undefined)).status).toBe(401);
  });

  it("refuses bad names, bad bodies and a 51st list", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    expect((await put(server, "My%20List", { symbols: ["A"] }, key)).status).toBe(400);
    expect((await put(server, "x".repeat(41), { symbols: ["A"] }, key)).status).toBe(400);
    expect(await (await put(server, "a", { symbols: [] }, key)).json()).toEqual({ error: "A watchlist holds 1 to 1000 symbols, got 0" });
    expect((await put(server, "a", { symbols: Array.from({ length: 1001 }, (_, i) => `S${i}`) }, key)).status).toBe(400);
    expect(await (await put(server, "a", { symbols: ["A", "A"] }, key)).json()).toEqual({ error: "Duplicate symbol 'A'" });
    expect((await put(server, "a", "not json", key)).status).toBe(400);
    expect((await put(server, "a", { symbols: [1] }, key)).status).toBe(400);
    for (let i = 0; i < 50; i++) expect((await put(server, `l${i}`, { symbols: ["EURUSD"] }, key)).status).toBe(201);
    expect((await put(server, "l50", { symbols: ["EURUSD"] }, key)).status).toBe(403);
    // Replacing one of the fifty is not a new list.
    expect((await put(server, "l0", { symbols: ["GBPUSD"] }, key)).status).toBe(200);
  });
});

describe('queries over watchlist = "name"', () => {
  it("run and history over a list equal the whole market's filtered to it, with the list's meta", async () => {
    server = await startServer();
    const { key } = await server.key("plus");
    const list = ["GBPUSD", "EURUSD", "NOPE"];
    await put(server, "mine", { symbols: list }, key);
    const whole = (await (await server.post("/xql/run", WHOLE, key)).json()) as { results: { symbol: string }[]; meta: { instruments: number; skipped: { noData: number } } };
    const response = await server.post("/xql/run", ON("mine"), key);
    expect(response.status).toBe(200);
    const got = (await response.json()) as typeof whole;
    expect(got.results).toEqual(whole.results.filter((r) => list.includes(r.symbol)));
    expect(got.meta).toMatchObject({ instruments: 3, skipped: { noData: 1 } });
    const wholeHistory = (await (await server.post("/xql/history?bars=5", WHOLE, key)).json()) as { matches: { symbol: string }[] };
    const history = (await (await server.post("/xql/history?bars=5", ON("mine"), key)).json()) as typeof wholeHistory;
    expect(history.matches).toEqual(wholeHistory.matches.filter((m) => list.includes(m.symbol)));
    // The same text over the list as saved now, not as cached: a changed list changes the answer.
    await put(server, "mine", { symbols: ["USDJPY"] }, key);
    const after = (await (await server.post("/xql/run", ON("mine"), key)).json()) as typeof whole;
    expect(after.results).toEqual(whole.results.filter((r) => r.symbol === "USDJPY"));
  });

  it("a missing list, or another account's, is the plan error; symbols with watchlist a 400", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const other = await server.key("free");
    await put(server, "theirs", { symbols: ["EURUSD"] }, other.key);
    for (const path of ["/xql/run", "/xql/validate", "/xql/explain", "/xql/history"]) {
      const response = await server.post(path, ON("theirs"), key);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ valid: false, error: { type: "plan", message: "Unknown watchlist 'theirs'" } });
    }
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(0);
    const both = await server.post("/xql/validate", `market = "FOREX"\ntimeframe = h1\nsymbols = ["EURUSD"]\nwatchlist = "theirs"\ntrue`, key);
    expect(both.status).toBe(400);
  });

  it("symbols = [...] over HTTP reads only the listed series", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const response = await server.post("/xql/run", `market = "FOREX"\ntimeframe = h1\nsymbols = ["EURUSD", "XXX"]\n${BODY}`, key);
    const body = (await response.json()) as { results: { symbol: string }[]; meta: { instruments: number; skipped: { noData: number } } };
    expect(body.results.map((r) => r.symbol)).toEqual(["EURUSD"]);
    expect(body.meta).toMatchObject({ instruments: 2, skipped: { noData: 1 } });
  });
});
