import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { XqlClient, XqlClientError, isInvalidResult } from "../../src/client/index.js";
import { startLiveService, type LiveService } from "./live-service.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nrsi(14) < 101';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function expectClientError(promise: Promise<unknown>): Promise<XqlClientError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(XqlClientError);
  return error as XqlClientError;
}

describe("XqlClient against the running service", () => {
  let service: LiveService;
  let freeKey: string;
  let client: XqlClient;

  beforeAll(async () => {
    service = await startLiveService();
    freeKey = await service.createKey("free");
    client = new XqlClient({ baseUrl: service.baseUrl, apiKey: freeKey });
  });
  afterAll(async () => {
    await service?.close();
  });

  it("validates a good query: 200 { valid: true }", async () => {
    const res = await client.validate(QUERY);
    expect(res).toMatchObject({ ok: true, status: 200, body: { valid: true } });
  });

  it("returns a syntax error as a 400 value with its position, not an exception", async () => {
    const res = await client.validate('market = "CRYPTO"\ntimeframe = h1\nrsl(14) < 30');
    expect(res.ok).toBe(false);
    expect(res.status).toBe(400);
    expect(isInvalidResult(res.body)).toBe(true);
    expect(res.body).toEqual({
      valid: false,
      error: {
        type: "syntax",
        message: "Unknown identifier 'rsl', did you mean 'rsi'?",
        position: { line: 3, column: 1, offset: 33 },
      },
    });
  });

  it("explains: 200 with plan and explanation, 400 with the plan error", async () => {
    const ok = await client.explain(QUERY);
    expect(ok.status).toBe(200);
    if (!ok.ok) throw new Error("expected success");
    expect(ok.body.plan).toEqual({
      market: "CRYPTO",
      sources: [{ timeframe: "h1", series: ["close"], minLookback: 15 }],
    });
    expect(ok.body.explanation).toMatch(/^Matches when rsi\(14\) < 101\./);

    const tooLong = await client.explain('market = "CRYPTO"\ntimeframe = h1\nclose > d::sma(400)');
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ valid: false, error: { type: "plan" } });
    expect(tooLong.body).not.toHaveProperty("error.position");
  });

  it("runs: 200 with results, and the rate-limit headers after the call", async () => {
    const before = await client.usage();
    if (!before.ok) throw new Error(`usage failed: ${JSON.stringify(before.body)}`);
    const res = await client.run(QUERY);
    if (!res.ok) throw new Error(`run failed: ${JSON.stringify(res.body)}`);
    expect(res.body.results.length).toBe(8);
    for (const row of res.body.results) expect(Object.keys(row.columns)).toEqual(["close", "rsi(14)"]);
    expect(res.rateLimit).toBeDefined();
    expect(res.rateLimit!.limit).toBe(30);
    expect(res.rateLimit!.remaining).toBe(before.body.remaining - 1);
    // The reset is the next UTC midnight, in epoch seconds.
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(res.rateLimit!.reset).toBe(midnight.getTime() / 1000);
  });

  it("reads usage: 200 with the tier and quota state, never metered", async () => {
    const first = await client.usage();
    const second = await client.usage();
    if (!first.ok || !second.ok) throw new Error("usage failed");
    expect(first.body).toMatchObject({ tier: "free", limit: 30 });
    expect(first.body.used + first.body.remaining).toBe(30);
    expect(second.body.used).toBe(first.body.used);
    expect(first.body.resetAt).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
  });

  it("answers an unknown key with 401 and its body", async () => {
    const stranger = new XqlClient({ baseUrl: service.baseUrl, apiKey: "xql_00000000000000000000000000000000" });
    for (const res of [await stranger.validate(QUERY), await stranger.run(QUERY), await stranger.usage()]) {
      expect(res).toMatchObject({ ok: false, status: 401, body: { error: "Missing or invalid API key" } });
    }
  });

  it("answers an exhausted quota with 429, Retry-After and remaining 0", async () => {
    const key = await service.createKey("free");
    await service.exhaustQuota(key);
    const spent = new XqlClient({ baseUrl: service.baseUrl, apiKey: key });
    const res = await spent.run(QUERY);
    expect(res).toMatchObject({ ok: false, status: 429, body: { error: "Daily API rate limit exceeded" } });
    expect(res.rateLimit).toMatchObject({ limit: 30, remaining: 0 });
    expect(res.retryAfter).toBeGreaterThan(0);
    // Validate, explain and usage keep working.
    expect((await spent.validate(QUERY)).status).toBe(200);
    expect((await spent.explain(QUERY)).status).toBe(200);
    expect(await spent.usage()).toMatchObject({ status: 200, body: { remaining: 0, used: 30 } });
  });

  it("sends the query as the raw text body with the bearer key, through an injected fetch", async () => {
    const seen: { url: string; method: string; headers: Headers; body: unknown }[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push({ url: String(input), method: init?.method ?? "GET", headers: new Headers(init?.headers), body: init?.body });
      return fetch(input, init);
    };
    // A trailing slash on the base URL is fine.
    const traced = new XqlClient({ baseUrl: `${service.baseUrl}/`, apiKey: freeKey, fetch: recording });
    expect((await traced.validate(QUERY)).status).toBe(200);
    expect((await traced.usage()).status).toBe(200);
    expect(seen.map((s) => [s.method, s.url])).toEqual([
      ["POST", `${service.baseUrl}/xql/validate`],
      ["GET", `${service.baseUrl}/usage`],
    ]);
    expect(seen[0]!.headers.get("authorization")).toBe(`Bearer ${freeKey}`);
    expect(seen[0]!.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(seen[0]!.body).toBe(QUERY);
    expect(seen[1]!.body).toBeUndefined();
  });
});

