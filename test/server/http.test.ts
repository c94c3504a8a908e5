import { afterEach, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { request as httpRequest } from "node:http";
import { SqliteStore } from "../../src/open/sqlite.js";
import { createServer } from "../../src/server/index.js";
import { NOW, TestClock, startServer, type Running } from "./helpers.js";
import { type Served, forEachBackend } from "./backends.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';
const EXPECTED_RESULTS = [{ symbol: "EURUSD", columns: { close: 499 } }, { symbol: "USDJPY", columns: { close: 449 } }];
/** `meta` of a run over the small seeded universe (decisions §2): its latest h1 bar opens at 13:00 on NOW's day. */
const metaOf = (instruments: number, matched: number) => ({
  instruments,
  matched,
  skipped: { shortHistory: 0, noData: 0 },
  asOf: new Date(Math.floor(NOW / 3_600_000) * 3_600_000).toISOString(),
  // `close > …` has no recursion: exact on any number of bars.
  unconverged: 0,
});
const SYNTAX_ERROR = 'market = "FOREX"\ntimeframe = h1\nrsi(14 < 30';
const PLAN_ERROR = 'market = "FOREX"\ntimeframe = h1\nsma(400) > 0';
const NEXT_MIDNIGHT = Date.UTC(2026, 10, 21);

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function rateLimit(response: Response): Promise<{ limit: number; remaining: number; reset: number }> {
  return {
    limit: Number(response.headers.get("x-ratelimit-limit")),
    remaining: Number(response.headers.get("x-ratelimit-remaining")),
    reset: Number(response.headers.get("x-ratelimit-reset")),
  };
}

/** The same suite on SQLite, PostgreSQL, and PostgreSQL with the quota in Redis. */
forEachBackend("HTTP", (backend) => {
  let server: Served | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  describe("POST /xql/validate", () => {
    it("answers 200 {valid:true} for a valid query", async () => {
      server = await backend.start();
      const { key } = await server.key("free");
      const response = await server.post("/xql/validate", QUERY, key);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ valid: true });
    });

    it("answers 400 with the syntax error and its position", async () => {
      server = await backend.start();
      const { key } = await server.key();
      const response = await server.post("/xql/validate", SYNTAX_ERROR, key);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { valid: boolean; error: { type: string; message: string; position: unknown } };
      expect(body.valid).toBe(false);
      expect(body.error.type).toBe("syntax");
      expect(body.error.position).toMatchObject({ line: 3 });
    });

    it("answers 400 with a plan error without position above the lookback ceiling", async () => {
      server = await backend.start();
      const { key } = await server.key();
      const response = await server.post("/xql/validate", PLAN_ERROR, key);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        valid: false,
        error: { type: "plan", message: "Lookback of 400 bars on timeframe h1 exceeds the ceiling of 300 bars" },
      });
    });

    it("reads an empty body as a syntax error at 1:1 offset 0", async () => {
      server = await backend.start();
      const { key } = await server.key();
      const response = await server.post("/xql/validate", undefined, key);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { type: string; position: unknown } };
      expect(body.error.type).toBe("syntax");
      expect(body.error.position).toEqual({ line: 1, column: 1, offset: 0 });
    });

    it("reads the body as text whatever the Content-Type, or without one", async () => {
      server = await backend.start();
      const { key } = await server.key();
      for (const type of ["application/x-www-form-urlencoded", "text/plain; charset=utf-8", "application/octet-stream", "application/jsonish"]) {
        const response = await server.post("/xql/validate", QUERY, key, { "content-type": type });
        expect(response.status, type).toBe(200);
      }
      const bare = await server.post("/xql/validate", new TextEncoder().encode(QUERY), key);
      expect(bare.status).toBe(200);
    });

    it("accepts a body of exactly the limit and answers 413 one byte above it", async () => {
      server = await backend.start();
      const { key } = await server.key();
      const padded = (bytes: number): string => {
        const text = `${QUERY}\n// `;
        return text + "x".repeat(bytes - Buffer.byteLength(text));
      };
      expect((await server.post("/xql/validate", padded(64 * 1024), key)).status).toBe(200);
      const tooBig = await server.post("/xql/validate", padded(64 * 1024 + 1), key);
      expect(tooBig.status).toBe(413);
      expect(await tooBig.json()).toEqual({ error: "Request body exceeds the limit of 65536 bytes" });
    });

    it("takes the body limit from the options", async () => {
      server = await backend.start({ bodyLimit: 100 });
      const { key } = await server.key();
      expect((await server.post("/xql/validate", "x".repeat(101), key)).status).toBe(413);
    });
  });

  describe("POST /xql/explain", () => {
    it("answers 200 with the plan and the explanation", async () => {
      server = await backend.start();
      const { key } = await server.key("free");
      const response = await server.post("/xql/explain", QUERY, key);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        plan: {
          market: "FOREX",
          sources: [
            { timeframe: "h1", series: ["close"], minLookback: 1 },
            { timeframe: "d", series: ["close"], minLookback: 1 },
          ],
        },
        explanation: "Matches when close > 440 and d::close > 0. Returns close, sorted by close descending.",
      });
    });

    it("answers 400 in the validate shape, without plan or explanation", async () => {
      server = await backend.start();
      const { key } = await server.key();
      const response = await server.post("/xql/explain", PLAN_ERROR, key);
      expect(response.status).toBe(400);
      expect(Object.keys((await response.json()) as object).sort()).toEqual(["error", "valid"]);
    });
  });

  describe("POST /xql/run", () => {
    it("answers 200 with the results and the rate-limit headers", async () => {
      server = await backend.start();
      const { key } = await server.key("essential");
      const response = await server.post("/xql/run", QUERY, key);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ results: EXPECTED_RESULTS, meta: metaOf(3, 2) });
      expect(await rateLimit(response)).toEqual({ limit: 1500, remaining: 1499, reset: NEXT_MIDNIGHT / 1000 });
    });

    it("answers 200 with an empty array when nothing matches", async () => {
      server = await backend.start();
      const { key } = await server.key("plus");
      const response = await server.post("/xql/run", 'market = "crypto"\ntimeframe = h1\nclose < 0', key);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ results: [], meta: metaOf(1, 0) });
      expect((await rateLimit(response)).limit).toBe(4500);
    });

    it("gives the quota back on a 400 and reports it in the headers", async () => {
      server = await backend.start();
      const { key } = await server.key("free");
      await server.post("/xql/run", QUERY, key);
      const response = await server.post("/xql/run", SYNTAX_ERROR, key);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { valid: boolean }).valid).toBe(false);
      expect(await rateLimit(response)).toEqual({ limit: 30, remaining: 29, reset: NEXT_MIDNIGHT / 1000 });
      const usage = (await (await server.get("/usage", key)).json()) as { used: number };
      expect(usage.used).toBe(1);
    });

    it("answers 413 for an oversized run with the rate-limit headers, consuming nothing", async () => {
      server = await backend.start();
      const { key } = await server.key("free");
      const response = await server.post("/xql/run", "x".repeat(70_000), key);
      expect(response.status).toBe(413);
      expect(await rateLimit(response)).toEqual({ limit: 30, remaining: 30, reset: NEXT_MIDNIGHT / 1000 });
    });

    it("answers 429 with Retry-After once the day's quota is used, while validate, explain and usage keep working", async () => {
      const clock = new TestClock(NOW);
      server = await backend.start({ clock });
      const { key, accountId } = await server.key("free");
      for (let i = 0; i < 29; i++) await server.quota.reserve(accountId, "2026-11-20", 30);
      expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
      const refused = await server.post("/xql/run", QUERY, key);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: "Daily API rate limit exceeded" });
      expect(refused.headers.get("retry-after")).toBe(String((NEXT_MIDNIGHT - NOW) / 1000));
      expect(await rateLimit(refused)).toEqual({ limit: 30, remaining: 0, reset: NEXT_MIDNIGHT / 1000 });
      // Quota comes first: even a broken query is refused with 429.
      expect((await server.post("/xql/run", SYNTAX_ERROR, key)).status).toBe(429);
      expect((await server.post("/xql/validate", QUERY, key)).status).toBe(200);
      expect((await server.post("/xql/explain", QUERY, key)).status).toBe(200);
      const usage = await server.get("/usage", key);
      expect(usage.status).toBe(200);
      expect(await usage.json()).toMatchObject({ used: 30, remaining: 0 });
    });

    it("admits exactly the remaining quota among 40 concurrent runs on a free key", async () => {
      server = await backend.start();
      const { key, accountId } = await server.key("free");
      for (let i = 0; i < 12; i++) await server.quota.reserve(accountId, "2026-11-20", 30);
      const responses = await Promise.all(Array.from({ length: 40 }, () => server!.post("/xql/run", QUERY, key)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(18);
      expect(statuses.filter((s) => s === 429)).toHaveLength(22);
      const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get("x-ratelimit-remaining")));
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i));
      expect(await (await server.get("/usage", key)).json()).toMatchObject({ used: 30, remaining: 0 });
    });

    it("resets the quota at UTC midnight", async () => {
      const clock = new TestClock(Date.UTC(2026, 10, 20, 23, 59, 59, 500));
      server = await backend.start({ clock });
      const { key, accountId } = await server.key("free");
      for (let i = 0; i < 30; i++) await server.quota.reserve(accountId, "2026-11-20", 30);
      const refused = await server.post("/xql/run", QUERY, key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      clock.t = NEXT_MIDNIGHT;
      const admitted = await server.post("/xql/run", QUERY, key);
      expect(admitted.status).toBe(200);
      expect(await rateLimit(admitted)).toEqual({ limit: 30, remaining: 29, reset: Date.UTC(2026, 10, 22) / 1000 });
      expect(await (await server.get("/usage", key)).json()).toEqual({
        tier: "free",
        limit: 30,
        used: 1,
        remaining: 29,
        resetAt: "2026-11-22T00:00:00.000Z",
      });
    });

    it("counts quota per account: keys of one account share it, and revoking a key leaves it as it is", async () => {
      server = await backend.start();
      const first = await server.key("free");
      const second = await server.key("free", first.accountId);
      await server.post("/xql/run", QUERY, first.key);
      await server.post("/xql/run", QUERY, second.key);
      expect(await (await server.get("/usage", second.key)).json()).toMatchObject({ used: 2 });
      const { hashApiKey } = await import("../../src/accounts/keys.js");
      await server.keys.revokeKey(hashApiKey(first.key), NOW);
      expect((await server.post("/xql/run", QUERY, first.key)).status).toBe(401);
      expect(await (await server.get("/usage", second.key)).json()).toMatchObject({ used: 2 });
    });

    it("keeps quota state across a restart", async () => {
      const first = await backend.start();
      const { key } = await first.key("free");
      for (let i = 0; i < 3; i++) expect((await first.post("/xql/run", QUERY, key)).status).toBe(200);
      server = await first.restart();
      expect(await (await server.get("/usage", key)).json()).toMatchObject({ used: 3, remaining: 27 });
      expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    });
  });

  describe("GET /usage", () => {
    it("reports the quota with the rate-limit headers and consumes nothing", async () => {
      server = await backend.start();
      const { key } = await server.key("essential");
      for (let i = 0; i < 3; i++) await server.get("/usage", key);
      const response = await server.get("/usage", key);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ tier: "essential", limit: 1500, used: 0, remaining: 1500, resetAt: "2026-11-21T00:00:00.000Z" });
      expect(await rateLimit(response)).toEqual({ limit: 1500, remaining: 1500, reset: NEXT_MIDNIGHT / 1000 });
    });
  });

  describe("authentication", () => {
    const cases: [string, (s: Served) => Promise<Response>][] = [
      ["validate", (s) => s.post("/xql/validate", QUERY)],
      ["explain", (s) => s.post("/xql/explain", QUERY)],
      ["run", (s) => s.post("/xql/run", QUERY)],
      ["usage", (s) => s.get("/usage")],
    ];

    it.each(cases)("refuses %s without a key: 401, WWW-Authenticate: Bearer", async (_name, call) => {
      server = await backend.start();
      const response = await call(server);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json()).toEqual({ error: "Missing or invalid API key" });
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    });

    it("refuses malformed, unknown and revoked keys and other schemes", async () => {
      server = await backend.start();
      const { key } = await server.key("plus");
      const { hashApiKey, generateApiKey } = await import("../../src/accounts/keys.js");
      const attempts = [
        { authorization: "Bearer" },
        { authorization: "Bearer not-a-key" },
        { authorization: `Bearer ${generateApiKey()}` },
        { authorization: `Basic ${key}` },
        { authorization: key },
      ];
      for (const headers of attempts) {
        const response = await fetch(`${server.url}/xql/validate`, { method: "POST", body: QUERY, headers });
        expect(response.status, headers.authorization).toBe(401);
      }
      expect((await server.post("/xql/validate", QUERY, key)).status).toBe(200);
      await server.keys.revokeKey(hashApiKey(key), NOW);
      expect((await server.post("/xql/validate", QUERY, key)).status).toBe(401);
      expect((await server.get("/usage", key)).status).toBe(401);
    });

    it("checks the key before reading the body: an oversized or broken body without a key is a 401", async () => {
      server = await backend.start();
      expect((await server.post("/xql/validate", "x".repeat(200_000))).status).toBe(401);
      expect((await server.post("/xql/run", SYNTAX_ERROR)).status).toBe(401);
      expect((await server.post("/xql/explain", "", undefined, { "content-type": "application/json" })).status).toBe(401);
    });

    it("accepts the scheme name in any case", async () => {
      server = await backend.start();
      const { key } = await server.key();
      const response = await fetch(`${server.url}/xql/validate`, { method: "POST", body: QUERY, headers: { authorization: `bearer ${key}` } });
      expect(response.status).toBe(200);
    });
  });

  describe("other routes", () => {
    it("answers /health without a key", async () => {
      server = await backend.start();
      const response = await server.get("/health");
      expect(response.status).toBe(200);
      const { VERSION } = await import("../../src/version.js");
      expect(await response.json()).toEqual({ status: "ok", version: VERSION, checks: { bars: "ok", keys: "ok", quota: "ok" } });
    });

    it("serves an OpenAPI 3.1 document of every endpoint", async () => {
      server = await backend.start();
      const response = await server.get("/openapi.json");
      expect(response.status).toBe(200);
      const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
      expect(doc.openapi).toBe("3.1.0");
      expect(Object.keys(doc.paths).sort()).toEqual([
        "/",
        "/favicon.ico",
        "/health",
        "/openapi.json",
        "/usage",
        "/xql/alerts",
        "/xql/alerts/stream",
        "/xql/alerts/{id}",
        "/xql/bars",
        "/xql/explain",
        "/xql/history",
        "/xql/run",
        "/xql/symbols",
        "/xql/validate",
        "/xql/watchlists",
        "/xql/watchlists/{name}",
        "/xql/why",
      ]);
      expect(Object.keys(doc.paths["/xql/run"]!.post as object)).toContain("responses");
    });

    it("answers unknown routes with a JSON 404", async () => {
      server = await backend.start();
      const response = await server.get("/nope");
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: "Not found" });
      expect((await server.get("/xql/runs")).status).toBe(404);
    });

    it("answers Expect: 100-continue with 100 only after the key passed, so a refused caller never uploads", async () => {
      server = await backend.start();
      const { key } = await server.key("free");
      const { hostname, port } = new URL(server.url);
      const attempt = (authorization?: string) =>
        new Promise<{ continued: boolean; status: number; body: string }>((resolve, reject) => {
          let continued = false;
          const request = httpRequest({
            hostname,
            port,
            path: "/xql/validate",
            method: "POST",
            headers: { expect: "100-continue", "content-length": Buffer.byteLength(QUERY), ...(authorization ? { authorization } : {}) },
          });
          request.on("continue", () => {
            continued = true;
            request.end(QUERY);
          });
          request.on("response", (response) => {
            let body = "";
            response.on("data", (chunk: Buffer) => (body += chunk));
            response.on("end", () => resolve({ continued, status: response.statusCode!, body }));
          });
          request.on("error", reject);
          request.flushHeaders();
        });
      expect(await attempt()).toEqual({ continued: false, status: 401, body: '{"error":"Missing or invalid API key"}' });
      expect(await attempt(`Bearer ${key}`)).toEqual({ continued: true, status: 200, body: '{"valid":true}' });
    });

    it("answers a known path with another method 405 with Allow", async () => {
      server = await backend.start();
      const get = await server.get("/xql/run");
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
      expect(await get.json()).toEqual({ error: "Method not allowed; use POST" });
      const post = await server.post("/usage?x=1", "");
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
      const put = await fetch(`${server.url}/xql/validate`, { method: "PUT", body: "x" });
      expect(put.status).toBe(405);
      expect((await fetch(`${server.url}/health`, { method: "HEAD" })).status).toBe(200);
    });
  });

  describe("logs", () => {
    it("writes JSON lines that never hold a key or the Authorization header", async () => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split("\n").filter(Boolean));
          done();
        },
      });
      server = await backend.start({ logger: { level: "trace", stream } });
      const { key } = await server.key("free");
      await server.post("/xql/run", QUERY, key);
      await server.post("/xql/validate", SYNTAX_ERROR, key);
      await server.post("/xql/run", QUERY, "xql_0000000000000000000000000000000X");
      await server.get("/usage", key);
      // A key put in the query string by mistake is refused and not logged either.
      const inUrl = await fetch(`${server.url}/xql/validate?api_key=${key}&x=1`, { method: "POST", body: QUERY });
      expect(inUrl.status).toBe(401);
      expect(lines.length).toBeGreaterThan(4);
      expect(lines.some((line) => line.includes('"url":"/xql/validate?[redacted]"'))).toBe(true);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      const text = lines.join("\n");
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(4));
      expect(text).not.toContain("xql_0000000000000000000000000000000X");
      expect(text.toLowerCase()).not.toContain("bearer");
      expect(text).toContain('"msg":"run"');
    });
  });
});

