/**
 * The alerts routes (decisions §7): `POST/GET /xql/alerts`, `GET/DELETE /xql/alerts/{id}` and
 * the Server-Sent Events stream `GET /xql/alerts/stream`. Authenticated like every `/xql/`
 * route, never metered (an alert's evaluations are not runs). Registered as a plugin with its
 * own body parser: an alert is JSON `{ query, webhook?, name? }`, not the query text the other
 * routes read. The work — baselines, evaluation, delivery, the stream — is the engine's
 * (`src/alerts/`); no language logic here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { randomBase62 } from "../accounts/keys.js";
import { XqlError, messageOf } from "../errors.js";
import { ALERT_LIMITS, generateWebhookSecret, type AlertHead, type AlertStore, type DeliverySummary } from "../alerts/alerts.js";
import { AlertEngine } from "../alerts/engine.js";
import { STREAM_LIMITS, type StreamSink } from "../alerts/stream.js";
import { type Resolver, WEBHOOK_REFUSED, checkedAddresses, parseWebhookUrl, systemResolver } from "../alerts/webhook-url.js";
import type { Authenticator } from "./auth.js";
import type { QueryCache } from "./query-cache.js";
import { fromStore } from "./errors.js";
import type { ServicePart } from "./service.js";
import type { Clock } from "../clock.js";
import { type WatchlistStore, resolveWatchlist } from "../accounts/watchlists.js";

/** The body of a refused creation beyond the tier's alerts. */
export const ALERT_LIMIT_REACHED = { error: "Alert limit reached for this tier" } as const;
const ALERT_NOT_FOUND = { error: "Alert not found" } as const;
/** The body of a stream refused beyond the tier's open streams. */
export const TOO_MANY_STREAMS = { error: "Too many open streams for this account" } as const;
/** Longest alert name. */
const MAX_NAME_LENGTH = 200;
/** Deliveries shown with one alert. */
const RECENT_DELIVERIES = 20;
/** 15 s between heartbeat comments: under the idle timeouts of common proxies (30–60 s). */
export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface AlertRouteOptions {
  alerts: AlertStore;
  engine: AlertEngine;
  auth: Authenticator;
  queries: QueryCache;
  clock: Clock;
  bodyLimit: number;
  allowPrivateWebhooks: boolean;
  resolve: Resolver;
  heartbeatMs: number;
  /** The accounts' saved lists, for alerts on `watchlist = "name"`. */
  watchlists?: WatchlistStore;
}

/** What a creation request asked for, or why it cannot be read. */
type AlertRequest = { query: string; webhook: string | null; name: string | undefined } | { problem: string };

const FORM = 'an alert is JSON {"query": "<query text>", "webhook"?: "https://...", "name"?: "..."}';

