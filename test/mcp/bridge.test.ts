/**
 * The MCP bridge end to end: the SDK's own Client spawns `xql mcp` over stdio (as an AI
 * assistant's MCP client does) against a real service listening on loopback.
 */
import { spawn } from "node:child_process";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { XqlClient } from "../../src/client/index.js";
import { PHRASES } from "../../src/phrases/index.js";
import { VERSION } from "../../src/version.js";
import { startLiveService, type LiveService } from "../client/live-service.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
// The bridge as a user's MCP client would start it: `xql mcp`, run from source with tsx.
const BRIDGE_COMMAND = process.execPath;
const BRIDGE_ARGS = ["--import", "tsx", "src/cli/main.ts", "mcp"];

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 3\nrsi(14) < 101';
const TYPO = 'market = "CRYPTO"\ntimeframe = h1\nrsl(14) < 30';
const TYPO_BODY = {
  valid: false,
  error: {
    type: "syntax",
    message: "Unknown identifier 'rsl', did you mean 'rsi'?",
    position: { line: 3, column: 1, offset: 33 },
  },
};

interface Bridge {
  client: Client;
  stderr: () => string;
  /** Errors the MCP client saw on the wire (anything on stdout that is not protocol lands here). */
  protocolErrors: Error[];
  close(): Promise<void>;
}

async function startBridge(env: { XQL_API_KEY: string; XQL_BASE_URL: string }): Promise<Bridge> {
  // StdioClientTransport passes only a few variables to the child, so the bridge's are given here.
  const transport = new StdioClientTransport({
    command: BRIDGE_COMMAND,
    args: BRIDGE_ARGS,
    cwd: repoRoot,
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "xql-bridge-test", version: "1.0.0" });
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  return { client, stderr: () => stderr, protocolErrors, close: () => client.close() };
}

