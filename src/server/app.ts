/**
 * The Fastify application, composed from its parts, one per route family, each given the
 * {@link ServiceContext} (`service.ts`: the store handles, the clock, the limits, the request
 * pipeline of `auth.ts` and `admission.ts`) and registering its routes: the query routes
 * (`query-routes.ts`, metered through `metered.ts`), `/usage` (`usage.ts`), `/health`
 * (`health.ts`), `/openapi.json` (`openapi.ts`), `/metrics` (`metrics.ts`), bars pushed by a
 * feed (`push.ts`), the playground (`playground.ts`), alerts (`alerts.ts`) and watchlists
 * (`watchlists.ts`). Bodies are read by `body.ts`; errors answer through `errors.ts`. No
 * language logic lives here: queries go to the core (`validate`, `explain`, `compile`), bars
 * come from a {@link BarStore}.
 */
import Fastify from "fastify";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { Clock, Sleep, systemClock } from "../clock.js";
import type { HotTier } from "../store/hot-tier.js";
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import type { BarStore } from "../store/store.js";
import type { AlertStore } from "../alerts/alerts.js";
import type { Resolver } from "../alerts/webhook-url.js";
import type { DEFAULT_COST_BUDGET } from "../plan/cost.js";
import { loggedUrl } from "../redact.js";
import { alertsPart } from "./alerts.js";
import { barsReadPart } from "./bars-read.js";
import { installBodyParsers } from "./body.js";
import { installErrorHandlers } from "./errors.js";
import { healthPart } from "./health.js";
import { type MetricsOptions, metricsPart } from "./metrics.js";
import { openApiPart } from "./openapi.js";
import { playgroundPart } from "./playground.js";
import { pushPart } from "./push.js";
import { queriesPart } from "./query-routes.js";
import { type ServicePart, limitsOf, serviceOf, storesOf } from "./service.js";
import { usagePart } from "./usage.js";
import { watchlistsPart } from "./watchlists.js";

/** Options of {@link createServer}: the stores (one `store`, or `bars`, `keys` and `quota`), limits, logs, caches. */
export interface ServerOptions {
  /**
   * The bars with their accounts (keys and quota counters): what `openStore` returns. Its
   * accounts are read through its `accounts` handle when it has one, else from the store itself.
   */
  store?: BarStore & ((KeyStore & QuotaStore) | { readonly accounts: KeyStore & QuotaStore });
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
    /** How a delivery attempt waits that long: real timers by default (a test fires its timeouts by hand). */
    deliveryTimeout?: Sleep;
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
 * The service's parts, registered in this order (the order their routes and hooks always had):
 * hooks of one kind (`onReady`, `onClose`) run in it.
 */
const PARTS: readonly ServicePart[] = [watchlistsPart, queriesPart, usagePart, healthPart, openApiPart, metricsPart, pushPart, playgroundPart, barsReadPart, alertsPart];

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
  const stores = storesOf(options);
  const limits = limitsOf(options);
  const app = fastifyOf(options, limits.bodyLimit);
  const service = serviceOf(app, options, stores, limits);
  for (const part of PARTS) part(app, service);
  installErrorHandlers(app, { bodyLimit: limits.bodyLimit, beforeError: service.rateLimitHeaders });
  return app;
}

/**
 * The bare Fastify instance: logs that never hold a key, slow clients cut off, the body
 * parsers, and `Expect: 100-continue` answered only once the key has passed.
 */
function fastifyOf(options: ServerOptions, bodyLimit: number): FastifyInstance {
  const headersTimeout = timeoutOption(options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS, "headersTimeoutMs");
  const requestTimeout = timeoutOption(options.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, "requestTimeoutMs");
  const connectionsCheckingInterval = timeoutOption(options.connectionsCheckMs, DEFAULT_CONNECTIONS_CHECK_MS, "connectionsCheckMs");

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
  return app;
}

function timeoutOption(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`createServer: ${name} must be a non-negative integer (ms)`);
  return value;
}