function alertRequestOf(text: unknown): AlertRequest {
  let value: unknown;
  try {
    value = JSON.parse(typeof text === "string" ? text : "");
  } catch {
    return { problem: `The body is not valid JSON; ${FORM}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: `The body is not a JSON object; ${FORM}` };
  const fields = value as Record<string, unknown>;
  const extra = Object.keys(fields).filter((k) => k !== "query" && k !== "webhook" && k !== "name");
  if (extra.length > 0) return { problem: `Unknown field${extra.length === 1 ? "" : "s"} ${extra.map((k) => JSON.stringify(k)).join(", ")}; ${FORM}` };
  if (typeof fields.query !== "string") return { problem: `"query" must be a string; ${FORM}` };
  if (fields.webhook !== undefined && fields.webhook !== null && typeof fields.webhook !== "string") return { problem: `"webhook" must be a string URL; ${FORM}` };
  if (fields.name !== undefined && typeof fields.name !== "string") return { problem: `"name" must be a string; ${FORM}` };
  const name = fields.name as string | undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name !== undefined && (name.trim() === "" || name.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(name))) {
    return { problem: `"name" must be 1 to ${MAX_NAME_LENGTH} characters without control characters` };
  }
  return { query: fields.query, webhook: (fields.webhook as string | null | undefined) ?? null, name: name?.trim() };
}

/** An alert as listed: never its secret. */
function listed(alert: AlertHead): Record<string, unknown> {
  return { id: alert.id, name: alert.name, query: alert.query, webhook: alert.webhook, createdAt: new Date(alert.createdAt).toISOString() };
}

function deliveryShown(d: DeliverySummary): Record<string, unknown> {
  return {
    id: d.id,
    time: d.time,
    events: d.events,
    status: d.status,
    attempts: d.attempts,
    createdAt: new Date(d.createdAt).toISOString(),
    deliveredAt: d.deliveredAt === null ? null : new Date(d.deliveredAt).toISOString(),
    nextAttemptAt: d.nextAttemptAt === null ? null : new Date(d.nextAttemptAt).toISOString(),
    lastError: d.lastError,
  };
}

/** `/xql/alerts`: create, list, read and delete an account's alerts, and the stream of their events. */
function registerAlertRoutes(app: FastifyInstance, options: AlertRouteOptions): void {
  registerAlertCreation(app, options);
  registerAlertReads(app, options);
  registerAlertStream(app, options);
}

/** `POST /xql/alerts`: the query checked, the webhook guarded, the tier's count held, the baseline read, then one atomic insert. */
function registerAlertCreation(app: FastifyInstance, options: AlertRouteOptions): void {
  const { alerts, engine, auth, queries, clock } = options;
  void app.register(async (scope) => {
    // The alerts' own body: any Content-Type is read as text, and the route reads it as JSON.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: options.bodyLimit }, (_request, body, done) => done(null, body));

    scope.post("/xql/alerts", { onRequest: auth.authenticate }, async (request, reply) => {
      const caller = auth.callerOf(request);
      const asked = alertRequestOf(request.body);
      if ("problem" in asked) return reply.code(400).send({ error: asked.problem });
      const parsed = queries.compile(asked.query);
      if (parsed instanceof XqlError) return reply.code(400).send({ valid: false, error: parsed.body });
      // An alert on a watchlist starts from the list as saved now (and follows it, bar by bar).
      const compiled = await fromStore(() => resolveWatchlist(parsed, caller.accountId, options.watchlists));
      if (compiled instanceof XqlError) return reply.code(400).send(compiled.toResult());
      if (asked.webhook !== null && !(await webhookAllowed(asked.webhook, options))) return reply.code(400).send(WEBHOOK_REFUSED);
      const limit = ALERT_LIMITS[caller.tier];
      // A cheap look first, so a full account costs no baseline; the insert below decides atomically.
      if ((await fromStore(() => alerts.listAlerts(caller.accountId))).length >= limit) return reply.code(403).send(ALERT_LIMIT_REACHED);
      const baseline = await fromStore(() => engine.baseline(compiled));
      const now = clock.now();
      const alert = {
        id: `alrt_${randomBase62(16)}`,
        accountId: caller.accountId,
        name: asked.name ?? defaultName(compiled.explanation),
        query: asked.query,
        webhook: asked.webhook,
        secret: generateWebhookSecret(),
        market: compiled.plan.market,
        timeframe: compiled.plan.sources[0]!.timeframe,
        createdAt: now,
        lastTime: baseline.time,
        matching: baseline.matching,
      };
      if (!(await fromStore(() => alerts.createAlert(alert, limit)))) return reply.code(403).send(ALERT_LIMIT_REACHED);
      // A bar that closed while the baseline was read is evaluated now, not at the next write.
      void engine.evaluate();
      request.log.info({ account: caller.accountId, alert: alert.id, market: alert.market, timeframe: alert.timeframe }, "alert created");
      return reply.code(201).send({
        id: alert.id,
        name: alert.name,
        query: alert.query,
        webhook: alert.webhook,
        secret: alert.secret,
        createdAt: new Date(now).toISOString(),
        matching: alert.matching.map((m) => m.symbol),
      });
    });
  });
}

/** `GET /xql/alerts`, `GET` and `DELETE /xql/alerts/:id`: the caller's own alerts only; another account's is a 404. */
function registerAlertReads(app: FastifyInstance, { alerts, auth }: AlertRouteOptions): void {
  app.get("/xql/alerts", { onRequest: auth.authenticate }, async (request, reply) => {
    const caller = auth.callerOf(request);
    const list = await fromStore(() => alerts.listAlerts(caller.accountId));
    return reply.send({ alerts: list.map(listed) });
  });

  app.get("/xql/alerts/:id", { onRequest: auth.authenticate }, async (request, reply) => {
    const caller = auth.callerOf(request);
    const { id } = request.params as { id: string };
    const alert = await fromStore(() => alerts.findAlert(caller.accountId, id));
    if (!alert) return reply.code(404).send(ALERT_NOT_FOUND);
    const deliveries = await fromStore(() => alerts.recentDeliveries(alert.id, RECENT_DELIVERIES));
    return reply.send({
      ...listed(alert),
      matching: alert.matching.map((m) => m.symbol),
      asOf: alert.lastTime === null ? null : new Date(alert.lastTime).toISOString(),
      deliveries: deliveries.map(deliveryShown),
    });
  });

  app.delete("/xql/alerts/:id", { onRequest: auth.authenticate }, async (request, reply) => {
    const caller = auth.callerOf(request);
    const { id } = request.params as { id: string };
    if (!(await fromStore(() => alerts.deleteAlert(caller.accountId, id)))) return reply.code(404).send(ALERT_NOT_FOUND);
    request.log.info({ account: caller.accountId, alert: id }, "alert deleted");
    return reply.code(204).send();
  });
}

/** `GET /xql/alerts/stream`: the account's events as Server-Sent Events, resumed after `Last-Event-ID`; long-lived: admitted, then out of the account's in-flight count at once. */
function registerAlertStream(app: FastifyInstance, { alerts, engine, auth, heartbeatMs }: AlertRouteOptions): void {
  app.get("/xql/alerts/stream", { onRequest: auth.authenticate, config: { longLived: true } }, async (request, reply) => {
    const caller = auth.callerOf(request);
    const header = request.headers["last-event-id"];
    const lastEventId = typeof header === "string" && header.trim() !== "" ? header.trim() : undefined;
    const slot = engine.hub.reserve(caller.accountId, STREAM_LIMITS[caller.tier]);
    if (!slot) return reply.code(429).send(TOO_MANY_STREAMS);
    try {
      // The store answers before the stream opens: a failure is still an ordinary 500.
      await fromStore(() => alerts.latestSeq());
    } catch (error) {
      slot.release();
      throw error;
    }
    streamTo(request, reply, (sink, signal) => engine.hub.serve(slot, lastEventId, sink, signal), heartbeatMs);
  });
}

/** A name for an alert created without one: its explanation, cut to fit. */
function defaultName(explanation: string): string {
  return explanation.length <= MAX_NAME_LENGTH ? explanation : `${explanation.slice(0, MAX_NAME_LENGTH - 1)}…`;
}

/**
 * The webhook as written passes the guard, and so does every address its name resolves to now.
 * A name that does not resolve yet passes: it is checked again, resolved, before each delivery.
 */
async function webhookAllowed(webhook: string, options: AlertRouteOptions): Promise<boolean> {
  const url = parseWebhookUrl(webhook, options.allowPrivateWebhooks);
  if (!url) return false;
  try {
    return (await checkedAddresses(url, options.allowPrivateWebhooks, options.resolve)) !== undefined;
  } catch {
    return true;
  }
}

/**
 * Answers with a Server-Sent Events stream fed by `serve` until the client goes away or the
 * server closes: comments as heartbeats (proxies keep an idle stream open while bytes flow).
 */
function streamTo(
  request: FastifyRequest,
  reply: FastifyReply,
  serve: (sink: StreamSink, signal: AbortSignal) => Promise<void>,
  heartbeatMs: number,
): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    // nginx buffers responses unless told otherwise; events must go out as they come.
    "x-accel-buffering": "no",
  });
  raw.write(": xql alerts stream\n\n");
  const ended = new AbortController();
  const end = (): void => ended.abort();
  request.raw.on("close", end);
  raw.on("close", end);
  const heartbeat = setInterval(() => raw.write(": heartbeat\n\n"), heartbeatMs);
  const sink: StreamSink = (text) =>
    new Promise((resolve) => {
      if (ended.signal.aborted || raw.write(text)) return resolve();
      // A slow reader: wait for its buffer to drain (or for it to leave).
      const go = (): void => {
        raw.off("drain", go);
        ended.signal.removeEventListener("abort", go);
        resolve();
      };
      raw.once("drain", go);
      ended.signal.addEventListener("abort", go, { once: true });
    });
  serve(sink, ended.signal)
    .catch((error: unknown) => request.log.error({ err: messageOf(error) }, "alerts stream failed"))
    .finally(() => {
      clearInterval(heartbeat);
      request.raw.off("close", end);
      raw.end();
    });
}

/**
 * Alerts on bar close (decisions §7), when the stores keep alerts: the engine that evaluates and
 * delivers them (started once the app is ready, stopped as it closes), their stream and routes.
 */
export const alertsPart: ServicePart = (app, { alerts, bars, clock, queries, cache, watchlists, auth, limits, metrics, options }) => {
  if (!alerts) return;
  const resolve = options.webhookResolver ?? systemResolver;
  const timing = options.alertTiming ?? {};
  const allowPrivateWebhooks = options.allowPrivateWebhooks ?? false;
  metrics?.readBacklog(alerts);
  const engine = new AlertEngine({
    bars,
    alerts,
    clock,
    compile: (text) => {
      const compiled = queries.compile(text);
      return compiled instanceof XqlError ? undefined : compiled;
    },
    warmup: limits.warmup,
    cache,
    watchlists,
    sliceMs: limits.evaluationSliceMs,
    allowPrivateWebhooks,
    resolve,
    deliveryTimeoutMs: timing.deliveryTimeoutMs,
    deliveryTimeout: timing.deliveryTimeout,
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
    bodyLimit: limits.bodyLimit,
    allowPrivateWebhooks,
    resolve,
    heartbeatMs: timing.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    watchlists,
  });
  app.addHook("onReady", async () => engine.start());
  // Open streams end before the server waits for its connections to close.
  app.addHook("preClose", async () => engine.hub.close());
  app.addHook("onClose", async () => engine.stop());
};