describe("XqlClient's alert methods", () => {
  let service: LiveService;
  let client: XqlClient;

  beforeAll(async () => {
    service = await startLiveService();
    client = new XqlClient({ baseUrl: service.baseUrl, apiKey: await service.createKey("essential") });
  });
  afterAll(async () => {
    await service?.close();
  });

  it("creates (201 with the secret), lists, reads and deletes (204) an alert, as JSON", async () => {
    const created = await client.createAlert({ query: QUERY, name: "all of them" });
    expect(created).toMatchObject({ ok: true, status: 201, body: { name: "all of them", query: QUERY, webhook: null } });
    if (!created.ok) throw new Error("not created");
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.matching.length).toBeGreaterThan(0);
    const listed = await client.listAlerts();
    expect(listed).toMatchObject({ ok: true, status: 200, body: { alerts: [{ id: created.body.id, name: "all of them" }] } });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    const one = await client.getAlert(created.body.id);
    expect(one).toMatchObject({ ok: true, status: 200, body: { id: created.body.id, matching: created.body.matching, deliveries: [] } });
    expect(await client.deleteAlert(created.body.id)).toMatchObject({ ok: true, status: 204, body: null });
    expect(await client.getAlert(created.body.id)).toMatchObject({ ok: false, status: 404, body: { error: "Alert not found" } });
    expect(await client.deleteAlert("alrt_../../x?y")).toMatchObject({ ok: false, status: 404 });
  });

  it("returns the validate body for a bad query and the refusal of a private webhook as 400 values", async () => {
    const bad = await client.createAlert({ query: 'market = "CRYPTO"\ntimeframe = h1\nrsi(14 < 30' });
    expect(bad.ok).toBe(false);
    expect(bad.status).toBe(400);
    expect(isInvalidResult(bad.body)).toBe(true);
    expect(await client.createAlert({ query: QUERY, webhook: "https://127.0.0.1/h" })).toMatchObject({
      ok: false,
      status: 400,
      body: { error: "Webhook URL must be https:// to a public address" },
    });
  });
});

describe("XqlClient when the service's database fails", () => {
  let service: LiveService;
  afterAll(async () => {
    await service?.close();
  });

  it("returns the 500 body of a run whose bars cannot be read, and gives the run back", async () => {
    service = await startLiveService();
    const key = await service.createKey("essential");
    const client = new XqlClient({ baseUrl: service.baseUrl, apiKey: key });
    service.breakBarStore();
    const res = await client.run(QUERY);
    expect(res).toMatchObject({ ok: false, status: 500, body: { error: "Data store unavailable" } });
    expect(await client.usage()).toMatchObject({ status: 200, body: { used: 0 } });
  });
});

