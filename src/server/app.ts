/**
 * The Fastify application, composed from its parts: `auth.ts` (keys, before the body),
 * `quota.ts` (days, headers, runs in flight), `body.ts` (text and JSON bodies, hints),
 * `routes.ts` (the endpoints, in the contract's order), `push.ts` (bars from a feed), and `errors.ts` (fixed bodies, the
 * error and not-found handlers). No language logic lives here: queries go to the core
 * (`validate`, `explain`, `compile`), bars come from a {@link BarStore}.
 */
import Fastify from "fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import type { XqlOptions } from "../types.js";
import { XqlError } from "../errors.js";
import { DEFAULT_LOOKBACK_CEILING, DEFAULT_MARKETS, DEFAULT_WARMUP_CEILING } from "../types.js";
import { DEFAULT_WARMUP } from "../fetch/fetch.js";
import { HotTier } from "../store/hot-tier.js";
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import type { BarStore } from "../store/store.js";
import { createAuthenticator } from "./auth.js";
import { installBodyParsers } from "./body.js";
import { installErrorHandlers } from "./errors.js";
import { loggedUrl } from "../redact.js";
import { openApiDocument } from "./openapi.js";
import { QueryCache } from "./query-cache.js";
import { ResultsCache } from "./results-cache.js";
import { chartBarsBound, registerPlayground } from "./playground.js";
import { setRateLimitHeaders, utcDay } from "./quota.js";
import { Admission, DEFAULT_MAX_RUNS_IN_FLIGHT, DEFAULT_MAX_RUNS_QUEUED } from "./admission.js";
import { DEFAULT_QUERY_CACHE_BYTES } from "./query-cache.js";
import { DEFAULT_RESULTS_CACHE_BYTES } from "./results-cache.js";
import { DEFAULT_COST_BUDGET } from "../plan/cost.js";
import { registerPush } from "./push.js";
import { registerRoutes } from "./routes.js";
import { type AlertStore, hasAlerts } from "../alerts/alerts.js";
import { AlertEngine } from "../alerts/engine.js";
import { type Resolver, systemResolver } from "../alerts/webhook-url.js";
import { DEFAULT_HEARTBEAT_MS, registerAlertRoutes } from "./alerts.js";
import { type MetricsOptions, ServiceMetrics, serveMetrics } from "./metrics.js";
import { hasWatchlists } from "../accounts/watchlists.js";
import { registerWatchlistRoutes } from "./watchlists.js";

/** Where the server reads the time; tests move it across midnight. */
export interface Clock {
  /** The current time in ms since epoch: it picks the quota's UTC day and the rate-limit reset. */
  now(): number;
}

/** The {@link Clock} of `Date.now()`, which {@link createServer} uses when no clock is given. */
export const systemClock: Clock = { now: () => Date.now() };

