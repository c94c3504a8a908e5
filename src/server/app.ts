/**
 * The Fastify application: authentication, quota and routes. No language logic lives here:
 * queries go to the core (`validate`, `explain`, `compile`), bars come from a {@link BarStore}.
 */
import Fastify from "fastify";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import { XqlError } from "../errors.js";
import type { CompiledQuery } from "../api.js";
import type { Instrument, XqlOptions } from "../types.js";
import { DEFAULT_HISTORY_BARS, DEFAULT_LOOKBACK_CEILING, DEFAULT_MARKETS, MAX_HISTORY_BARS } from "../types.js";
import { VERSION } from "../version.js";
import { BarCache, DEFAULT_WARMUP, fetchUniverse } from "../data/fetch.js";
import { hashApiKey, looksLikeApiKey } from "../data/keys.js";
import type { BarStore, KeyStore, QuotaStore, Tier } from "../data/store.js";
import { TIER_LIMITS } from "../data/store.js";
import { openApiDocument } from "./openapi.js";
import { QueryCache } from "./query-cache.js";
import { ResultsCache } from "./results-cache.js";
import { registerPlayground } from "./playground.js";
import { nextUtcMidnight, secondsUntilReset, setRateLimitHeaders, utcDay } from "./quota.js";

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
  /** Structured logs: false (default), true (JSON lines at info), or Fastify logger options. */
  logger?: FastifyServerOptions["logger"];
  /** Fetch cache: a {@link BarCache} to share, or false to read the store on every run. Default: a new cache. */
  cache?: BarCache | false;
  /** Parsed queries kept by text (validate, explain and compile results); 0 turns it off. Default 1024. */
  queryCacheSize?: number;
  /** Run results kept per (query text, data version); 0 turns it off. Default 256. */
  resultsCacheSize?: number;
  /** How long a cached run result is served, in ms. Default 5,000. */
  resultsCacheTtlMs?: number;
  /** The built playground (`dist/playground`), served at `/`; `xql serve` passes it. */
  playgroundDir?: string;
}

/** The methods the service's routes use (HEAD comes with every GET), in `Allow` order. */
const ROUTE_METHODS = ["GET", "HEAD", "POST"] as const;

/** A request URL without its query string. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

const UNAUTHORIZED = { error: "Missing or invalid API key" } as const;
const RATE_LIMITED = { error: "Daily API rate limit exceeded" } as const;
const STORE_UNAVAILABLE = { error: "Data store unavailable" } as const;
const INTERNAL = { error: "Internal server error" } as const;

/** A store call failed: the answer is 500 `Data store unavailable`, never the cause. */
class StoreUnavailable extends Error {
  override readonly name = "StoreUnavailable";
}

async function fromStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    throw new StoreUnavailable("Data store call failed", { cause });
  }
}

interface Caller {
  accountId: string;
  tier: Tier;
  limit: number;
}

/** Log-safe view of a failure: the message and code, no stack, and never a header. */
function describeError(error: unknown): Record<string, unknown> {
  const cause = error instanceof StoreUnavailable ? error.cause : error;
  if (cause instanceof Error) return { name: cause.name, message: cause.message, code: (cause as { code?: unknown }).code };
  return { message: String(cause) };
}

