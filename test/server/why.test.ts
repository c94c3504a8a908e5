/**
 * POST /xql/why over real HTTP on loopback and a real SQLite file (decisions §11): metered as
 * one run, the tree's values equal to run's columns at the latest bar and history's at an
 * earlier one, 404 for a symbol without bars, validate's 400 for a bad query.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HOUR, barOpen } from "../kit/index.js";
import { NOW, startServer, type Running } from "./helpers.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 495 and d::close > 0';
const LATEST = barOpen("h1", NOW);

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const why = (s: Running, body: object, key: string) => s.post("/xql/why", JSON.stringify(body), key, { "content-type": "application/json" });

describe("POST /xql/why", () => {
  it("answers the tree at the latest bar, metered as one run", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const response = await why(server, { query: QUERY, symbol: "EURUSD" }, key);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("29");
    const body = (await response.json()) as { symbol: string; time: number; matched: boolean; columns: object; tree: { expr: string; value: boolean; children: { expr: string; value: boolean; children: { expr: string; value: number; time?: number }[] }[] } };
    expect(body).toMatchObject({ symbol: "EURUSD", time: LATEST, matched: true, columns: { close: 499 } });
    expect(body.tree.expr).toBe("close > 495 and d::close > 0");
    expect(body.tree.children.map((c) => [c.expr, c.value])).toEqual([["close > 495", true], ["d::close > 0", true]]);
    expect(body.tree.children[0]!.children).toEqual([{ expr: "close", value: 499 }, { expr: "495", value: 495 }]);
    // The daily close read is the last day closed by the h1 bar's close.
    expect(body.tree.children[1]!.children[0]!.time).toBeLessThan(LATEST);
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(1);
  });

  it("answers at an earlier bar as history does there; GBPUSD does not match", async () => {
    server = await startServer();
    const { key } = await server.key("plus");
    const earlier = await why(server, { query: QUERY, symbol: "EURUSD", time: new Date(LATEST - 4 * HOUR).toISOString() }, key);
    const body = (await earlier.json()) as { time: number; matched: boolean; columns: { close: number } };
    expect(body).toMatchObject({ time: LATEST - 4 * HOUR, matched: false, columns: { close: 495 } });
    const gbp = (await (await why(server, { query: QUERY, symbol: "GBPUSD", time: LATEST }, key)).json()) as { matched: boolean; tree: { children: { value: boolean }[] } };
    expect(gbp.matched).toBe(false);
    expect(gbp.tree.children[0]!.value).toBe(false);
  });

  it("is a 404 for a symbol without bars, a 400 for a bad query or body; neither consumes quota", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    const missing = await why(server, { query: QUERY, symbol: "NOPE" }, key);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "No bars for NOPE on FOREX h1" });
    const bad = await why(server, { query: 'market = "FOREX"\ntimeframe = h1\nrsl(14) < 30', symbol: "EURUSD" }, key);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { valid: boolean }).valid).toBe(false);
    expect((await why(server, { query: QUERY }, key)).status).toBe(400);
    expect((await why(server, { query: QUERY, symbol: "EURUSD", time: "yesterday" }, key)).status).toBe(400);
    const usage = (await (await server.get("/usage", key)).json()) as { used: number };
    expect(usage.used).toBe(0);
  });
});
