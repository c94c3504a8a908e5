/**
 * `xql serve`: the HTTP service on the embedded store, seeded on first start. Fastify, the
 * stores and Redis are imported when the command runs, so `--help` prints in a library install.
 */
import type { Command } from "../command.js";
import { CliError, QUERY_LIMIT_OPTIONS, UsageError, optionsHelp, parseCommandLine, pick, positiveInteger } from "../command.js";
import { DEFAULT_WARMUP } from "../../fetch/fetch.js";
import { FallbackKeyStore } from "../../accounts/key-fallback.js";
import type { RedisQuotaStore } from "../../accounts/redis.js";
import { databasePath, marketsOf, openStore, redisUrl, seedOnFirstUse } from "../store.js";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { messageOf } from "../../errors.js";

/** Where `xql serve` listens unless told otherwise. */
export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";

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

/** The options of `xql serve` (the deploy files are checked against them). */
export const SERVE_OPTIONS = { ...pick("port", "host", "db", "redis"), ...QUERY_LIMIT_OPTIONS, ...pick("cache-mb", "quiet", "allow-private-webhooks", "metrics-port", "metrics-host", "lease-seconds", "alert-grace") };

const help = `Usage: xql serve [--port ${DEFAULT_PORT}] [--host ${DEFAULT_HOST}] [--db FILE|postgres://…] [--redis redis://…]
                 [--ceiling N] [--warmup-ceiling N] [--cache-mb 512] [--quiet]
                 [--allow-private-webhooks] [--metrics-port PORT [--metrics-host 127.0.0.1]]
                 [--lease-seconds 15] [--alert-grace 5]

Starts the XQL HTTP service on the embedded SQLite store:
  POST /xql/validate  POST /xql/explain  POST /xql/run  POST /xql/history  GET /usage
  POST /xql/alerts    GET /xql/alerts    GET /xql/alerts/stream
  GET /xql/alerts/:id DELETE /xql/alerts/:id
  GET /xql/bars       GET /xql/symbols   GET /health        GET /openapi.json
  POST /xql/bars      bars from your own feed, with a --scope write key (docs/data.md)
  GET /xql/watchlists PUT /xql/watchlists/:name GET /xql/watchlists/:name DELETE /xql/watchlists/:name
  POST /xql/why       why a symbol matches a screen at a bar, or not (docs/why.md)
  GET /               the playground (open http://${DEFAULT_HOST}:${DEFAULT_PORT}/ in a browser)
  GET /favicon.ico    the playground's icon
Alerts are evaluated as base bars close and delivered by signed webhook and the stream
(docs/alerts.md); webhooks must be https:// to a public address unless
--allow-private-webhooks is given.
With --metrics-port, GET /metrics serves Prometheus metrics on a listener of its own
(unauthenticated: keep it on a private interface; needs prom-client). See docs/deployment.md.
On first start an empty store is seeded with the synthetic FOREX and CRYPTO universe.
Create a key with \`xql keys create --tier free\` (any time; no restart needed).

Logs are JSON lines on standard output (never a key). SIGTERM or SIGINT stops taking new
requests, lets running ones finish, closes the database and exits 0.

${optionsHelp(SERVE_OPTIONS)}

The database is shared by several replicas when it is a PostgreSQL URL; see docs/deployment.md.

Limits (environment; see docs/deployment.md, "Limits and guards"):
  XQL_COST_BUDGET          largest static cost of a query (default 100000)
  XQL_MAX_RUNS_IN_FLIGHT   requests one account has in work, on every authenticated route (default 4)
  XQL_MAX_RUNS_QUEUED      requests one account may have waiting (default 100; beyond: 429)
  XQL_HEADERS_TIMEOUT_MS   time to send the request headers (default 10000)
  XQL_REQUEST_TIMEOUT_MS   time to send the whole request (default 30000)
`;