/**
 * The XQL HTTP service. Returns the Fastify instance unstarted: call `listen`, or mount it,
 * or drive it with `inject`.
 *
 * @throws TypeError when no bar, key or quota store is given.
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
  const clock = options.clock ?? systemClock;
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const xqlOptions: XqlOptions = {
    markets: options.markets ?? DEFAULT_MARKETS,
    lookbackCeiling: options.lookbackCeiling ?? DEFAULT_LOOKBACK_CEILING,
  };
  const cache = options.cache === false ? undefined : (options.cache ?? new BarCache());
  const queries = new QueryCache(xqlOptions, options.queryCacheSize ?? 1024);
  const runs = new ResultsCache(options.resultsCacheSize ?? 256, options.resultsCacheTtlMs ?? 5_000);
  const openApi = JSON.stringify(openApiDocument());

  // Keys never reach a log line: requests are logged without headers and without their query
  // string (a client that puts `?api_key=xql_...` in the URL by mistake must not see it logged),
  // and the Authorization header is redacted should another serializer include it.
  const redact = { paths: ["req.headers.authorization", "headers.authorization"], censor: "[redacted]" };
  const serializers = {
    req: (request: { method: string; url: string; ip?: string }) => {
      const path = pathOf(request.url);
      return { method: request.method, url: path === request.url ? path : `${path}?[redacted]`, remoteAddress: request.ip };
    },
  };
  const logger =
    options.logger === true
      ? { level: "info", redact, serializers }
      : typeof options.logger === "object" && options.logger !== null
        ? { redact, serializers, ...options.logger }
        : (options.logger ?? false);
  const app = Fastify({ logger, bodyLimit, return503OnClosing: true });

  const callers = new WeakMap<FastifyRequest, Caller>();
  const historyBars = new WeakMap<FastifyRequest, number>();

  // Every body is text, whatever its Content-Type says; the limit answers 413.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string", bodyLimit }, (_request, body, done) => done(null, body));

  // `Expect: 100-continue`: Node would answer 100 at once, inviting the body before the key is
  // checked. Instead the request goes through the hooks, and 100 is sent only once the key has
  // passed (preParsing runs after onRequest); a refused caller gets its 401 without uploading.
  app.server.on("checkContinue", (request, response) => app.server.emit("request", request, response));
  app.addHook("preParsing", async (request, reply, payload) => {
    if (request.headers.expect?.toLowerCase() === "100-continue") reply.raw.writeContinue();
    return payload;
  });

  /** Runs in onRequest: before any byte of the body is read or any query is parsed. */
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? "");
    const key = match?.[1];
    // A string that cannot be a key is refused without a store lookup.
    const record = key !== undefined && looksLikeApiKey(key) ? await fromStore(() => keys!.findKeyByHash(hashApiKey(key))) : undefined;
    if (!record || record.revokedAt !== null) {
      await reply.code(401).header("WWW-Authenticate", "Bearer").send(UNAUTHORIZED);
      return;
    }
    callers.set(request, { accountId: record.accountId, tier: record.tier, limit: TIER_LIMITS[record.tier] });
  }

  function callerOf(request: FastifyRequest): Caller {
    const caller = callers.get(request);
    if (!caller) throw new Error("Route reached without authentication");
    return caller;
  }

  const queryText = (request: FastifyRequest): string => (typeof request.body === "string" ? request.body : "");

  app.post("/xql/validate", { onRequest: authenticate }, async (request, reply) => {
    const result = queries.validate(queryText(request));
    return reply.code(result.valid ? 200 : 400).send(result);
  });

  app.post("/xql/explain", { onRequest: authenticate }, async (request, reply) => {
    const result = queries.explain(queryText(request));
    return reply.code("plan" in result ? 200 : 400).send(result);
  });

  /**
   * A metered query route (run and history): quota first, then parse and plan (400 gives the
   * reservation back), then fetch (500 gives it back), then `execute`; only a 200 consumes.
   */
  async function metered(
    request: FastifyRequest,
    reply: FastifyReply,
    fetchOptions: { extraBaseBars?: number },
    execute: (compiled: CompiledQuery, universe: Instrument[]) => { body: object; log: Record<string, unknown> },
  ): Promise<FastifyReply> {
    const caller = callerOf(request);
    const now = clock.now();
    const day = utcDay(now);
    // Quota first: an exhausted account learns so before anything else is done.
    const reservation = await fromStore(() => quota!.reserve(caller.accountId, day, caller.limit));
    if (!reservation.admitted) {
      setRateLimitHeaders(reply, caller.limit, 0, now);
      return reply.code(429).header("Retry-After", String(secondsUntilReset(now))).send(RATE_LIMITED);
    }
    // Anything but a 200 gives the reservation back.
    const giveBack = async (): Promise<void> => {
      try {
        const after = await quota!.release(caller.accountId, day, caller.limit);
        setRateLimitHeaders(reply, caller.limit, after.remaining, now);
      } catch (error) {
        request.log.error({ err: describeError(error), account: caller.accountId }, "quota release failed");
      }
    };
    const compiled = queries.compile(queryText(request));
    if (compiled instanceof XqlError) {
      await giveBack();
      return reply.code(400).send(compiled.toResult());
    }
    // Keyed by the endpoint with its query string (history's ?bars) and the query text.
    const text = `${request.url}\n${queryText(request)}`;
    let version: number;
    try {
      version = await bars!.dataVersion();
    } catch (error) {
      request.log.error({ err: describeError(error), account: caller.accountId }, "bar fetch failed");
      await giveBack();
      return reply.code(500).send(STORE_UNAVAILABLE);
    }
    const cached = runs.get(text, version, now);
    if (cached !== undefined) {
      setRateLimitHeaders(reply, caller.limit, reservation.remaining, now);
      return reply.code(200).send(cached);
    }
    let universe;
    try {
      universe = await fetchUniverse(bars!, compiled.plan, { warmup, cache, fetch: compiled.fetch, ...fetchOptions });
    } catch (error) {
      request.log.error({ err: describeError(error), account: caller.accountId }, "bar fetch failed");
      await giveBack();
      return reply.code(500).send(STORE_UNAVAILABLE);
    }
    let result;
    try {
      result = execute(compiled, universe);
    } catch (error) {
      request.log.error({ err: describeError(error), account: caller.accountId }, "evaluation failed");
      await giveBack();
      return reply.code(500).send(INTERNAL);
    }
    // Keyed by the version read before the fetch: a write in between makes the entry stale, never wrong-new.
    runs.set(text, version, now, result.body);
    setRateLimitHeaders(reply, caller.limit, reservation.remaining, now);
    request.log.info(
      { account: caller.accountId, market: compiled.plan.market, instruments: universe.length, ...result.log },
      pathOf(request.url).slice("/xql/".length),
    );
    return reply.code(200).send(result.body);
  }

  app.post("/xql/run", { onRequest: authenticate }, async (request, reply) =>
    metered(request, reply, {}, (compiled, universe) => {
      const result = compiled.run(universe);
      return { body: result, log: { results: result.results.length } };
    }),
  );

  // `?bars=N` (default 100, at most 1,000) is checked with the key, before quota or body: a bad
  // window is the caller's mistake in the URL, not a query error, and costs nothing.
  app.post<{ Querystring: { bars?: string } }>(
    "/xql/history",
    {
      onRequest: async (request, reply) => {
        await authenticate(request, reply);
        if (reply.sent) return;
        const raw = (request.query as { bars?: unknown }).bars;
        const bars = raw === undefined ? DEFAULT_HISTORY_BARS : typeof raw === "string" && /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
        if (!(bars >= 1 && bars <= MAX_HISTORY_BARS)) {
          // Through the error handler, which adds the rate-limit headers like any run answer.
          throw Object.assign(new Error(`Query parameter 'bars' must be an integer from 1 to ${MAX_HISTORY_BARS}`), {
            statusCode: 400,
          });
        }
        historyBars.set(request, bars);
      },
    },
    async (request, reply) => {
      const bars = historyBars.get(request)!;
      return metered(request, reply, { extraBaseBars: bars - 1 }, (compiled, universe) => {
        const result = compiled.history(universe, { bars });
        return { body: result, log: { bars, matches: result.stats.matches } };
      });
    },
  );

  app.get("/usage", { onRequest: authenticate }, async (request, reply) => {
    const caller = callerOf(request);
    const now = clock.now();
    const usage = await fromStore(() => quota!.usage(caller.accountId, utcDay(now), caller.limit));
    setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
    return reply.send({
      tier: caller.tier,
      limit: caller.limit,
      used: usage.used,
      remaining: usage.remaining,
      resetAt: new Date(nextUtcMidnight(now)).toISOString(),
    });
  });

  app.get("/health", async (request, reply) => {
    try {
      await Promise.all([...new Set<unknown>([bars, keys, quota])].map((s) => (s as Partial<BarStore>).health?.()));
      return reply.send({ status: "ok", version: VERSION });
    } catch (error) {
      request.log.warn({ err: describeError(error) }, "health check failed");
      return reply.code(503).send({ status: "unavailable", version: VERSION });
    }
  });

  registerPlayground(app, { bars, authenticate, markets: xqlOptions.markets!, dir: options.playgroundDir });

  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(openApi));

  // A known path with another method is a 405 naming the methods its routes take, not a 404.
  app.setNotFoundHandler(async (request, reply) => {
    const url = pathOf(request.url);
    const methods = ROUTE_METHODS.filter((method) => app.hasRoute({ method, url })).join(", ");
    if (methods !== "") return reply.code(405).header("Allow", methods).send({ error: `Method not allowed; use ${methods}` });
    return reply.code(404).send({ error: "Not found" });
  });

  app.setErrorHandler(async (error: unknown, request, reply) => {
    const status = (error as { statusCode?: unknown }).statusCode;
    const caller = callers.get(request);
    // Run answers carry the rate-limit headers for a known key, whatever went wrong.
    if (caller && (request.routeOptions.url === "/xql/run" || request.routeOptions.url === "/xql/history")) {
      try {
        const now = clock.now();
        const usage = await quota!.usage(caller.accountId, utcDay(now), caller.limit);
        setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
      } catch {
        // The quota store is down as well; the answer goes out without the headers.
      }
    }
    if (error instanceof StoreUnavailable) {
      request.log.error({ err: describeError(error) }, "data store unavailable");
      return reply.code(500).send(STORE_UNAVAILABLE);
    }
    if (status === 413) {
      return reply.code(413).send({ error: `Request body exceeds the limit of ${bodyLimit} bytes` });
    }
    if (typeof status === "number" && status >= 400 && status < 500) {
      return reply.code(status).send({ error: (error as Error).message || "Bad request" });
    }
    request.log.error({ err: describeError(error) }, "unexpected failure");
    return reply.code(500).send(INTERNAL);
  });

  return app;
}
