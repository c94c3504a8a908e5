/**
 * `/metrics` for operators (decisions §10): the Prometheus text format through prom-client (an
 * optional peer: `npm install xql` leaves it out), on a listener of its own, unauthenticated
 * and off unless asked for (`xql serve --metrics-port`, `createServer({ metrics })`). Labels
 * carry route patterns, status codes and outcomes only, never a key, an account, a query or a
 * symbol, so the series stay few and the scrape leaks nothing.
 */
import { createServer as createHttpServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { FastifyInstance } from "fastify";
import type { AlertStore } from "../alerts/alerts.js";
import type { AlertObserver } from "../alerts/observer.js";
import type { ServicePart } from "./service.js";

/** Where `/metrics` listens unless told otherwise: loopback, so only this machine's scraper reads it. */
export const DEFAULT_METRICS_HOST = "127.0.0.1";

/** The `metrics` option of `createServer`. */
export interface MetricsOptions {
  /** Port of the metrics listener (0: any free one; see {@link metricsAddress}). */
  port: number;
  /** Interface of the metrics listener. Default {@link DEFAULT_METRICS_HOST}. */
  host?: string;
  /**
   * The prom-client registry to fill. Default: a new one per server, so tests and embedders that
   * run several servers in one process never share counters (nor prom-client's global registry).
   */
  registry?: Registry;
}

type PromClient = typeof import("prom-client");

/** prom-client, loaded when metrics are asked for; a clear message when it is not installed. */
function loadPromClient(): PromClient {
  try {
    return createRequire(import.meta.url)("prom-client") as PromClient;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new MissingPromClientError();
  }
}

/** What to say when prom-client is missing, after what needs it. */
export const NEEDS_PROM_CLIENT = "needs prom-client, which `npm install xql` leaves out so that the library installs light. Install it beside xql: npm install prom-client";

/** prom-client is not installed: the metrics listener cannot start. */
export class MissingPromClientError extends Error {
  /** The class's name, for logs and `instanceof`-free checks. */
  override readonly name = "MissingPromClientError";
  /** Node's code for a module that cannot be found, as the import itself would raise. */
  readonly code = "ERR_MODULE_NOT_FOUND";
  constructor() {
    super(`metrics ${NEEDS_PROM_CLIENT}`);
  }
}

/** Round durations, s: from a few screens (tens of ms) to a backlog near an h1 bar's duration. */
const ROUND_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
/** Request durations, s. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The service's metrics on one registry, and what feeds them. */
export class ServiceMetrics {
  readonly registry: Registry;
  private readonly requests: Counter<"route" | "status">;
  private readonly requestSeconds: Histogram<"route">;
  private readonly barsWritten: Counter;
  private readonly deliveries: Counter<"outcome">;
  private readonly evaluations: Counter;
  private readonly screenEvaluations: Counter;
  private readonly screenDiscards: Counter;
  private readonly roundSeconds: Histogram;
  private readonly held: Gauge;
  private backlogOf: (() => Promise<number>) | undefined;

  constructor(registry?: Registry) {
    const prom = loadPromClient();
    this.registry = registry ?? new prom.Registry();
    const registers = [this.registry];
    prom.collectDefaultMetrics({ register: this.registry });
    this.requests = new prom.Counter({
      name: "xql_http_requests_total",
      help: "HTTP requests answered, by route pattern and status code",
      labelNames: ["route", "status"],
      registers,
    });
    this.requestSeconds = new prom.Histogram({
      name: "xql_http_request_duration_seconds",
      help: "Time from a request's arrival to its answer, by route pattern",
      labelNames: ["route"],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.barsWritten = new prom.Counter({ name: "xql_store_bars_written_total", help: "Bars this process wrote through POST /xql/bars", registers });
    this.deliveries = new prom.Counter({
      name: "xql_alert_deliveries_total",
      help: "Webhook delivery attempts this process settled, by outcome (delivered, retried, failed)",
      labelNames: ["outcome"],
      registers,
    });
    for (const outcome of ["delivered", "retried", "failed"]) this.deliveries.inc({ outcome }, 0);
    this.evaluations = new prom.Counter({ name: "xql_alert_evaluations_total", help: "(alert, bar) evaluations this process committed", registers });
    this.screenEvaluations = new prom.Counter({
      name: "xql_alert_screen_evaluations_total",
      help: "Evaluations of a distinct screen at a bar by this process (committed by it)",
      registers,
    });
    this.screenDiscards = new prom.Counter({
      name: "xql_alert_screen_evaluations_discarded_total",
      help: "Evaluations of a distinct screen at a bar by this process that another process had committed first (work done twice)",
      registers,
    });
    this.roundSeconds = new prom.Histogram({
      name: "xql_alert_round_duration_seconds",
      help: "Duration of this process's alert rounds (balancing leases, evaluating its screens, committing)",
      buckets: ROUND_BUCKETS,
      registers,
    });
    this.held = new prom.Gauge({ name: "xql_alert_screens_held", help: "Distinct screens this process evaluates (all of them on SQLite; its leases on PostgreSQL)", registers });
    const metrics = this;
    new prom.Gauge({
      name: "xql_alert_outbox_backlog",
      help: "Deliveries waiting for their webhook (pending, all replicas)",
      registers,
      async collect() {
        if (metrics.backlogOf) this.set(await metrics.backlogOf().catch(() => Number.NaN));
      },
    });
  }

  /** Counts every answer of the app by its route pattern (`/xql/alerts/:id`, never the URL); `unmatched` for 404s. */
  instrument(app: FastifyInstance): void {
    app.addHook("onResponse", async (request, reply) => {
      const route = request.routeOptions.url ?? "unmatched";
      this.requests.inc({ route, status: String(reply.statusCode) });
      this.requestSeconds.observe({ route }, reply.elapsedTime / 1000);
    });
  }

  /** Bars a push committed. */
  readonly barsWrittenBy = (count: number): void => {
    this.barsWritten.inc(count);
  };

  /** The outbox backlog gauge reads `alerts` at each scrape. */
  readBacklog(alerts: AlertStore): void {
    this.backlogOf = () => alerts.backlog();
  }

  /** The alert engine's side. */
  readonly alerts: AlertObserver = {
    round: (seconds) => this.roundSeconds.observe(seconds),
    screens: (count) => this.screenEvaluations.inc(count),
    discarded: (count) => this.screenDiscards.inc(count),
    committed: (count) => this.evaluations.inc(count),
    held: (count) => this.held.set(count),
    delivery: (outcome) => this.deliveries.inc({ outcome }),
  };
}

const addresses = new WeakMap<FastifyInstance, AddressInfo>();

/** Where the app's metrics listener is bound, once the app is ready (undefined without metrics). */
export function metricsAddress(app: FastifyInstance): AddressInfo | undefined {
  return addresses.get(app);
}

/**
 * Serves `GET /metrics` of `metrics` on its own listener, opened when the app is ready and
 * closed with it. A node:http server, not a route of the app: scrapes bypass keys, quotas and
 * the app's own request metrics.
 */
function serveMetrics(app: FastifyInstance, metrics: ServiceMetrics, options: MetricsOptions): void {
  let server: Server | undefined;
  app.addHook("onReady", async () => {
    const listener = createHttpServer((request, response) => {
      const path = (request.url ?? "").split("?")[0];
      if (request.method !== "GET" || path !== "/metrics") {
        response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: the metrics are at GET /metrics\n");
        return;
      }
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
        () => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("The metrics could not be collected\n"),
      );
    });
    await new Promise<void>((resolve, reject) => {
      listener.once("error", reject);
      listener.listen(options.port, options.host ?? DEFAULT_METRICS_HOST, () => {
        listener.off("error", reject);
        resolve();
      });
    });
    server = listener;
    addresses.set(app, listener.address() as AddressInfo);
  });
  app.addHook("onClose", async () => {
    if (!server) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    server.closeAllConnections();
    await closing;
  });
}

/** `/metrics` on its own listener, and every answer of the app counted, when `createServer({ metrics })` asks for them. */
export const metricsPart: ServicePart = (app, { metrics, options }) => {
  if (!metrics || !options.metrics) return;
  metrics.instrument(app);
  serveMetrics(app, metrics, options.metrics);
};
