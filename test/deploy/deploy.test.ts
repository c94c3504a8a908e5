/**
 * The deploy files of docs/data.md (`deploy/`): the compose file and the systemd units are
 * parsed (not run), their commands checked against the real options of `xql serve` and
 * `xql data sync`, the backfill command run against the exchange stand-in, and the page must
 * show each file exactly as it is.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseCommandLine } from "../../src/cli/command.js";
import { DATA_ACTION_OPTIONS } from "../../src/cli/commands/data.js";
import { SERVE_OPTIONS } from "../../src/cli/commands/serve.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { xqlIn } from "../cli/in-process.js";
import { ROOT } from "../cli/run-cli.js";
import type { ExchangeStandIn } from "../ingest/exchange-stand-in.js";
import { standIn } from "../ingest/sync-helpers.js";
import { tempDir } from "../kit/index.js";

const read = (file: string): string => readFileSync(join(ROOT, file), "utf8");
const DOCS = read("docs/data.md");

interface Service {
  build: string;
  command: string[];
  volumes: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  stop_signal?: string;
  restart?: string;
}

/** Checks `args` (after `xql`) against the real option table of the command; returns its values. */
function check(args: readonly string[]): Record<string, string | boolean | undefined> {
  if (args[0] === "serve") return parseCommandLine("serve", args.slice(1), SERVE_OPTIONS).values;
  if (args[0] === "data" && args[1] === "sync") {
    const { values, positionals } = parseCommandLine("data sync", args.slice(2), DATA_ACTION_OPTIONS.sync, 1);
    expect(positionals).toEqual(["binance"]);
    return values;
  }
  throw new Error(`unexpected command: xql ${args.join(" ")}`);
}

/** The `[Section]` → key → value of a systemd unit. */
function unit(text: string): Record<string, Record<string, string>> {
  const sections: Record<string, Record<string, string>> = {};
  let section = "";
  for (const line of text.split("\n")) {
    const head = /^\[(\w+)\]$/.exec(line);
    if (head) sections[(section = head[1]!)] = {};
    else if (/^\w+=/.test(line)) sections[section]![line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
  }
  return sections;
}

describe("deploy files", () => {
  const compose = parse(read("deploy/compose.yaml")) as { services: Record<string, Service>; volumes: Record<string, unknown> };

  it("compose: a backfill, then xql serve beside data sync --follow on one database in one volume", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["backfill", "serve", "sync"]);
    expect(Object.keys(compose.volumes)).toEqual(["xql-data"]);
    const databases = new Set<string>();
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.build, name).toBe(".");
      expect(service.volumes, name).toEqual(["xql-data:/data"]);
      expect(service.command[0], name).toBe("xql");
      const values = check(service.command.slice(1));
      databases.add(values.db as string);
    }
    expect([...databases]).toEqual(["/data/xql.db"]);
    const { backfill, serve, sync } = compose.services as Record<string, Service>;
    expect(check(serve!.command.slice(1))).toMatchObject({ host: "0.0.0.0", port: "8787" });
    expect(serve!.ports).toEqual(["8787:8787"]);
    // The same sync, once to catch up and then following; both wait for the backfill, so the service seeds nothing.
    expect(sync!.command.filter((a) => a !== "--follow")).toEqual(backfill!.command);
    expect(check(sync!.command.slice(1)).follow).toBe(true);
    expect(check(backfill!.command.slice(1)).follow).toBeUndefined();
    for (const service of [serve!, sync!]) {
      expect(service.depends_on).toEqual({ backfill: { condition: "service_completed_successfully" } });
      expect(service.restart).toBe("unless-stopped");
    }
    expect(sync!.stop_signal).toBe("SIGINT");
  });

  it("the image installs what serve and data sync need", () => {
    const dockerfile = read("deploy/Dockerfile");
    const install = /RUN npm install ([^&\n]+)/.exec(dockerfile)![1]!.trim().split(/\s+/);
    for (const pkg of ["xql", "fastify", "better-sqlite3", "ccxt"]) expect(install).toContain(pkg);
  });

  it("systemd: the sync stops with SIGINT after the batch in hand; both units use one database in StateDirectory", () => {
    const databases = new Set<string>();
    for (const file of ["deploy/xql-sync.service", "deploy/xql-serve.service"]) {
      const { Service: service } = unit(read(file));
      expect(service!.StateDirectory).toBe("xql");
      const [env, xql, ...args] = service!.ExecStart!.split(" ");
      expect([env, xql]).toEqual(["/usr/bin/env", "xql"]);
      databases.add(check(args).db as string);
      if (file.includes("sync")) {
        expect(check(args).follow).toBe(true);
        expect(service!.KillSignal).toBe("SIGINT");
        expect(service!.Restart).toBe("on-failure");
      }
    }
    expect([...databases]).toEqual(["/var/lib/xql/xql.db"]);
  });

  it("docs/data.md shows every file as it is", () => {
    for (const file of ["deploy/compose.yaml", "deploy/xql-sync.service", "deploy/xql-serve.service"]) expect(DOCS, file).toContain(read(file).trimEnd());
  });

  describe("the backfill command", () => {
    let exchange: ExchangeStandIn;
    let dir: string;
    let cleanup: () => void;
    beforeAll(async () => {
      ({ dir, cleanup } = tempDir());
      exchange = await standIn([
        { base: "BTC", quote: "USDT", quoteVolume: 2e9 },
        { base: "ETH", quote: "USDT", quoteVolume: 1e9 },
      ]);
    });
    afterAll(async () => {
      await exchange.stop();
      cleanup();
    });

    it("runs as written, pointed at the stand-in and a scratch file", async () => {
      const args = compose.services.backfill!.command.slice(1).map((a) => (a === "/data/xql.db" ? join(dir, "xql.db") : a));
      const result = await xqlIn([...args, "--since", "3d", "--api-url", exchange.url]);
      expect(result.code, result.stderr).toBe(0);
      expect(exchange.unanswered).toEqual([]);
      const store = new SqliteStore(join(dir, "xql.db"));
      try {
        expect([...new Set((await store.series("CRYPTO")).map((s) => s.symbol))]).toEqual(["BTCUSDT", "ETHUSDT"]);
      } finally {
        await store.close();
      }
    });
  });
});
