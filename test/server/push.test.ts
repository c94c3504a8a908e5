/**
 * `POST /xql/bars` on a real server over loopback and a real SQLite file: scopes, both body
 * kinds, every kind of bad row refused with nothing written, open bars left out, no metering,
 * and pushes racing runs.
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { hashApiKey, issueApiKey } from "../../src/accounts/keys.js";
import { NOW, startServer, type Running } from "./helpers.js";
import { RAW_SERIES } from "../../src/types.js";

const MINUTE = 60_000;
/** The m1 bar in progress at the server's clock (13:25 UTC): it must never be stored. */
const OPEN_M1 = Math.floor(NOW / MINUTE) * MINUTE;

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function writeKey(s: Running, tier: "free" | "plus" = "free"): Promise<string> {
  const issued = await issueApiKey(s.store, { tier, scope: "write", now: NOW });
  expect((await s.store.findKeyByHash(hashApiKey(issued.key)))?.scope).toBe("write");
  return issued.key;
}

function ndjson(rows: readonly Record<string, unknown>[]): string {
  return rows.map((row) => JSON.stringify(row)).join("\n") + "\n";
}

function bar(symbol: string, time: number | string, close: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { market: "CRYPTO", timeframe: "m1", symbol, time, open: close - 1, high: close + 2, low: close - 2, close, volume: 10, ...extra };
}

async function read(s: Running, symbol: string, market = "CRYPTO", timeframe: "m1" | "h1" = "m1") {
  const got = await s.store.latestBars({ market, timeframe, baseTimeframe: timeframe, series: RAW_SERIES, count: 10_000 });
  const bars = got.find((x) => x.symbol === symbol)?.bars;
  if (!bars) return [];
  return Array.from(bars.time, (time, i) => ({ time, open: bars.open[i], high: bars.high[i], low: bars.low[i], close: bars.close[i], volume: bars.volume[i] }));
}

const NDJSON = { "content-type": "application/x-ndjson" };
const CSV = { "content-type": "text/csv" };