async function call(bridge: Bridge, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await bridge.client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text content is the structured content as JSON. */
function expectTextMirrorsStructured(result: CallToolResult): void {
  expect(result.content).toHaveLength(1);
  const [first] = result.content;
  expect(first?.type).toBe("text");
  expect(JSON.parse((first as { text: string }).text)).toEqual(result.structuredContent);
}

async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("xql mcp against the running service", () => {
  let service: LiveService;
  let key: string;
  let bridge: Bridge;

  beforeAll(async () => {
    service = await startLiveService();
    key = await service.createKey("plus");
    bridge = await startBridge({ XQL_API_KEY: key, XQL_BASE_URL: service.baseUrl });
  });
  afterAll(async () => {
    await bridge?.close();
    await service?.close();
  });

  it("introduces itself as xql with the package version", () => {
    expect(bridge.client.getServerVersion()).toMatchObject({ name: "xql", version: VERSION });
    expect(bridge.client.getInstructions()).toContain("xql_nl_reference");
  });

  it("lists the eleven tools with their input and output schemas", async () => {
    const { tools } = await bridge.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "xql_alert_create",
      "xql_alert_delete",
      "xql_alert_list",
      "xql_explain",
      "xql_history",
      "xql_nl_reference",
      "xql_run",
      "xql_validate",
      "xql_watchlist_list",
      "xql_watchlist_set",
      "xql_why",
    ]);
    const byName = new Map(tools.map((t) => [t.name, t]));

    for (const name of ["xql_validate", "xql_explain", "xql_run"]) {
      const tool = byName.get(name)!;
      expect(tool.inputSchema).toMatchObject({
        type: "object",
        properties: { query: { type: "string" } },
        required: ["query"],
      });
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.outputSchema?.properties).toHaveProperty("error");
      expect(tool.outputSchema?.properties).toHaveProperty("valid");
      // Written for a model: the query's shape, an example, and what the errors mean.
      expect(tool.description).toContain('market = "CRYPTO"');
      expect(tool.description).toContain("timeframe = h1");
      expect(tool.description).toContain("Missing or invalid API key");
      expect(tool.description).toContain('"type": "syntax"');
      expect(tool.description).toContain("macd_signal");
    }
    expect(byName.get("xql_explain")!.outputSchema?.properties).toHaveProperty("plan");
    expect(byName.get("xql_explain")!.outputSchema?.properties).toHaveProperty("explanation");
    expect(byName.get("xql_run")!.outputSchema?.properties).toHaveProperty("results");
    expect(byName.get("xql_run")!.description).toContain("Daily API rate limit exceeded");

    const reference = byName.get("xql_nl_reference")!;
    expect(reference.inputSchema).toMatchObject({ type: "object", properties: { phrase: { type: "string" } } });
    expect(reference.inputSchema.required ?? []).not.toContain("phrase");
    expect(reference.outputSchema).toMatchObject({
      type: "object",
      properties: { entries: { type: "array" } },
      required: ["entries"],
    });
  });

  it("xql_validate returns the service's body", async () => {
    const result = await call(bridge, "xql_validate", { query: QUERY });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ valid: true });
    expectTextMirrorsStructured(result);
  });

  it("xql_explain returns the plan and the explanation", async () => {
    const result = await call(bridge, "xql_explain", { query: QUERY });
    expect(result.isError).toBeFalsy();
    const direct = await new XqlClient({ baseUrl: service.baseUrl, apiKey: key }).explain(QUERY);
    expect(result.structuredContent).toEqual(direct.body);
    expect(result.structuredContent).toMatchObject({
      plan: { market: "CRYPTO", sources: [{ timeframe: "h1", series: ["close"], minLookback: 15 }] },
      explanation: expect.stringMatching(/^Matches when rsi\(14\) < 101\./),
    });
    expectTextMirrorsStructured(result);
  });

  it("xql_run returns the matches", async () => {
    const result = await call(bridge, "xql_run", { query: QUERY });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { results: { symbol: string; columns: Record<string, number | null> }[] };
    expect(body.results).toHaveLength(3);
    for (const row of body.results) expect(Object.keys(row.columns)).toEqual(["close", "rsi(14)"]);
    const rsis = body.results.map((row) => row.columns["rsi(14)"]!);
    expect([...rsis].sort((a, b) => a - b)).toEqual(rsis);
    expectTextMirrorsStructured(result);
  });

  it("xql_history returns the service's history body, over the window asked for", async () => {
    const q = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [rsi(14)]\nrsi(14) < 45';
    const result = await call(bridge, "xql_history", { query: q, bars: 40 });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { matches: unknown[]; stats: { bars: number; matches: number }; meta: { asOf: string } };
    expect(body.stats.bars).toBe(40);
    expect(body.matches.length).toBe(body.stats.matches);
    expect(body.stats.matches).toBeGreaterThan(0);
    // The same request straight over HTTP gives the same body.
    const direct = await new XqlClient({ baseUrl: service.baseUrl, apiKey: key }).history(q, { bars: 40 });
    expect(direct.ok && direct.body).toEqual(body);
    expectTextMirrorsStructured(result);
    const tools = new Map((await bridge.client.listTools()).tools.map((t) => [t.name, t]));
    expect(tools.get("xql_history")!.inputSchema.properties).toHaveProperty("bars");
    expect(tools.get("xql_history")!.outputSchema?.properties).toHaveProperty("stats");
    const invalid = await call(bridge, "xql_history", { query: TYPO });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toEqual(TYPO_BODY);
  });

  it("xql_alert_create, xql_alert_list and xql_alert_delete manage the account's alerts through the service", async () => {
    const { tools } = await bridge.client.listTools();
    const create = tools.find((t) => t.name === "xql_alert_create")!;
    expect(create.inputSchema).toMatchObject({ type: "object", properties: { query: { type: "string" }, webhook: { type: "string" }, name: { type: "string" } }, required: ["query"] });
    expect(create.description).toContain("Webhook URL must be https:// to a public address");
    expect(tools.find((t) => t.name === "xql_alert_delete")!.annotations).toMatchObject({ destructiveHint: true });

    const made = await call(bridge, "xql_alert_create", { query: QUERY, name: "from an assistant" });
    expect(made.isError).toBeFalsy();
    const body = made.structuredContent as { id: string; secret: string; matching: string[]; name: string };
    expect(body).toMatchObject({ name: "from an assistant", query: QUERY, webhook: null });
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.matching.length).toBeGreaterThan(0);
    expectTextMirrorsStructured(made);

    const listed = await call(bridge, "xql_alert_list", {});
    expect(listed.isError).toBeFalsy();
    expect((listed.structuredContent as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toContain(body.id);

    const refused = await call(bridge, "xql_alert_create", { query: QUERY, webhook: "http://10.0.0.1/hook" });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({ error: "Webhook URL must be https:// to a public address" });
    const invalid = await call(bridge, "xql_alert_create", { query: TYPO });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toEqual(TYPO_BODY);

    const deleted = await call(bridge, "xql_alert_delete", { id: body.id });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent).toEqual({ deleted: body.id });
    const again = await call(bridge, "xql_alert_delete", { id: body.id });
    expect(again.isError).toBe(true);
    expect(again.structuredContent).toEqual({ error: "Alert not found" });
  });

  it("xql_watchlist_set and xql_watchlist_list keep the account's lists, which xql_run then screens", async () => {
    const saved = await call(bridge, "xql_watchlist_set", { name: "coins", symbols: ["BTCUSDT", "NOPEUSDT"] });
    expect(saved.isError).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({ name: "coins", symbols: ["BTCUSDT", "NOPEUSDT"] });
    expectTextMirrorsStructured(saved);
    const listed = await call(bridge, "xql_watchlist_list", {});
    expect((listed.structuredContent as { watchlists: { name: string }[] }).watchlists.map((w) => w.name)).toEqual(["coins"]);
    const run = await call(bridge, "xql_run", { query: 'market = "CRYPTO"\ntimeframe = h1\nwatchlist = "coins"\ntrue' });
    expect(run.isError).toBeFalsy();
    expect(run.structuredContent).toMatchObject({ results: [{ symbol: "BTCUSDT" }], meta: { instruments: 2, skipped: { noData: 1 } } });
    const bad = await call(bridge, "xql_watchlist_set", { name: "Bad Name", symbols: ["BTCUSDT"] });
    expect(bad.isError).toBe(true);
    const unknown = await call(bridge, "xql_run", { query: 'market = "CRYPTO"\ntimeframe = h1\nwatchlist = "nope"\ntrue' });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toEqual({ valid: false, error: { type: "plan", message: "Unknown watchlist 'nope'" } });
  });

  it("xql_why returns the service's tree for a symbol, and says when to use it", async () => {
    const { tools } = await bridge.client.listTools();
    expect(tools.find((t) => t.name === "xql_why")!.description).toContain("finds nothing");
    const answered = await call(bridge, "xql_why", { query: QUERY, symbol: "BTCUSDT" });
    expect(answered.isError).toBeFalsy();
    const direct = await new XqlClient({ baseUrl: service.baseUrl, apiKey: key }).why(QUERY, "BTCUSDT");
    expect(direct.ok && answered.structuredContent).toEqual(direct.body);
    expect((answered.structuredContent as { tree: { expr: string } }).tree.expr).toBe("rsi(14) < 101");
    expectTextMirrorsStructured(answered);
    const missing = await call(bridge, "xql_why", { query: QUERY, symbol: "NOPE" });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({ error: "No bars for NOPE on CRYPTO h1" });
  });

  it("xql_nl_reference lists every entry, or the entries matching a phrase", async () => {
    const all = await call(bridge, "xql_nl_reference", {});
    expect(all.isError).toBeFalsy();
    const entries = (all.structuredContent as { entries: Record<string, unknown>[] }).entries;
    expect(entries).toHaveLength(PHRASES.length);
    for (const entry of entries) expect(Object.keys(entry).sort()).toEqual(["notes", "phrase", "query"]);
    expectTextMirrorsStructured(all);

    const oversold = await call(bridge, "xql_nl_reference", { phrase: "Oversold" });
    expect((oversold.structuredContent as { entries: unknown[] }).entries[0]).toEqual({
      phrase: "oversold",
      query: "rsi(14) < 30",
      notes: PHRASES.find((e) => e.phrase === "oversold")!.notes,
    });
    const none = await call(bridge, "xql_nl_reference", { phrase: "zzzz" });
    expect(none.isError).toBeFalsy();
    expect(none.structuredContent).toEqual({ entries: [] });
  });

  it("turns a phrase into a query that validates, explains and runs", async () => {
    const lookup = await call(bridge, "xql_nl_reference", { phrase: "show me oversold crypto with a volume spike" });
    const entries = (lookup.structuredContent as { entries: { phrase: string; query: string }[] }).entries;
    const oversold = entries.find((e) => e.phrase === "oversold")!;
    const spike = entries.find((e) => e.phrase === "volume more than 2x its average")!;
    const lets = [oversold, spike].flatMap((e) => e.query.split("\n").slice(0, -1));
    const conditions = [oversold, spike].map((e) => e.query.split("\n").at(-1));
    const query = ['market = "CRYPTO"', "timeframe = h1", ...lets, conditions.join(" and ")].join("\n");
    expect(query).toBe('market = "CRYPTO"\ntimeframe = h1\nlet avgv = avg(volume, 20)\nrsi(14) < 30 and volume > avgv * 2');

    expect((await call(bridge, "xql_validate", { query })).structuredContent).toEqual({ valid: true });
    expect((await call(bridge, "xql_explain", { query })).structuredContent).toMatchObject({
      explanation: "Matches when rsi(14) < 30 and volume > avgv * 2, where avgv = avg(volume, 20).",
    });
    const run = await call(bridge, "xql_run", { query });
    expect(run.isError).toBeFalsy();
    expect(Array.isArray((run.structuredContent as { results: unknown[] }).results)).toBe(true);
  });

  it("returns a 400 as isError with the error body, on all three query tools", async () => {
    for (const name of ["xql_validate", "xql_explain", "xql_run"]) {
      const result = await call(bridge, name, { query: TYPO });
      expect(result.isError, name).toBe(true);
      expect(result.structuredContent, name).toEqual(TYPO_BODY);
      expectTextMirrorsStructured(result);
    }
    const plan = await call(bridge, "xql_validate", { query: 'market = "CRYPTO"\ntimeframe = h1\nclose > d::sma(400)' });
    expect(plan.isError).toBe(true);
    expect(plan.structuredContent).toEqual({
      valid: false,
      error: { type: "plan", message: "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars" },
    });
  });

  it("returns a 429 as isError once the daily quota is used up, while validate keeps working", async () => {
    const spentKey = await service.createKey("free");
    await service.exhaustQuota(spentKey);
    const spent = await startBridge({ XQL_API_KEY: spentKey, XQL_BASE_URL: service.baseUrl });
    try {
      const before = Date.now();
      const run = await call(spent, "xql_run", { query: QUERY });
      const after = Date.now();
      expect(run.isError).toBe(true);
      // The service's body, and when to try again: the next UTC midnight (X-RateLimit-Reset) and Retry-After's seconds up to it.
      const nextMidnight = (t: number) => new Date(Math.floor(t / 86_400_000) * 86_400_000 + 86_400_000).toISOString();
      const { error, resetAt, retryAfter } = run.structuredContent as { error: string; resetAt: string; retryAfter: number };
      expect(error).toBe("Daily API rate limit exceeded");
      expect([nextMidnight(before), nextMidnight(after)]).toContain(resetAt);
      expect(Object.keys(run.structuredContent!).sort()).toEqual(["error", "resetAt", "retryAfter"]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(Math.abs(Date.parse(resetAt) - (before + retryAfter * 1000))).toBeLessThanOrEqual(after - before + 2_000);
      // The HTTP body itself stays exactly the contract's.
      const direct = await new XqlClient({ baseUrl: service.baseUrl, apiKey: spentKey }).run(QUERY);
      expect(direct.status).toBe(429);
      expect(direct.body).toEqual({ error: "Daily API rate limit exceeded" });
      expectTextMirrorsStructured(run);
      expect((await call(spent, "xql_validate", { query: QUERY })).isError).toBeFalsy();
    } finally {
      await spent.close();
    }
  });

  it("returns a 401 as isError for a key the service does not know", async () => {
    const stranger = await startBridge({ XQL_API_KEY: "xql_00000000000000000000000000000000", XQL_BASE_URL: service.baseUrl });
    try {
      for (const name of ["xql_validate", "xql_explain", "xql_run"]) {
        const result = await call(stranger, name, { query: QUERY });
        expect(result.isError, name).toBe(true);
        expect(result.structuredContent, name).toEqual({ error: "Missing or invalid API key" });
      }
      // The reference needs no service and no key.
      expect((await call(stranger, "xql_nl_reference", { phrase: "golden cross" })).isError).toBeFalsy();
    } finally {
      await stranger.close();
    }
  });

  it("writes nothing but protocol on stdout, and diagnostics on stderr", () => {
    expect(bridge.protocolErrors).toEqual([]);
    expect(bridge.stderr()).toContain(`xql mcp ${VERSION}: serving`);
    expect(bridge.stderr()).not.toContain(key);
  });
});