/** 64 KiB: the largest query body accepted. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** Options of {@link createServer}: the stores (one `store`, or `bars`, `keys` and `quota`), limits, logs, caches. */
export interface ServerOptions {
  /** One object serving as bar, key and quota store (the embedded SQLite store does). */
  store?: BarStore & KeyStore & QuotaStore;
  /** Bars; overrides `store`. */
  bars?: BarStore;
  /** Accounts and keys; overrides `store`. */
  keys?: KeyStore;
  /** Daily counters; overrides `store`. */
  quota?: QuotaStore;
  /** Where the time is read, for quota days and the rate-limit reset. Default {@link systemClock}. */
  clock?: Clock;
  /** Bars fetched per source beyond the plan's need (max(minLookback, warmup)). Default 300. */
  warmup?: number;
  /** Largest request body in bytes. Default 64 KiB. */
  bodyLimit?: number;
  /** Markets queries may name. Default FOREX and CRYPTO. */
  markets?: readonly string[];
  /** Largest minLookback a source may need. Default 300. */
  lookbackCeiling?: number;
  /** Largest warm-up a source may ask for (`XqlOptions.warmupCeiling`). Default 5000. */
  warmupCeiling?: number;
  /** Structured logs: false (default), true (JSON lines at info), or Fastify logger options. */
  logger?: FastifyServerOptions["logger"];
  /**
   * The hot tier runs read bars from (the latest bars of each series served, in memory, exact at
   * the store's data version): a {@link HotTier} to share, or false to read the store on every
   * run. Default: a new tier of `cacheMb`.
   */
  cache?: HotTier | false;
  /** The hot tier's budget in MiB (`xql serve --cache-mb`). Default 512. */
  cacheMb?: number;
  /** Bytes of parsed queries kept by text (validate, explain and compile results); 0 turns it off. Default 64 MiB. */
  queryCacheBytes?: number;
  /** Largest static cost of a query (see docs/deployment.md, "Limits and guards"). Default {@link DEFAULT_COST_BUDGET}. */
  costBudget?: number;
  /** Requests of one account worked on at once (every authenticated route); more wait. Default 4. */
  maxRunsInFlight?: number;
  /** Requests of one account that may wait; more answer 429. Default 100. */
  maxRunsQueued?: number;
  /** ms a client may take to send its headers; 0 turns the limit off. Default 10 000. */
  headersTimeoutMs?: number;
  /** ms a client may take to send a whole request; 0 turns the limit off. Default 30 000. */
  requestTimeoutMs?: number;
  /** ms between Node's checks for requests past those timeouts. Default 1000. */
  connectionsCheckMs?: number;
  /** Bytes of run and history answers kept per (query text, data version); 0 turns it off. Default 64 MiB. */
  resultsCacheBytes?: number;
  /**
   * Milliseconds of evaluation after which a run or history gives the event loop a turn, so one
   * large screen does not hold other callers for longer. Default 10.
   */
  evaluationSliceMs?: number;
  /** How long a cached run result is served, in ms. Default 5,000. */
  resultsCacheTtlMs?: number;
  /** The built playground (`dist/playground`), served at `/`; `xql serve` passes it. */
  playgroundDir?: string;
  /**
   * Where alerts are kept (decisions §7). Default: the bar store's own (`store.alerts` of the
   * built-in stores); `false`, or a bar store without one, serves no alerts routes and evaluates
   * nothing.
   */
  alerts?: AlertStore | false;
  /**
   * Accept `http://` webhooks and private, loopback and link-local addresses (`xql serve
   * --allow-private-webhooks`): for tests and local setups only. Default false.
   */
  allowPrivateWebhooks?: boolean;
  /** How webhook host names are resolved, at creation and before each delivery. Default: the system resolver. */
  webhookResolver?: Resolver;
  /** Alert timings in ms (defaults: delivery timeout 10,000, poll 1,000, settle 100, heartbeat 15,000, grace 5,000); the clock above times them too. */
  alertTiming?: {
    /** How long a webhook has to answer. */
    deliveryTimeoutMs?: number;
    /** How often deliveries committed by other processes are looked for (delivery worker, stream). */
    pollMs?: number;
    /** How long after a write of bars the alerts are evaluated (the rest of its batch lands meanwhile). */
    settleMs?: number;
    /** Between the stream's heartbeat comments. */
    heartbeatMs?: number;
    /** How long a screen's lease lasts without renewal on a store replicas share (PostgreSQL). Default 15,000. */
    leaseMs?: number;
    /** How long after a bar's close its round waits for symbols still to write it (`xql serve --alert-grace`; default 5,000). */
    graceMs?: number;
  };
  /**
   * `GET /metrics` on a listener of its own (decisions §10), in the Prometheus text format; needs
   * prom-client. Off by default. Its port is in `metricsAddress(app)` once the app is ready.
   */
  metrics?: MetricsOptions;
}

/** 10 s: the longest a client may take to send its request headers. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** 30 s: the longest a client may take to send a whole request (headers and body). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** 1 s: how often Node looks for requests past those timeouts (its default, 30 s, would let them run on). */
export const DEFAULT_CONNECTIONS_CHECK_MS = 1_000;

/**
 * The XQL HTTP service. Returns the Fastify instance unstarted: call `listen`, or mount it,
 * or drive it with `inject`.
 *
 * @throws TypeError when no bar, key or quota store is given, or a timeout is not a non-negative integer.
 *
 * @example
 * ```ts
 * import { createServer, openStore } from "xql/server";
 *
 * const store = await openStore("./xql.db"); // creates and migrates the file (or postgres://…)
 * const app = createServer({ store, logger: true });
 * await app.listen({ host: "127.0.0.1", port: 8787 });
 * // POST /xql/validate, /xql/explain, /xql/run and GET /usage, /health, /openapi.json
 * ```
 */