/** The service's limits from the environment (unset: the defaults of createServer). */
export function limitsFromEnv(env: NodeJS.ProcessEnv): {
  costBudget?: number;
  maxRunsInFlight?: number;
  maxRunsQueued?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
} {
  const read = (name: string, min: number): number | undefined => {
    const text = env[name];
    if (text === undefined || text === "") return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new UsageError(`${name} must be an integer of at least ${min} (found '${text}')`);
    return value;
  };
  const limits = {
    costBudget: read("XQL_COST_BUDGET", 1),
    maxRunsInFlight: read("XQL_MAX_RUNS_IN_FLIGHT", 1),
    maxRunsQueued: read("XQL_MAX_RUNS_QUEUED", 0),
    headersTimeoutMs: read("XQL_HEADERS_TIMEOUT_MS", 0),
    requestTimeoutMs: read("XQL_REQUEST_TIMEOUT_MS", 0),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

/** `EADDRINUSE` and friends in one line that says what to do. */
function listenProblem(error: unknown, host: string, port: number, flag = "--port"): unknown {
  const code = (error as { code?: string }).code;
  if (code === "EADDRINUSE") return new CliError(`port ${port} on ${host} is in use (another xql serve?); stop that process or pick another with ${flag}`);
  if (code === "EACCES") return new CliError(`no permission to listen on port ${port}; ports below 1024 need privileges, pick another with ${flag}`);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return new CliError(`cannot listen on ${host}: no such interface on this machine; try --host 127.0.0.1`);
  return error;
}

export const serveCommand: Command = {
  name: "serve",
  summary: "Start the HTTP service on the embedded store (seeded on first start)",
  help,
  async run(args, io) {
    const { values } = parseCommandLine("serve", args, SERVE_OPTIONS);
    const portText = values.port ?? String(DEFAULT_PORT);
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`xql serve: --port must be an integer from 0 to 65535, got '${portText}'`);
    const host = values.host ?? DEFAULT_HOST;
    const lookbackCeiling = positiveInteger("serve", "ceiling", values.ceiling);
    const warmupCeiling = positiveInteger("serve", "warmup-ceiling", values["warmup-ceiling"]);
    const cacheText = values["cache-mb"] ?? "512";
    if (!/^\d+$/.test(cacheText)) throw new UsageError(`xql serve: --cache-mb must be a whole number of MiB, got '${cacheText}'`);
    const cacheMb = Number(cacheText);
    const graceText = values["alert-grace"];
    if (graceText !== undefined && !/^\d+(\.\d+)?$/.test(graceText)) throw new UsageError(`xql serve: --alert-grace must be a number of seconds, got '${graceText}'`);
    // The floor of 300 bars per source is cut too when the ceiling is lower.
    const warmup = Math.min(DEFAULT_WARMUP, warmupCeiling ?? DEFAULT_WARMUP);
    const limits = limitsFromEnv(io.env);
    const metricsPortText = values["metrics-port"];
    if (metricsPortText !== undefined && (!/^\d+$/.test(metricsPortText) || Number(metricsPortText) > 65535)) {
      throw new UsageError(`xql serve: --metrics-port must be an integer from 0 to 65535, got '${metricsPortText}'`);
    }
    if (values["metrics-host"] !== undefined && metricsPortText === undefined) throw new UsageError("xql serve: --metrics-host needs --metrics-port");
    const leaseSeconds = positiveInteger("serve", "lease-seconds", values["lease-seconds"], 3600);
    const { createServer, metricsAddress, MissingPromClientError } = await import("../../server/index.js");
    const { NEEDS_PROM_CLIENT } = await import("../../server/metrics.js");

    const store = await openStore(databasePath(values.db, io.env, io.cwd), io.stderr);
    const redis = redisUrl(values.redis, io.env);
    let quota: RedisQuotaStore | undefined;
    try {
      await seedOnFirstUse(store, io.stderr);
      if (redis !== undefined) quota = await (await import("../../accounts/redis.js")).RedisQuotaStore.open(redis);
    } catch (error) {
      await store.close();
      throw error;
    }
    // On PostgreSQL, keys already seen keep authenticating while the database is down.
    const keys = store.backend === "postgres" ? new FallbackKeyStore(store) : undefined;
    let app: ReturnType<typeof createServer>;
    try {
      app = createServer({
        store,
        keys,
        quota,
        warmup,
        ...(cacheMb === 0 ? { cache: false as const } : { cacheMb }),
        markets: await marketsOf(store),
        ...(lookbackCeiling === undefined ? {} : { lookbackCeiling }),
        ...(warmupCeiling === undefined ? {} : { warmupCeiling }),
        logger: values.quiet ? false : { level: "info", stream: { write: (line: string) => io.stdout.write(line) } },
        playgroundDir: playgroundDir(),
        allowPrivateWebhooks: values["allow-private-webhooks"] === true,
        ...(leaseSeconds === undefined && graceText === undefined
          ? {}
          : { alertTiming: { ...(leaseSeconds === undefined ? {} : { leaseMs: leaseSeconds * 1000 }), ...(graceText === undefined ? {} : { graceMs: Math.round(Number(graceText) * 1000) }) } }),
        ...(metricsPortText === undefined ? {} : { metrics: { port: Number(metricsPortText), host: values["metrics-host"] ?? DEFAULT_HOST } }),
        ...limits,
      });
    } catch (error) {
      quota?.close();
      await store.close();
      throw error instanceof MissingPromClientError ? new CliError(`--metrics-port ${NEEDS_PROM_CLIENT}`) : error;
    }
    try {
      await app.listen({ port, host });
    } catch (error) {
      quota?.close();
      await store.close();
      // The metrics listener opens as the app gets ready, before the service's own.
      const metricsHost = values["metrics-host"] ?? DEFAULT_HOST;
      if (metricsPortText !== undefined && metricsAddress(app) === undefined) throw listenProblem(error, metricsHost, Number(metricsPortText), "--metrics-port");
      throw listenProblem(error, host, port);
    }
    const address = app.server.address();
    const bound = address !== null && typeof address === "object" ? address.port : port;
    const shownHost = host.includes(":") ? `[${host}]` : host;
    if ((await store.listKeys()).every((k) => k.revokedAt !== null)) {
      io.stderr.write("xql serve: no API keys yet; create one with `xql keys create --tier free`\n");
    }
    const metricsAt = metricsAddress(app);
    if (metricsAt) {
      const metricsHost = metricsAt.address.includes(":") ? `[${metricsAt.address}]` : metricsAt.address;
      io.stderr.write(`xql serve: metrics on http://${metricsHost}:${metricsAt.port}/metrics\n`);
    }
    // The "listening" line comes last: scripts (and the tests) wait for it.
    io.stderr.write(`xql serve: listening on http://${shownHost}:${bound} (database ${store.file}${quota ? `, quota in ${quota.url}` : ""})\n`);

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
            io.stderr.write(`xql serve: stopped (${signal})\n`);
            resolve(0);
          },
          async (error: unknown) => {
            quota?.close();
            await store.close();
            io.stderr.write(`xql serve: error while stopping: ${messageOf(error)}\n`);
            resolve(1);
          },
        );
      };
      io.onStop((reason) => stop(reason as NodeJS.Signals));
    });
  },
};