/** What only a SQLite file can show: its connections closed and its tables renamed under a running server. */
describe("POST /xql/run on SQLite when the file fails under it", () => {
  it("answers 500 without internals when the bar store fails under it, consumes nothing, and the rest still answers", async () => {
    const first = await startServer();
    const { key } = await first.key("essential");
    await first.app.close();
    // Bars on their own connection to the same file, closed while the server runs.
    const bars = new SqliteStore(first.file);
    server = await startServer({ dir: first.dir, file: first.file, bars });
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    await bars.close();
    const failed = await server.post("/xql/run", QUERY, key);
    expect(failed.status).toBe(500);
    const text = await failed.text();
    expect(JSON.parse(text)).toEqual({ error: "Data store unavailable" });
    expect(text).not.toMatch(/sqlite|database|stack|at /i);
    expect(await rateLimit(failed)).toEqual({ limit: 1500, remaining: 1499, reset: NEXT_MIDNIGHT / 1000 });
    expect((await server.post("/xql/validate", QUERY, key)).status).toBe(200);
    expect((await server.post("/xql/explain", QUERY, key)).status).toBe(200);
    const usage = await server.get("/usage", key);
    expect(usage.status).toBe(200);
    expect(await usage.json()).toMatchObject({ used: 1, remaining: 1499 });
    const health = await server.get("/health");
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "unavailable" });
    await first.store.close();
  });

  it("answers 500 Data store unavailable on every endpoint when the key store itself is down", async () => {
    server = await startServer();
    const { key } = await server.key("free");
    await server.store.close();
    for (const response of [await server.post("/xql/validate", QUERY, key), await server.post("/xql/run", QUERY, key), await server.get("/usage", key)]) {
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: "Data store unavailable" });
    }
    expect((await server.get("/health")).status).toBe(503);
  });

  it("reports 503 on /health when a table a run needs is gone, and ok once it is back", async () => {
    server = await startServer();
    expect((await server.get("/health")).status).toBe(200);
    const db = new Database(server.file);
    try {
      // The quota counters live in the quota file beside the database (xql.db-quota).
      const quotaDb = new Database(`${server.file}-quota`);
      try {
        for (const [table, file] of [["bar_blocks", db], ["series", db], ["api_keys", db], ["quota_usage", quotaDb]] as const) {
          file.exec(`ALTER TABLE ${table} RENAME TO ${table}_gone`);
          const health = await server.get("/health");
          expect(health.status, table).toBe(503);
          expect(await health.text()).not.toMatch(/sqlite|no such table|_gone/i);
          file.exec(`ALTER TABLE ${table}_gone RENAME TO ${table}`);
          expect((await server.get("/health")).status, table).toBe(200);
        }
      } finally {
        quotaDb.close();
      }
    } finally {
      db.close();
    }
  });

  it("still reads the store on a cached run, so a closed store gives 500 every time", async () => {
    const first = await startServer();
    const { key } = await first.key("essential");
    await first.app.close();
    const bars = new SqliteStore(first.file);
    server = await startServer({ dir: first.dir, file: first.file, bars });
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(200);
    await bars.close();
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(500);
    expect((await server.post("/xql/run", QUERY, key)).status).toBe(500);
    await first.store.close();
  });
});

describe("createServer", () => {
  it("needs its stores", () => {
    expect(() => createServer({})).toThrow(/needs a bar, key and quota store/);
  });
});