describe("POST /xql/bars", () => {
  it("needs a key with the write scope: none is 401, a run key 403 before its body is read", async () => {
    server = await startServer({ seed: false });
    const { key: runKey } = await server.key("plus");
    const body = ndjson([bar("BTCUSDT", OPEN_M1 - MINUTE, 100)]);
    const none = await server.post("/xql/bars", body, undefined, NDJSON);
    expect(none.status).toBe(401);
    const refused = await server.post("/xql/bars", body, runKey, NDJSON);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "This key cannot write bars" });
    expect(await server.store.barCount()).toBe(0);
    // The refusal comes before the upload: a body far over any limit still gets the 403, not a 413.
    const huge = await server.post("/xql/bars", "x".repeat(17 * 1024 * 1024), runKey, NDJSON);
    expect(huge.status).toBe(403);
  });

  it("writes NDJSON bars exactly, leaves the open bar out, replaces on a second push, and meters nothing", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server);
    const rows = [
      bar("BTCUSDT", OPEN_M1 - 2 * MINUTE, 97000.12, { volume: "12.345678" }),
      bar("BTCUSDT", OPEN_M1 - MINUTE, 97010.5),
      bar("BTCUSDT", OPEN_M1, 97020),
      bar("ETHUSDT", new Date(OPEN_M1 - MINUTE).toISOString(), 3100.25, { open: "3100.1" }),
    ];
    const first = await server.post("/xql/bars", ndjson(rows), key, NDJSON);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-xql-open-bars")).toBe("1");
    expect(await first.json()).toEqual({ written: 3, replaced: 0, symbols: 2 });
    expect(await read(server, "BTCUSDT")).toEqual([
      { time: OPEN_M1 - 2 * MINUTE, open: 96999.12, high: 97002.12, low: 96998.12, close: 97000.12, volume: 12.345678 },
      { time: OPEN_M1 - MINUTE, open: 97009.5, high: 97012.5, low: 97008.5, close: 97010.5, volume: 10 },
    ]);
    expect(await read(server, "ETHUSDT")).toEqual([{ time: OPEN_M1 - MINUTE, open: 3100.1, high: 3102.25, low: 3098.25, close: 3100.25, volume: 10 }]);
    // Coarser timeframes are derived from the pushed m1 bars.
    expect((await read(server, "BTCUSDT", "CRYPTO", "h1")).at(-1)?.close).toBe(97010.5);

    const again = await server.post("/xql/bars", ndjson(rows.slice(0, 2)), key, NDJSON);
    expect(await again.json()).toEqual({ written: 2, replaced: 2, symbols: 1 });
    expect(again.headers.get("x-xql-open-bars")).toBe("0");

    const usage = await (await server.get("/usage", key)).json();
    expect(usage).toMatchObject({ used: 0 });
  });

  it("writes CSV in any import format: our CSV with ?market=&timeframe=, a Binance dump with ?symbol=", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server);
    const h = 3_600_000;
    const lastClosed = Math.floor(NOW / h) * h - h;
    const ours = ["symbol,time,open,high,low,close,volume", `EURUSD,${new Date(lastClosed).toISOString()},1.05,1.06,1.04,1.055,100`].join("\n");
    const written = await server.post("/xql/bars?market=forex&timeframe=h1", ours, key, CSV);
    expect(written.status).toBe(200);
    expect(await written.json()).toEqual({ written: 1, replaced: 0, symbols: 1 });
    expect(await read(server, "EURUSD", "FOREX", "h1")).toEqual([{ time: lastClosed, open: 1.05, high: 1.06, low: 1.04, close: 1.055, volume: 100 }]);

    const binance = `${lastClosed},97000.0,97200.0,96900.0,97100.0,5.5,${lastClosed + h - 1},534050.0,1200,2.1,203910.0,0\n`;
    const refused = await server.post("/xql/bars?market=CRYPTO&timeframe=h1", binance, key, CSV);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: "Binance kline dump (12 columns, open time in ms or µs, UTC): its rows carry no symbol; give ?symbol=; nothing was written",
      line: 0,
    });
    const accepted = await server.post("/xql/bars?market=CRYPTO&timeframe=h1&symbol=BTCUSDT", binance, key, { "content-type": "text/csv; charset=utf-8" });
    expect(await accepted.json()).toEqual({ written: 1, replaced: 0, symbols: 1 });
    expect(await read(server, "BTCUSDT", "CRYPTO", "h1")).toEqual([{ time: lastClosed, open: 97000, high: 97200, low: 96900, close: 97100, volume: 5.5 }]);

    for (const [query, message] of [
      ["?timeframe=h1", "A CSV push needs ?market= (e.g. ?market=CRYPTO&timeframe=m1); nothing was written"],
      ["?market=FOREX", "A CSV push needs ?timeframe= (e.g. ?market=CRYPTO&timeframe=m1); nothing was written"],
      ["?market=FOREX&timeframe=1h", "timeframe: Unknown timeframe '1h', did you mean 'h1'? Timeframes are m1 m5 m15 m30 h1 h4 d w; nothing was written"],
    ] as const) {
      const response = await server.post(`/xql/bars${query}`, ours, key, CSV);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: message, line: 0 });
    }
  });

  it("refuses every kind of bad row by its line and field, writing nothing of the push", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server);
    const good = bar("BTCUSDT", OPEN_M1 - 3 * MINUTE, 100);
    const t = OPEN_M1 - MINUTE;
    const cases: [string, string][] = [
      ["{not json", "line 2: not valid JSON"],
      ["[1,2,3]", 'line 2: expected an object {"market", "timeframe", "symbol", "time", "open", "high", "low", "close", "volume"}'],
      [JSON.stringify({ ...bar("BTCUSDT", t, 100), close: undefined }), "line 2: close is missing"],
      [JSON.stringify({ ...bar("BTCUSDT", t, 100), vwap: 1 }), 'line 2: unknown field "vwap"'],
      [JSON.stringify(bar("BTCUSDT", t, 100, { market: 7 })), "line 2: market must be a string, found 7"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { market: "crypto-spot" })), "line 2: market 'crypto-spot' is not a market name"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { timeframe: "1m" })), "line 2: timeframe: Unknown timeframe '1m', did you mean 'm1'?"],
      [JSON.stringify(bar("BTC USDT", t, 100)), "line 2: invalid symbol 'BTC USDT'"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { time: true })), "line 2: time must be a number (ms since the epoch) or ISO 8601 text, found true"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { time: "yesterday" })), "line 2: time 'yesterday' is neither milliseconds since the epoch nor ISO 8601"],
      [JSON.stringify(bar("BTCUSDT", t + 1000, 100)), "line 2: time 2026-11-20T13:24:01.000Z is not the open time of a m1 bar"],
      [JSON.stringify(bar("BTCUSDT", OPEN_M1 + 3 * 86_400_000, 100)), "is in the future: bars may open at most 2 days after now"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { open: null })), "line 2: open must be a number (or decimal text), found null"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { open: "1,5" })), "line 2: open '1,5' is not a finite number"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { high: 99 })), "line 2: high 99 is below open, close or low"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { low: 100.5 })), "line 2: low 100.5 is above open or close"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { volume: -1 })), "line 2: volume -1 is negative"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { high: 2e12 })), "line 2: high 2000000000000 is out of range"],
      [JSON.stringify(bar("BTCUSDT", t, 100, { volume: 1e19 })), "line 2: volume 10000000000000000000 is out of range"],
      [JSON.stringify(bar("BTCUSDT", OPEN_M1 - 3 * MINUTE, 100)), "line 2: duplicate bar for BTCUSDT at 2026-11-20T13:22:00.000Z (first on line 1)"],
      // Market names match case-insensitively: "crypto" is the market of line 1 too.
      [JSON.stringify(bar("BTCUSDT", OPEN_M1 - 3 * MINUTE, 100, { market: "crypto" })), "line 2: duplicate bar for BTCUSDT at 2026-11-20T13:22:00.000Z (first on line 1)"],
    ];
    const version = await server.store.dataVersion();
    for (const [line, message] of cases) {
      const response = await server.post("/xql/bars", `${JSON.stringify(good)}\n${line}\n${JSON.stringify(bar("ETHUSDT", t, 50))}\n`, key, NDJSON);
      expect(response.status, line).toBe(400);
      const body = (await response.json()) as { error: string; line: number };
      expect(body.error, line).toContain(message);
      expect(body.error).toMatch(/; nothing was written$/);
      expect(body.line).toBe(2);
    }
    const csv = await server.post("/xql/bars?market=CRYPTO&timeframe=m1", `BTCUSDT,${t - MINUTE},100,101,99,100,1\nBTCUSDT,${t},100,99,99,100,1\n`, key, CSV);
    expect(await csv.json()).toEqual({ error: "line 2: high 99 is below open, close or low; nothing was written", line: 2 });
    const empty = await server.post("/xql/bars", "\n\n", key, NDJSON);
    expect(await empty.json()).toEqual({ error: "the body holds no bars; nothing was written", line: 0 });
    expect(await server.store.barCount()).toBe(0);
    expect(await server.store.dataVersion()).toBe(version);
  });

  it("takes only CSV and NDJSON bodies, up to 16 MiB", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server);
    for (const type of ["application/json", "text/plain"]) {
      const response = await server.post("/xql/bars", JSON.stringify(bar("BTCUSDT", OPEN_M1 - MINUTE, 1)), key, { "content-type": type });
      expect(response.status).toBe(415);
      expect(((await response.json()) as { error: string }).error).toMatch(/^Send bars as text\/csv .* or application\/x-ndjson$/);
    }
    // 16 MiB of valid bars is read (then refused for their times, not their size); one byte more is a 413.
    const line = `${JSON.stringify(bar("BTCUSDT", OPEN_M1 - MINUTE, 100))}\n`;
    const limit = 16 * 1024 * 1024;
    const full = line.repeat(Math.floor(limit / line.length));
    const padded = full + " ".repeat(limit - full.length);
    const atLimit = await server.post("/xql/bars", padded, key, NDJSON);
    expect(atLimit.status).toBe(400);
    expect(((await atLimit.json()) as { error: string }).error).toContain("duplicate bar");
    const over = await server.post("/xql/bars", `${padded} `, key, NDJSON);
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ error: `Request body exceeds the limit of ${limit} bytes` });
    // Other routes keep their 64 KiB.
    const query = await server.post("/xql/validate", "x".repeat(65 * 1024), key);
    expect(await query.json()).toEqual({ error: "Request body exceeds the limit of 65536 bytes" });
  });

  it("answers 503 with Retry-After, writing nothing, while another process holds the store's write lock", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server);
    const other = new Database(server.file);
    other.exec("BEGIN IMMEDIATE");
    try {
      const response = await server.post("/xql/bars", ndjson([bar("BTCUSDT", OPEN_M1 - MINUTE, 100)]), key, NDJSON);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await response.json()).toEqual({ error: "Data store busy, retry shortly" });
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(await server.store.barCount()).toBe(0);
    const after = await server.post("/xql/bars", ndjson([bar("BTCUSDT", OPEN_M1 - MINUTE, 100)]), key, NDJSON);
    expect(await after.json()).toEqual({ written: 1, replaced: 0, symbols: 1 });
  });

  it("is in /openapi.json beside GET /xql/bars", async () => {
    server = await startServer({ seed: false });
    const doc = (await (await server.get("/openapi.json")).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(Object.keys(doc.paths["/xql/bars"]!).sort()).toEqual(["get", "post"]);
    expect(doc.paths["/xql/bars"]!.post!.operationId).toBe("pushBars");
  });

  it("pushes racing runs: no 500, and every run sees whole pushes (all symbols at the same generation)", async () => {
    server = await startServer({ seed: false });
    const key = await writeKey(server, "plus");
    const symbols = Array.from({ length: 12 }, (_, i) => `S${String(i).padStart(2, "0")}USDT`);
    const push = (generation: number) =>
      server!.post("/xql/bars", ndjson(symbols.map((s) => bar(s, OPEN_M1 - (60 - generation) * MINUTE, 100 + generation))), key, NDJSON);
    expect((await push(0)).status).toBe(200);
    const query = 'market = "CRYPTO"\ntimeframe = m1\ncolumns = [close]\ntrue';
    const runs: Promise<Response>[] = [];
    const pushes: Promise<Response>[] = [];
    for (let g = 1; g <= 30; g++) {
      pushes.push(push(g));
      runs.push(server.post("/xql/run", query, key));
    }
    for (const response of await Promise.all(pushes)) expect(response.status).toBe(200);
    const generations = new Set<number>();
    for (const response of await Promise.all(runs)) {
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as { results: { symbol: string; columns: { close: number } }[] };
      expect(results.map((r) => r.symbol)).toEqual(symbols);
      const closes = new Set(results.map((r) => r.columns.close));
      expect(closes.size, `one generation per run, found ${[...closes].join(", ")}`).toBe(1);
      generations.add([...closes][0]!);
    }
    const last = (await (await server.post("/xql/run", query, key)).json()) as { results: { columns: { close: number } }[] };
    expect(last.results.every((r) => r.columns.close === 130)).toBe(true);
    expect(generations.size).toBeGreaterThanOrEqual(1);
  });
});
