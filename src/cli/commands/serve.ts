/** `xql serve`: the HTTP service on the embedded store, seeded on first start. */
import type { Command } from "../command.js";
import { UsageError, parseFlags } from "../command.js";
import { DEFAULT_WARMUP } from "../../data/fetch.js";
import { createServer } from "../../server/index.js";
import { FallbackKeyStore } from "../../data/key-fallback.js";
import { RedisQuotaStore } from "../../data/redis.js";
import { databasePath, marketsOf, openStore, redisUrl, seedOnFirstUse } from "../store.js";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The built playground: `dist/playground` beside the bin's `dist/cli/`, or, running the
 * sources (tsx), the checkout's `dist/playground` after `npm run build`.
 */
function playgroundDir(): string | undefined {
  for (const candidate of ["../playground/", "../../../dist/playground/"]) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

const help = `Usage: xql serve [--port 8787] [--host 127.0.0.1] [--db FILE|postgres://…] [--redis redis://…] [--warmup N] [--quiet]

Starts the XQL HTTP service on the embedded SQLite store:
  POST /xql/validate  POST /xql/explain  POST /xql/run  GET /usage
  GET /xql/bars       GET /health        GET /openapi.json
  GET /               the playground (open http://127.0.0.1:8787/ in a browser)
On first start an empty store is seeded with the synthetic FOREX and CRYPTO universe.
Create a key with \`xql keys create --tier free\` (any time; no restart needed).

Logs are JSON lines on standard output (never a key). SIGTERM or SIGINT stops taking new
requests, lets running ones finish, closes the database and exits 0.

Options:
  --port N      TCP port (default 8787; 0 picks a free one)
  --host H      interface to listen on (default 127.0.0.1; 0.0.0.0 for all)
  --db FILE     database file (default: $XQL_DB, else .xql/xql.db), or a PostgreSQL URL
                (default: $XQL_DATABASE_URL) shared by several replicas; see docs/deployment.md
  --redis URL   Redis for the daily quota counters, shared by replicas (default: $XQL_REDIS_URL;
                without it the database keeps them)
  --warmup N    bars of history fetched per source (default ${DEFAULT_WARMUP})
  --quiet       no request logs
`;

export const serveCommand: Command = {
  name: "serve",
  summary: "Start the HTTP service on the embedded store (seeded on first start)",
  help,
  async run(args) {
    const { flags, positionals } = parseFlags(args, ["quiet"]);
    if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'`);
    const port = Number(flags.get("port") ?? "8787");
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError("--port must be an integer from 0 to 65535");
    const host = flags.get("host") ?? "127.0.0.1";
    const warmup = Number(flags.get("warmup") ?? DEFAULT_WARMUP);
    if (!Number.isInteger(warmup) || warmup < 1) throw new UsageError("--warmup must be a positive integer");

    const store = await openStore(databasePath(flags.get("db")));
    const redis = redisUrl(flags.get("redis"));
    let quota: RedisQuotaStore | undefined;
    try {
      await seedOnFirstUse(store);
      if (redis !== undefined) quota = await RedisQuotaStore.open(redis);
    } catch (error) {
      await store.close();
      throw error;
    }
    // On PostgreSQL, keys already seen keep authenticating while the database is down.
    const keys = store.backend === "postgres" ? new FallbackKeyStore(store) : undefined;
    const app = createServer({ store, keys, quota, warmup, markets: await marketsOf(store), logger: !flags.has("quiet"), playgroundDir: playgroundDir() });
    try {
      await app.listen({ port, host });
    } catch (error) {
      quota?.close();
      await store.close();
      throw error;
    }
    const address = app.server.address();
    const bound = address !== null && typeof address === "object" ? address.port : port;
    const shownHost = host.includes(":") ? `[${host}]` : host;
    if ((await store.listKeys()).every((k) => k.revokedAt !== null)) {
      process.stderr.write("xql serve: no API keys yet; create one with `xql keys create --tier free`\n");
    }
    // The "listening" line comes last: scripts (and the tests) wait for it.
    process.stderr.write(`xql serve: listening on http://${shownHost}:${bound} (database ${store.file}${quota ? `, quota in ${quota.url}` : ""})\n`);

    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) return;
        stopping = true;
        app.log.info({ signal }, "shutting down");
        app.close().then(
          async () => {
            quota?.close();
            await store.close();
            process.stderr.write(`xql serve: stopped (${signal})\n`);
            resolve(0);
          },
          async (error: unknown) => {
            quota?.close();
            await store.close();
            process.stderr.write(`xql serve: error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
            resolve(1);
          },
        );
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
  },
};