describe("xql mcp when the service fails", () => {
  it("returns the 500 of a run whose data store is down as isError", async () => {
    const service = await startLiveService();
    const key = await service.createKey("essential");
    const bridge = await startBridge({ XQL_API_KEY: key, XQL_BASE_URL: service.baseUrl });
    try {
      service.breakBarStore();
      const result = await call(bridge, "xql_run", { query: QUERY });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toEqual({ error: "Data store unavailable" });
    } finally {
      await bridge.close();
      await service.close();
    }
  });

  it("answers with a clear tool error naming the URL when the service is down, and keeps serving", async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const bridge = await startBridge({ XQL_API_KEY: "xql_00000000000000000000000000000000", XQL_BASE_URL: baseUrl });
    try {
      for (const [name, path] of [
        ["xql_validate", "xql/validate"],
        ["xql_explain", "xql/explain"],
        ["xql_run", "xql/run"],
      ] as const) {
        const result = await call(bridge, name, { query: QUERY });
        expect(result.isError, name).toBe(true);
        expect(result.structuredContent, name).toEqual({
          error: `Could not reach the XQL service at ${baseUrl}/${path}: connect ECONNREFUSED 127.0.0.1:${port}`,
        });
        expectTextMirrorsStructured(result);
      }
      // Still alive and serving.
      expect((await bridge.client.listTools()).tools).toHaveLength(11);
      expect((await call(bridge, "xql_nl_reference", { phrase: "death cross" })).isError).toBeFalsy();
      expect(bridge.protocolErrors).toEqual([]);
    } finally {
      await bridge.close();
    }
  });

  it("survives the service going away in the middle of a session", async () => {
    const service = await startLiveService();
    const key = await service.createKey("plus");
    const bridge = await startBridge({ XQL_API_KEY: key, XQL_BASE_URL: service.baseUrl });
    try {
      expect((await call(bridge, "xql_validate", { query: QUERY })).isError).toBeFalsy();
      await service.close();
      const result = await call(bridge, "xql_validate", { query: QUERY });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: string }).error).toMatch(
        new RegExp(`^Could not reach the XQL service at ${service.baseUrl}/xql/validate: `),
      );
      expect((await bridge.client.listTools()).tools).toHaveLength(11);
    } finally {
      await bridge.close();
    }
  });
});