export function createServer(options: ServerOptions): FastifyInstance {
  const bars = options.bars ?? options.store;
  const keys = options.keys ?? options.store;
  const quota = options.quota ?? options.store;
  if (!bars || !keys || !quota) throw new TypeError("createServer needs a bar, key and quota store (or one `store` serving all three)");
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const headersTimeout = timeoutOption(options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS, "headersTimeoutMs");
  const requestTimeout = timeoutOption(options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, "requestTimeoutMs");
  const connectionsCheckingInterval = timeoutOption(options.connectionsCheckMs, DEFAULT_CONNECTIONS_CHECK_MS, "connectionsCheckMs");
  const xqlOptions: XqlOptions = {
    markets: options.markets ?? DEFAULT_MARKETS,
    lookbackCeiling: options.lookbackCeiling ?? DEFAULT_LOOKBACK_CEILING,
    ...(options.warmupCeiling === undefined ? {} : { warmupCeiling: options.warmupCeiling }),
    ...(options.costBudget === undefined ? {} : { costBudget: options.costBudget }),
  };

  // Keys never reach a log line: requests are logged without headers, without their query
  // string, and with any key written in the path replaced; the Authorization header is
  // redacted should another serializer include it.
  const redact = { paths: ["req.headers.authorization", "headers.authorization"], censor: "[redacted]" };
  const serializers = {
    req: (request: { method: string; url: string; ip?: string }) => ({ method: request.method, url: loggedUrl(request.url), remoteAddress: request.ip }),
  };
  const logger =
    options.logger === true
      ? { level: "info", redact, serializers }
      : typeof options.logger === "object" && options.logger !== null
        ? { redact, serializers, ...options.logger }
        : (options.logger ?? false);
  // Slow clients are cut off: Node closes a connection whose headers take longer than
  // headersTimeout or whose whole request takes longer than requestTimeout, but only when it
  // next checks (connectionsCheckingInterval, 30 s by default, hence 1 s here), and
  // headersTimeout must not exceed requestTimeout (Node's default, 60 s, would).
  const app = Fastify({
    logger,
    bodyLimit,
    return503OnClosing: true,
    requestTimeout,
    http: {
      headersTimeout: requestTimeout === 0 ? headersTimeout : Math.min(headersTimeout, requestTimeout),
      requestTimeout,
      connectionsCheckingInterval,
    },
  });

  installBodyParsers(app, bodyLimit);

  // `Expect: 100-continue`: Node would answer 100 at once, inviting the body before the key is
  // checked. Instead the request goes through the hooks, and 100 is sent only once the key has
  // passed (preParsing runs after onRequest); a refused caller gets its 401 without uploading.
  app.server.on("checkContinue", (request, response) => app.server.emit("request", request, response));
  app.addHook("preParsing", async (request, reply, payload) => {
    if (request.headers.expect?.toLowerCase() === "100-continue") reply.raw.writeContinue();
    return payload;
  });

  const clock = options.clock ?? systemClock;
  const admission = new Admission(options.maxRunsInFlight ?? DEFAULT_MAX_RUNS_IN_FLIGHT, options.maxRunsQueued ?? DEFAULT_MAX_RUNS_QUEUED);
  // Run and history answers carry the rate-limit headers for a known key, whatever went wrong
  // (an error, or the admission's 429).
  const rateLimitHeaders = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const caller = auth.maybeCallerOf(request);
    if (!caller || (request.routeOptions.url !== "/xql/run" && request.routeOptions.url !== "/xql/history")) return;
    try {
      const now = clock.now();
      const usage = await quota.usage(caller.accountId, utcDay(now), caller.limit);
      setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
    } catch {
      // The quota store is down as well; the answer goes out without the headers.
    }
  };
  // Every route that authenticates through this hook gets the per-account admission.
  const auth = createAuthenticator(keys, { admission, beforeRefusal: rateLimitHeaders });
  // And its work starts at a fair turn, once its body is read: parsing a 4,000-token query is
  // synchronous, so one account's admitted requests take one turn at a time, round-robin with
  // every other account's, instead of running back to back before anyone else's next step.
  app.addHook("preHandler", async (request) => {
    const caller = auth.maybeCallerOf(request);
    if (caller) await admission.turns.turn(caller.accountId);
  });
  const roles = new Map<unknown, string[]>();
  for (const [role, store] of [["bars", bars], ["keys", keys], ["quota", quota]] as const) {
    roles.set(store, [...(roles.get(store) ?? []), role]);
  }
  const tier = options.cache === false ? undefined : (options.cache ?? new HotTier(bars, { budgetBytes: cacheBytes(options.cacheMb) }));
  if (tier && options.cache === undefined) {
    // A tier of its own: it follows the store's writes while the server runs.
    tier.watch();
    app.addHook("onClose", async () => tier.close());
  }
  const queries = new QueryCache(xqlOptions, options.queryCacheBytes ?? DEFAULT_QUERY_CACHE_BYTES);
  // Watchlists live with the accounts (decisions §13).
  const watchlists = hasWatchlists(keys) ? keys : undefined;
  if (watchlists) registerWatchlistRoutes(app, { watchlists, auth, clock, bodyLimit });
  registerRoutes(app, {
    watchlists,
    bars,
    quota,
    dependencies: [...roles].map(([store, storeRoles]) => ({ roles: storeRoles, store: store as { health?: () => Promise<void> } })),
    auth,
    queries,
    clock,
    warmup: options.warmup ?? DEFAULT_WARMUP,
    cache: tier,
    admission,
    costBudget: options.costBudget ?? DEFAULT_COST_BUDGET,
    evaluationSliceMs: options.evaluationSliceMs ?? 10,
    runs: new ResultsCache(options.resultsCacheBytes ?? DEFAULT_RESULTS_CACHE_BYTES, options.resultsCacheTtlMs ?? 5_000),
    openApi: JSON.stringify(openApiDocument()),
  });

  const metrics = options.metrics ? new ServiceMetrics(options.metrics.registry) : undefined;
  if (metrics && options.metrics) {
    metrics.instrument(app);
    serveMetrics(app, metrics, options.metrics);
  }
  registerPush(app, { bars, auth, clock, admission, markets: xqlOptions.markets!, ...(metrics ? { onWritten: metrics.barsWrittenBy } : {}) });

  registerPlayground(app, {
    bars,
    authenticate: auth.authenticate,
    markets: xqlOptions.markets!,
    dir: options.playgroundDir,
    // What a run may read for one source: its anchors' reach (decisions §9) over its fetch,
    // max(minLookback, warm-up), each under its ceiling.
    maxBars: chartBarsBound(Math.max(xqlOptions.lookbackCeiling!, options.warmupCeiling ?? DEFAULT_WARMUP_CEILING)),
  });

  const owner = [options.store, bars].find(hasAlerts);
  const alerts = options.alerts === false ? undefined : (options.alerts ?? (owner && hasAlerts(owner) ? owner.alerts : undefined));
  if (alerts) {
    const resolve = options.webhookResolver ?? systemResolver;
    const timing = options.alertTiming ?? {};
    metrics?.readBacklog(alerts);
    const engine = new AlertEngine({
      bars,
      alerts,
      clock,
      compile: (text) => {
        const compiled = queries.compile(text);
        return compiled instanceof XqlError ? undefined : compiled;
      },
      warmup: options.warmup ?? DEFAULT_WARMUP,
      cache: tier,
      watchlists,
      sliceMs: options.evaluationSliceMs ?? 10,
      allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
      resolve,
      deliveryTimeoutMs: timing.deliveryTimeoutMs,
      pollMs: timing.pollMs,
      settleMs: timing.settleMs,
      leaseMs: timing.leaseMs,
      observer: metrics?.alerts,
      graceMs: timing.graceMs,
      log: app.log,
    });
    registerAlertRoutes(app, {
      alerts,
      engine,
      auth,
      queries,
      clock,
      bodyLimit,
      allowPrivateWebhooks: options.allowPrivateWebhooks ?? false,
      resolve,
      heartbeatMs: timing.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      watchlists,
    });
    app.addHook("onReady", async () => engine.start());
    // Open streams end before the server waits for its connections to close.
    app.addHook("preClose", async () => engine.hub.close());
    app.addHook("onClose", async () => engine.stop());
  }

  installErrorHandlers(app, {
    bodyLimit,
    beforeError: rateLimitHeaders,
  });

  return app;
}

function cacheBytes(mb: number | undefined): number | undefined {
  if (mb === undefined) return undefined;
  if (!Number.isInteger(mb) || mb < 0) throw new TypeError("createServer: cacheMb must be a non-negative integer (MiB)");
  return mb * 1024 * 1024;
}

function timeoutOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`createServer: ${name} must be a non-negative integer (ms)`);
  return value;
}