describe("XqlClient without a usable service", () => {
  const apiKey = "xql_SecretSecretSecretSecretSecret12";

  it("throws a network error naming the URL when nothing listens", async () => {
    const port = await closedPort();
    const client = new XqlClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey });
    const error = await expectClientError(client.validate("x"));
    expect(error.kind).toBe("network");
    expect(error.url).toBe(`http://127.0.0.1:${port}/xql/validate`);
    expect(error.message).toBe(
      `Could not reach the XQL service at http://127.0.0.1:${port}/xql/validate: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).not.toContain(apiKey);
  });

  describe("with a service that accepts connections and never answers", () => {
    let blackHole: TcpServer;
    const sockets = new Set<Socket>();
    let baseUrl: string;
    beforeAll(async () => {
      blackHole = createTcpServer((socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
      baseUrl = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
    });

    it("gives up after the timeout with a timeout error", async () => {
      const client = new XqlClient({ baseUrl, apiKey, timeoutMs: 150 });
      const started = Date.now();
      const error = await expectClientError(client.run("x"));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error.kind).toBe("timeout");
      expect(error.message).toBe(`The XQL service at ${baseUrl}/xql/run did not answer within 150 ms`);
    });

    it("lets one call override the timeout", async () => {
      const client = new XqlClient({ baseUrl, apiKey, timeoutMs: 60_000 });
      const error = await expectClientError(client.usage({ timeoutMs: 100 }));
      expect(error.kind).toBe("timeout");
      expect(error.message).toContain("within 100 ms");
    });

    it("stops when the caller aborts", async () => {
      const client = new XqlClient({ baseUrl, apiKey });
      const controller = new AbortController();
      // Aborted once the request has reached the service: mid-flight, not before it left.
      blackHole.once("connection", () => controller.abort());
      const pending = client.explain("x", { signal: controller.signal });
      const error = await expectClientError(pending);
      expect(error.kind).toBe("aborted");
    });
  });

  describe("with a base URL that points at some other web server", () => {
    let web: Server;
    let baseUrl: string;
    beforeAll(async () => {
      web = createHttpServer((request, response) => {
        const status = request.url === "/xql/run" ? 502 : 200;
        response.writeHead(status, { "content-type": "text/html" });
        response.end("<html><body>Bad gateway</body></html>");
      });
      await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
      baseUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => web.close(() => resolve()));
    });

    it("throws a protocol error for a 200 that is not JSON", async () => {
      const client = new XqlClient({ baseUrl, apiKey });
      const error = await expectClientError(client.validate("x"));
      expect(error.kind).toBe("protocol");
      expect(error.status).toBe(200);
      expect(error.message).toContain(`${baseUrl}/xql/validate answered 200 with a body that is not JSON`);
    });

    it("turns a failure status without a JSON body into { error } naming the status", async () => {
      const client = new XqlClient({ baseUrl, apiKey });
      const res = await client.run("x");
      expect(res.ok).toBe(false);
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ error: `HTTP 502 Bad Gateway from ${baseUrl}/xql/run: <html><body>Bad gateway</body></html>` });
    });
  });

  it("rejects a bad configuration without echoing the key", () => {
    expect(() => new XqlClient({ baseUrl: "localhost:8787", apiKey })).toThrow(/Invalid XQL base URL 'localhost:8787'/);
    expect(() => new XqlClient({ baseUrl: "ftp://example.com", apiKey })).toThrow(/expected an http or https URL/);
    expect(() => new XqlClient({ baseUrl: "http://127.0.0.1:8787", apiKey: " " })).toThrow("An XQL API key is required");
    expect(() => new XqlClient({ baseUrl: "http://127.0.0.1:8787", apiKey, timeoutMs: 0 })).toThrow(/timeoutMs/);
    let message = "";
    try {
      new XqlClient({ baseUrl: "http://127.0.0.1:8787", apiKey: `${apiKey}\nX-Evil: 1` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("The XQL API key contains characters that cannot be sent in a header");
  });

  it("keeps a path prefix of the base URL", () => {
    const client = new XqlClient({ baseUrl: "https://example.com/api?x=1", apiKey });
    expect(client.baseUrl).toBe("https://example.com/api/");
  });
});