/** Runs `xql mcp` as a plain child process, writing `input` to its stdin and then closing it. */
function runBridgeProcess(env: Record<string, string>, input = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BRIDGE_COMMAND, BRIDGE_ARGS, {
      cwd: repoRoot,
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe("xql mcp start-up", () => {
  it("exits 1 with a clear message on stderr when XQL_API_KEY is missing or blank", async () => {
    for (const env of [{}, { XQL_API_KEY: "   " }] as Record<string, string>[]) {
      const { code, stdout, stderr } = await runBridgeProcess(env);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain("xql mcp: XQL_API_KEY is not set.");
    }
  });

  it("exits 1 on an XQL_API_KEY that cannot be sent in a header, naming the variable and not echoing the key", async () => {
    const { code, stdout, stderr } = await runBridgeProcess({ XQL_API_KEY: "xql_with space\u00e9", XQL_BASE_URL: "http://127.0.0.1:1" });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("check XQL_API_KEY");
    expect(stderr).not.toContain("with space");
  });

  it("exits 1 on an XQL_BASE_URL that is not an http(s) URL", async () => {
    const { code, stdout, stderr } = await runBridgeProcess({ XQL_API_KEY: "xql_k", XQL_BASE_URL: "localhost:8787" });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toContain("Invalid XQL base URL 'localhost:8787'");
    expect(stderr).toContain("check XQL_BASE_URL");
    expect(stderr).not.toContain("XQL_API_KEY");
  });

  it("exits 1 with a message on stderr on a JSON-RPC line over 10 MiB, without waiting for stdin to close", async () => {
    const child = spawn(BRIDGE_COMMAND, BRIDGE_ARGS, {
      cwd: repoRoot,
      env: { PATH: process.env["PATH"] ?? "", XQL_API_KEY: "xql_k", XQL_BASE_URL: "http://127.0.0.1:8787" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    // The bridge stops reading: the rest of what is written has nowhere to go.
    child.stdin.on("error", () => undefined);
    const code = await new Promise<number | null>((resolve) => {
      child.on("close", resolve);
      // 11 MiB of one line, and standard input left open: before, it exited 0 as if asked to.
      child.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(11 * 1024 * 1024)}`);
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/xql mcp: stopped: ReadBuffer exceeded maximum size of 10485760 bytes/);
  });

  it("speaks only JSON-RPC on stdout and exits 0 when the client closes its stdin", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const { code, stdout } = await runBridgeProcess(
      { XQL_API_KEY: "xql_k", XQL_BASE_URL: "http://127.0.0.1:8787" },
      `${JSON.stringify(initialize)}\n`,
    );
    expect(code).toBe(0);
    const lines = stdout.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "xql", version: VERSION } } });
  });
});
