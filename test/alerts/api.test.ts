/**
 * The alerts API (decisions §7) over real HTTP on loopback and a real SQLite file: creation
 * with its baseline and its secret shown once, validation as validate, listing, one alert,
 * deletion, accounts kept apart, tier limits (also under concurrent creations), never metered,
 * every answer checked against /openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validate } from "../../src/api.js";
import { ALERT_LIMITS } from "../../src/alerts/alerts.js";
import { openApiDocument } from "../../src/server/openapi.js";
import { NOW, startServer, type Running } from "../server/helpers.js";

const Q = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 440';
const JSON_TYPE = { "content-type": "application/json" };

let server: Running;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
});

function create(key: string | undefined, body: unknown, headers: Record<string, string> = JSON_TYPE): Promise<Response> {
  return server.post("/xql/alerts", typeof body === "string" ? body : JSON.stringify(body), key, headers);
}

async function send(method: string, path: string, key?: string): Promise<Response> {
  return fetch(server.url + path, { method, headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
}

describe("POST /xql/alerts", () => {
  it("answers 201 with the alert, its secret and the baseline: the symbols matching at the latest closed bar", async () => {
    const { key } = await server.key("essential");
    const response = await create(key, { query: Q, name: "big closes" });
    expect(response.status).toBe(201);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["id", "name", "query", "webhook", "secret", "createdAt", "matching"]);
    expect(body.id).toMatch(/^alrt_[0-9A-Za-z]{16}$/);
    expect(body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(body).toMatchObject({ name: "big closes", query: Q, webhook: null, createdAt: new Date(NOW).toISOString() });
    // 13:25: the 13:00 bar is still in progress, so the baseline is at 12:00, where EURUSD closed
    // at 498, GBPUSD at 398 and USDJPY at 448 (test/server/helpers.ts).
    expect(body.matching).toEqual(["EURUSD", "USDJPY"]);
  });

  it("names an alert after its explanation when no name is given, and accepts the body as any content type", async () => {
    const { key } = await server.key("essential");
    const response = await create(key, JSON.stringify({ query: Q }), { "content-type": "text/plain" });
    expect(response.status).toBe(201);
    expect(((await response.json()) as { name: string }).name).toBe("Matches when close > 440. Returns close.");
  });

  it("validates the query as validate does: 400 with the same body", async () => {
    const { key } = await server.key("essential");
    for (const query of ['market = "FOREX"\ntimeframe = h1\nrsi(14 < 30', 'market = "FOREX"\nrsii(14) < 30', "", 'market = "MOON"\ntimeframe = h1\ntrue']) {
      const response = await create(key, { query });
      expect(response.status, query).toBe(400);
      expect(await response.json()).toEqual(validate(query));
    }
  });

  it("answers 400 saying what an alert is for a body that is not one", async () => {
    const { key } = await server.key("essential");
    const bodies = ["not json", "[1]", "{}", JSON.stringify({ query: Q, webhok: "https://x.example" }), JSON.stringify({ query: 1 }), JSON.stringify({ query: Q, webhook: 5 }), JSON.stringify({ query: Q, name: "" }), JSON.stringify({ query: Q, name: "a\u0007b" }), JSON.stringify({ query: Q, name: "x".repeat(201) })];
    for (const body of bodies) {
      const response = await create(key, body);
      expect(response.status, body).toBe(400);
      const answer = (await response.json()) as { error: string };
      expect(answer.error, body).toMatch(/alert is JSON|"name" must be/);
    }
    expect(((await (await create(key, JSON.stringify({ query: Q, webhok: "x" }))).json()) as { error: string }).error).toContain('Unknown field "webhok"');
  });

  it("refuses a body above the limit with 413", async () => {
    const { key } = await server.key("essential");
    const response = await create(key, { query: `${Q}${" ".repeat(70_000)}` });
    expect(response.status).toBe(413);
  });

  it("refuses every alerts route without a valid key (401, before the body is read)", async () => {
    expect((await create(undefined, { query: Q })).status).toBe(401);
    expect((await create("xql_00000000000000000000000000000000", { query: Q })).status).toBe(401);
    expect((await server.get("/xql/alerts")).status).toBe(401);
    expect((await server.get("/xql/alerts/alrt_x")).status).toBe(401);
    expect((await server.get("/xql/alerts/stream")).status).toBe(401);
    expect((await send("DELETE", "/xql/alerts/alrt_x")).status).toBe(401);
  });
});

describe("listing, reading and deleting", () => {
  it("lists the account's alerts oldest first without secrets; one alert shows its matching and deliveries", async () => {
    const { key } = await server.key("essential");
    const a = (await (await create(key, { query: Q, name: "first" })).json()) as { id: string; secret: string };
    const b = (await (await create(key, { query: `${Q}\n`, name: "second", webhook: null })).json()) as { id: string; secret: string };
    const list = await server.get("/xql/alerts", key);
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(text).not.toContain(a.secret);
    expect(text).not.toContain("secret");
    const { alerts } = JSON.parse(text) as { alerts: { id: string; name: string }[] };
    expect(alerts.map((x) => [x.id, x.name])).toEqual([
      [a.id, "first"],
      [b.id, "second"],
    ]);
    const one = await server.get(`/xql/alerts/${a.id}`, key);
    expect(one.status).toBe(200);
    const detail = await one.text();
    expect(detail).not.toContain(a.secret);
    expect(JSON.parse(detail)).toMatchObject({ id: a.id, matching: ["EURUSD", "USDJPY"], asOf: new Date(NOW - 25 * 60_000 - 3_600_000).toISOString(), deliveries: [] });
  });

  it("keeps accounts apart: another account's alert is not found, to read or to delete", async () => {
    const owner = await server.key("essential");
    const other = await server.key("plus");
    const { id } = (await (await create(owner.key, { query: Q })).json()) as { id: string };
    expect(((await (await server.get("/xql/alerts", other.key)).json()) as { alerts: unknown[] }).alerts).toEqual([]);
    const read = await server.get(`/xql/alerts/${id}`, other.key);
    expect(read.status).toBe(404);
    expect(await read.json()).toEqual({ error: "Alert not found" });
    expect((await send("DELETE", `/xql/alerts/${id}`, other.key)).status).toBe(404);
    expect((await server.get(`/xql/alerts/${id}`, owner.key)).status).toBe(200);
    // A second key of the same account sees the account's alerts.
    const second = await server.key(undefined, owner.accountId);
    expect((await server.get(`/xql/alerts/${id}`, second.key)).status).toBe(200);
  });

  it("deletes with 204; the alert is gone and a second delete is 404", async () => {
    const { key } = await server.key("essential");
    const { id } = (await (await create(key, { query: Q })).json()) as { id: string };
    const gone = await send("DELETE", `/xql/alerts/${id}`, key);
    expect(gone.status).toBe(204);
    expect(await gone.text()).toBe("");
    expect((await server.get(`/xql/alerts/${id}`, key)).status).toBe(404);
    expect((await send("DELETE", `/xql/alerts/${id}`, key)).status).toBe(404);
    expect(((await (await server.get("/xql/alerts", key)).json()) as { alerts: unknown[] }).alerts).toEqual([]);
  });

  it("answers 405 naming the methods of /xql/alerts", async () => {
    const { key } = await server.key("essential");
    const patch = await send("PATCH", "/xql/alerts", key);
    expect(patch.status).toBe(405);
    expect(patch.headers.get("allow")).toBe("GET, HEAD, POST");
  });
});

describe("tier limits and metering", () => {
  it.each([
    ["free", 1],
    ["essential", 20],
    ["plus", 100],
  ] as const)("a %s account holds %i alerts; one more is 403, and deleting one frees its place", async (tier, limit) => {
    expect(ALERT_LIMITS[tier]).toBe(limit);
    const { key } = await server.key(tier);
    const ids: string[] = [];
    for (let i = 0; i < limit; i++) {
      const response = await create(key, { query: Q });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }
    const refused = await create(key, { query: Q });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "Alert limit reached for this tier" });
    expect((await send("DELETE", `/xql/alerts/${ids[0]}`, key)).status).toBe(204);
    expect((await create(key, { query: Q })).status).toBe(201);
  }, 60_000);

  it("holds the limit under concurrent creations: of 12 at once on a free account, one is created", async () => {
    const { key } = await server.key("free");
    const statuses = await Promise.all(Array.from({ length: 12 }, () => create(key, { query: Q }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 403)).toHaveLength(11);
    expect(((await (await server.get("/xql/alerts", key)).json()) as { alerts: unknown[] }).alerts).toHaveLength(1);
  });

  it("never consumes the daily run quota", async () => {
    const { key } = await server.key("free");
    const { id } = (await (await create(key, { query: Q })).json()) as { id: string };
    await server.get("/xql/alerts", key);
    await server.get(`/xql/alerts/${id}`, key);
    await send("DELETE", `/xql/alerts/${id}`, key);
    const usage = (await (await server.get("/usage", key)).json()) as { used: number; remaining: number };
    expect(usage).toMatchObject({ used: 0, remaining: 30 });
  });
});

describe("the OpenAPI document", () => {
  it("describes every alerts route", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths["/xql/alerts"]!).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/xql/alerts/{id}"]!).sort()).toEqual(["delete", "get"]);
    expect(Object.keys(paths["/xql/alerts/stream"]!)).toEqual(["get"]);
  });
});
