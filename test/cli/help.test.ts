/**
 * Help texts and the README say what the code does: the tools `xql mcp --help` names are the
 * tools the bridge registers, `xql serve --help` names every route of the service and gives
 * each option's and limit's real default, and the README's database order is the one
 * `databasePath` follows.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { XqlClient } from "../../src/client/index.js";
import { OPTIONS } from "../../src/cli/command.js";
import { DEFAULT_HOST, DEFAULT_PORT, limitsFromEnv } from "../../src/cli/commands/serve.js";
import { databasePath } from "../../src/cli/store.js";
import { createMcpServer, MCP_TOOLS } from "../../src/mcp/index.js";
import { DEFAULT_COST_BUDGET } from "../../src/plan/cost.js";
import { DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, createServer } from "../../src/server/app.js";
import { DEFAULT_MAX_RUNS_IN_FLIGHT, DEFAULT_MAX_RUNS_QUEUED } from "../../src/server/admission.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { DEFAULT_LOOKBACK_CEILING, DEFAULT_WARMUP_CEILING } from "../../src/types.js";
import { xqlIn } from "./in-process.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

async function helpOf(command: string): Promise<string> {
  const result = await xqlIn([command, "--help"]);
  expect(result.code).toBe(0);
  return result.stdout;
}

/** `METHOD /path` of every route a Fastify app registered, from its route tree (HEAD left out). */
function routesOf(tree: string): string[] {
  const paths: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split("\n")) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const parent = depth === 0 ? "" : paths[depth - 1]!;
    const path = parent === "" || parent.endsWith("/") || match[2]!.startsWith("/") ? parent + match[2]! : `${parent}/${match[2]!}`;
    paths[depth] = path;
    paths.length = depth + 1;
    for (const method of (match[3] ?? "").split(", ").filter((m) => m !== "" && m !== "HEAD")) routes.push(`${method} ${path}`);
  }
  return routes;
}

describe("xql mcp --help", () => {
  let client: Client;
  beforeAll(async () => {
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(new XqlClient({ baseUrl: "http://127.0.0.1:9", apiKey: "xql_0000000000000000000000000000000a" })).connect(serverSide);
    client = new Client({ name: "help-test", version: "0" });
    await client.connect(clientSide);
  });
  afterAll(() => client?.close());

  it("names every tool the bridge registers, and only those", async () => {
    const registered = (await client.listTools()).tools.map((tool) => tool.name);
    expect(MCP_TOOLS.map((tool) => tool.name)).toEqual(registered);
    const help = await helpOf("mcp");
    const listed = [...help.matchAll(/^ {2}(xql_\w+) /gm)].map((m) => m[1]);
    expect(listed).toEqual(registered);
  });
});

describe("xql serve --help", () => {
  it("names every route the service registers (the playground's files aside)", async () => {
    const store = new SqliteStore(":memory:");
    const app = createServer({ store, playgroundDir: "/nonexistent" });
    try {
      await app.ready();
      const routes = routesOf(app.printRoutes({ commonPrefix: false })).filter((route) => !route.includes(":file"));
      expect(routes).toEqual(expect.arrayContaining(["POST /xql/run", "POST /xql/history", "GET /health"]));
      const help = await helpOf("serve");
      const named = help.replace(/\s+/g, " ");
      for (const route of routes) expect(named, route).toMatch(new RegExp(`${route.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w/])`));
    } finally {
      await app.close();
      await store.close();
    }
  });

  it("gives each option's and limit's default as the code has it", async () => {
    const help = await helpOf("serve");
    const defaultOf = (name: string): string | undefined => new RegExp(`^ {2}${name}\\b.*\\(default ([^;,)]+)`, "m").exec(help)?.[1];
    expect(defaultOf("--port N")).toBe(String(DEFAULT_PORT));
    expect(defaultOf("--host H")).toBe(DEFAULT_HOST);
    expect(defaultOf("--ceiling N")).toBe(String(DEFAULT_LOOKBACK_CEILING));
    expect(defaultOf("--warmup-ceiling N")).toBe(String(DEFAULT_WARMUP_CEILING));
    const limits: Record<string, number> = {
      XQL_COST_BUDGET: DEFAULT_COST_BUDGET,
      XQL_MAX_RUNS_IN_FLIGHT: DEFAULT_MAX_RUNS_IN_FLIGHT,
      XQL_MAX_RUNS_QUEUED: DEFAULT_MAX_RUNS_QUEUED,
      XQL_HEADERS_TIMEOUT_MS: DEFAULT_HEADERS_TIMEOUT_MS,
      XQL_REQUEST_TIMEOUT_MS: DEFAULT_REQUEST_TIMEOUT_MS,
    };
    const documented = [...help.matchAll(/^ {2}(XQL_[A-Z_]+) /gm)].map((m) => m[1]!);
    expect(documented.sort()).toEqual(Object.keys(limits).sort());
    for (const [name, value] of Object.entries(limits)) {
      expect(defaultOf(name), name).toBe(String(value));
      // The variable is the one serve reads.
      expect(Object.keys(limitsFromEnv({ [name]: "7" })), name).toHaveLength(1);
    }
  });

  it("every option that states a default in the shared table states the code's", () => {
    expect(OPTIONS.ceiling.description).toContain(`(default ${DEFAULT_LOOKBACK_CEILING})`);
    expect(OPTIONS["warmup-ceiling"].description).toContain(`(default ${DEFAULT_WARMUP_CEILING})`);
    expect(OPTIONS.port.description).toContain(`(default ${DEFAULT_PORT};`);
    expect(OPTIONS.host.description).toContain(`(default ${DEFAULT_HOST};`);
  });
});

describe("the database a command opens", () => {
  /** The variables a text names, in its order. */
  const variablesIn = (text: string): string[] => [...text.matchAll(/\$(XQL_[A-Z_]+)/g)].map((m) => m[1]!);

  it("is found in the order the README and --db's help give", () => {
    const sentence = /The database is `--db FILE`[\s\S]*?\.\n/.exec(readme)?.[0] ?? "";
    const order = variablesIn(sentence);
    expect(order).toEqual(variablesIn(OPTIONS.db.description));
    expect(order.length).toBeGreaterThanOrEqual(2);
    const values: Record<string, string> = { XQL_DATABASE_URL: "postgres://h/db", XQL_DB: "/data/file.db" };
    // With every variable set, the first wins; without it, the next one.
    for (let i = 0; i < order.length; i++) {
      const env = Object.fromEntries(order.slice(i).map((name) => [name, values[name]!]));
      expect(databasePath(undefined, env, "/"), order[i]).toBe(values[order[i]!]);
    }
    expect(databasePath("x.db", { XQL_DATABASE_URL: "postgres://h/db" }, "/work")).toBe("/work/x.db");
  });
});

describe("README", () => {
  it("names every MCP tool, and says how many there are", () => {
    const section = /## AI assistants \(MCP\)[\s\S]*?\n## /.exec(readme)?.[0] ?? "";
    for (const { name } of MCP_TOOLS) expect(section, name).toContain(`\`${name}\``);
    const words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    expect(section).toContain(`The assistant gets ${words[MCP_TOOLS.length - 1]} tools`);
  });
});
