/**
 * The routes. Run and history keep the contract's order (decisions §2): quota read first (an exhausted
 * account gets 429 before its body is read), then parse and plan (a 400 that never held a
 * reservation), then the atomic reservation, then the fetch (a 500 gives it back), and only a
 * 200 keeps it.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CompiledQuery } from "../api.js";
import { XqlError } from "../errors.js";
import type { Instrument } from "../types.js";
import { DEFAULT_HISTORY_BARS, MAX_HISTORY_BARS, TIMEFRAME_MS } from "../types.js";
import { VERSION } from "../version.js";
import { fetchAnchored } from "../fetch/fetch.js";
import type { HotTier } from "../store/hot-tier.js";
import type { QuotaStore, QuotaUsage } from "../accounts/accounts.js";
import type { BarStore } from "../store/store.js";
import { HealthError } from "../store/store.js";
import type { Authenticator } from "./auth.js";
import { bodyProblemResult, jsonFieldOf, queryBodyOf, withTransportHint } from "./body.js";
import type { Clock } from "./app.js";
import { INTERNAL, RATE_LIMITED, describeError, fromStore, pathOf, sendStoreFailure } from "./errors.js";
import type { QueryCache } from "./query-cache.js";
import type { ResultsCache } from "./results-cache.js";
import { nextUtcMidnight, secondsUntilReset, setRateLimitHeaders, utcDay } from "./quota.js";
import type { Admission } from "./admission.js";
import { historyAnchoredAsync, runAnchoredAsync, whyAnchored, workOf } from "../api.js";
import { historyCostError } from "../plan/cost.js";
import { MAX_RESPONSE_BYTES, responseTooLarge, runResultBytes } from "../json-size.js";
import { type WatchlistStore, resolveWatchlist } from "../accounts/watchlists.js";

export interface RouteContext {
  bars: BarStore;
  quota: QuotaStore;
  /** Every distinct store with its roles, for `/health`. */
  dependencies: readonly { roles: readonly string[]; store: { health?: () => Promise<void> } }[];
  auth: Authenticator;
  queries: QueryCache;
  clock: Clock;
  warmup: number;
  /** The hot tier runs read their bars from, or undefined to read the store every time. */
  cache: HotTier | undefined;
  /** The per-account admission; its turns share evaluation round-robin by account. */
  admission: Admission;
  /** The cost budget a history's price (the work of its passes, `historyPrice`) is held to. */
  costBudget: number;
  /** Milliseconds of evaluation between turns of the event loop. */
  evaluationSliceMs: number;
  /** Run and history answers (JSON text) per (endpoint with query string, window, query text, data version); metered per request all the same. */
  runs: ResultsCache;
  openApi: string;
  /** The accounts' saved lists, for queries that say `watchlist = "name"`; undefined: none are known. */
  watchlists: WatchlistStore | undefined;
}

const JSON_TYPE = "application/json; charset=utf-8";

/** A request about something the store does not hold (why's symbol without bars): a 404 with its message. */
class NotFound extends Error {}

/**
 * The JSON text of an answer already bounded while it was built (rows measured, matches
 * counted); the envelope around them (meta, stats) is checked too, so nothing over
 * {@link MAX_RESPONSE_BYTES} is ever sent.
 */
function boundedJson(body: object): { text: string; bytes: number } {
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_RESPONSE_BYTES) throw responseTooLarge(MAX_RESPONSE_BYTES);
  return { text, bytes };
}

export function registerRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const { auth, queries, quota, clock } = ctx;
  /** The usage read before the body, per run request: its headers for a 400. */
  const usageBefore = new WeakMap<FastifyRequest, QuotaUsage>();

  app.post("/xql/validate", { onRequest: auth.authenticate }, async (request, reply) => {
    const body = queryBodyOf(request);
    if (typeof body !== "string") return reply.code(400).send(bodyProblemResult(body));
    const result = queries.validate(body);
    if (result.valid) {
      const unknown = await unknownWatchlist(request, body);
      if (unknown) return reply.code(400).send(unknown.toResult());
      return reply.code(200).send(result);
    }
    return reply.code(400).send({ valid: false, error: withTransportHint(body, result.error) });
  });

  app.post("/xql/explain", { onRequest: auth.authenticate }, async (request, reply) => {
    const body = queryBodyOf(request);
    if (typeof body !== "string") return reply.code(400).send(bodyProblemResult(body));
    const result = queries.explain(body);
    if ("plan" in result) {
      const unknown = await unknownWatchlist(request, body);
      if (unknown) return reply.code(400).send(unknown.toResult());
      return reply.code(200).send(result);
    }
    return reply.code(400).send({ valid: false, error: withTransportHint(body, result.error) });
  });

  /** The plan error of a valid query naming a watchlist the caller's account does not have. */
  async function unknownWatchlist(request: FastifyRequest, body: string): Promise<XqlError | undefined> {
    const compiled = queries.compile(body);
    if (compiled instanceof XqlError || compiled.watchlist === undefined) return undefined;
    const resolved = await fromStore(() => resolveWatchlist(compiled, auth.callerOf(request).accountId, ctx.watchlists));
    return resolved instanceof XqlError ? resolved : undefined;
  }

  /** The rate-limit headers of the usage read before the body (every answer of a metered route carries them). */
  function usageHeaders(request: FastifyRequest, reply: FastifyReply): void {
    const before = usageBefore.get(request);
    if (before) setRateLimitHeaders(reply, auth.callerOf(request).limit, before.remaining, clock.now());
  }

  /** Runs in onRequest after authentication: an exhausted account hears 429 before uploading its query. */
  async function quotaFirst(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = auth.maybeCallerOf(request);
    if (!caller) return; // refused by authenticate
    const now = clock.now();
    const usage = await fromStore(() => quota.usage(caller.accountId, utcDay(now), caller.limit));
    usageBefore.set(request, usage);
    setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
    if (usage.remaining <= 0) {
      await reply.code(429).header("Retry-After", String(secondsUntilReset(now))).send(RATE_LIMITED);
    }
  }

  /**
   * A metered query route (run and history), after authentication (with the account's
   * admission) and quota first: parse and plan, the route's own checks (history's window and
   * price), all before any reservation (a 400 never holds quota); then the atomic reservation,
   * the fetch and `execute`, which builds the answer's JSON text. Only a 200 consumes: from the
   * reservation on, whatever fails — the store, the evaluation, an answer too large (400) —
   * gives the reservation back.
   */
  async function metered(
    request: FastifyRequest,
    reply: FastifyReply,
    route: {
      /** What the fetch reads beyond the plan — the window of base bars evaluated (history's `bars`; a run's is 1), why's one symbol — decided once the query is compiled. */
      fetch: { bars?: number; symbols?: readonly string[] } | ((compiled: CompiledQuery) => { bars?: number; symbols?: readonly string[] });
      /** What else the answer depends on besides the endpoint, the window and the query text (why's symbol and time). */
      key?: string;
      /** A refusal of this query on this route, before any reservation (history's price). */
      check?: (compiled: CompiledQuery) => XqlError | undefined;
      execute: (
        compiled: CompiledQuery,
        universe: Instrument[],
        turn: () => Promise<void>,
      ) => Promise<{ answer: { text: string; bytes: number }; log: Record<string, unknown> }>;
    },
  ): Promise<FastifyReply> {
    const caller = auth.callerOf(request);
    const now = clock.now();
    const day = utcDay(now);
    usageHeaders(request, reply);

    // Parse and plan before any reservation: an invalid query never holds quota.
    const body = queryBodyOf(request);
    if (typeof body !== "string") return reply.code(400).send(bodyProblemResult(body));
    const parsed = queries.compile(body);
    if (parsed instanceof XqlError) {
      return reply.code(400).send({ valid: false, error: withTransportHint(body, parsed.body) });
    }
    // A watchlist is the account's list as saved now: resolved before any reservation.
    let compiled: CompiledQuery;
    try {
      const resolved = await resolveWatchlist(parsed, caller.accountId, ctx.watchlists);
      if (resolved instanceof XqlError) return reply.code(400).send(resolved.toResult());
      compiled = resolved;
    } catch (error) {
      return sendStoreFailure(reply, error);
    }
    const refused = route.check?.(compiled);
    if (refused) return reply.code(400).send(refused.toResult());

    const reservationId = randomUUID();
    // Gives this reservation back (a 500, or an answer refused once built); with its id, a Redis
    // that timed out settles it once it wakes.
    const giveBack = async (): Promise<void> => {
      try {
        const after = await quota.release(caller.accountId, day, caller.limit, reservationId);
        setRateLimitHeaders(reply, caller.limit, after.remaining, now);
      } catch (error) {
        request.log.error({ err: describeError(error), account: caller.accountId }, "quota release failed");
      }
    };
    let reservation;
    try {
      reservation = await quota.reserve(caller.accountId, day, caller.limit, reservationId);
    } catch (error) {
      request.log.error({ err: describeError(error), account: caller.accountId }, "quota reservation failed");
      // The reservation may still land (a stalled Redis runs it when it wakes): cancel it by id.
      await giveBack();
      return sendStoreFailure(reply, error);
    }
    if (!reservation.admitted) {
      setRateLimitHeaders(reply, caller.limit, 0, now);
      return reply.code(429).header("Retry-After", String(secondsUntilReset(now))).send(RATE_LIMITED);
    }
    // A run is a pure function of (query, data version): a repeated screen costs a lookup.
    // Keyed by the endpoint with its query string (history's ?bars), the body's window and the query text.
    // A watchlist's screen also depends on the list as saved (and so on the account).
    const list = compiled.watchlist !== undefined ? `${caller.accountId}\n${JSON.stringify(compiled.symbols)}\n` : "";
    const key = `${request.url}\n${jsonFieldOf(request, "bars") ?? ""}\n${route.key ?? ""}\n${list}${body}`;
    let phase: "fetch" | "evaluate" = "fetch";
    try {
      const version = await ctx.bars.dataVersion();
      const cached = ctx.runs.get(key, version, now);
      if (cached !== undefined) {
        setRateLimitHeaders(reply, caller.limit, reservation.remaining, now);
        return reply.code(200).type(JSON_TYPE).send(cached);
      }
      // The run reads views of the hot tier's arrays until it is done: writes meanwhile copy.
      const lease = ctx.cache?.lease();
      let universe: Instrument[];
      let result: Awaited<ReturnType<typeof route.execute>>;
      try {
        // Every bar is evaluated from its anchors (decisions §9): the read covers them.
        universe = await fetchAnchored(ctx.bars, compiled.plan, {
          warmup: ctx.warmup,
          cache: ctx.cache,
          lease,
          fetch: compiled.fetch,
          anchorSources: compiled.fetch,
          ...(compiled.symbols ? { symbols: compiled.symbols } : {}),
          ...(typeof route.fetch === "function" ? route.fetch(compiled) : route.fetch),
        });
        phase = "evaluate";
        // Evaluation takes turns of the event loop, round-robin with every other account's work:
        // one large screen never holds other callers for longer than a slice at a time.
        result = await route.execute(compiled, universe, () => ctx.admission.turns.turn(caller.accountId));
      } finally {
        lease?.release();
      }
      // Its evaluator's buffers grew to these bars: the query cache weighs the entry again.
      queries.reweigh(body);
      // Keyed by the version read before the fetch: a write in between makes the entry stale, never wrong.
      ctx.runs.set(key, version, now, result.answer.text, result.answer.bytes);
      setRateLimitHeaders(reply, caller.limit, reservation.remaining, now);
      request.log.info(
        { account: caller.accountId, market: compiled.plan.market, instruments: universe.length, ...result.log },
        pathOf(request.url).slice("/xql/".length),
      );
      return reply.code(200).type(JSON_TYPE).send(result.answer.text);
    } catch (error) {
      await giveBack();
      // An answer too large to build: the caller's request, refused before it is built (400).
      if (error instanceof XqlError) return reply.code(400).send(error.toResult());
      // Nothing to answer about (why's symbol without bars): the caller's request, not a failure.
      if (error instanceof NotFound) return reply.code(404).send({ error: error.message });
      if (phase === "fetch") {
        request.log.error({ err: describeError(error), account: caller.accountId }, "bar fetch failed");
        return sendStoreFailure(reply, error);
      }
      request.log.error({ err: describeError(error), account: caller.accountId }, "evaluation failed");
      return reply.code(500).send(INTERNAL);
    }
  }

  app.post("/xql/run", { onRequest: [auth.authenticate, quotaFirst] }, async (request, reply) =>
    metered(request, reply, {
      fetch: {},
      async execute(compiled, universe, turn) {
        const result = await runAnchoredAsync(compiled, universe, { sliceMs: ctx.evaluationSliceMs, turn });
        // Measured before the text is written: an answer over the bound is never built.
        if (runResultBytes(result) > MAX_RESPONSE_BYTES) throw responseTooLarge(MAX_RESPONSE_BYTES);
        return { answer: boundedJson(result), log: { results: result.results.length } };
      },
    }),
  );

  const historyWindows = new WeakMap<FastifyRequest, { bars: number; given: boolean }>();
  // `?bars=N` (default 100, at most 1,000) is checked with the key, before quota or body: a bad
  // window is the caller's mistake in the URL, not a query error, and costs nothing.
  async function historyWindow(request: FastifyRequest): Promise<void> {
    if (!auth.maybeCallerOf(request)) return; // refused by authenticate
    const raw = (request.query as { bars?: unknown }).bars;
    const bars = raw === undefined ? DEFAULT_HISTORY_BARS : typeof raw === "string" && /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
    if (!(bars >= 1 && bars <= MAX_HISTORY_BARS)) {
      // Through the error handler, which adds the rate-limit headers like any run answer.
      throw Object.assign(new Error(`Query parameter 'bars' must be an integer from 1 to ${MAX_HISTORY_BARS}`), { statusCode: 400 });
    }
    historyWindows.set(request, { bars, given: raw !== undefined });
  }

  app.post(
    "/xql/history",
    { onRequest: [auth.authenticate, historyWindow, quotaFirst], config: { jsonFields: ["bars"] } },
    async (request, reply) => {
      // The window: `?bars=N`, or `"bars"` in a JSON body (decisions §5), or both when they agree.
      const fromQuery = historyWindows.get(request)!;
      const fromBody = jsonFieldOf(request, "bars");
      let bars = fromQuery.bars;
      usageHeaders(request, reply);
      if (fromBody !== undefined) {
        if (!(typeof fromBody === "number" && Number.isInteger(fromBody) && fromBody >= 1 && fromBody <= MAX_HISTORY_BARS)) {
          return reply.code(400).send(bodyProblemResult({ problem: `The JSON field "bars" must be an integer from 1 to ${MAX_HISTORY_BARS}` }));
        }
        if (fromQuery.given && fromBody !== fromQuery.bars) {
          return reply.code(400).send(
            bodyProblemResult({ problem: `The JSON field "bars" (${fromBody}) and the query parameter 'bars' (${fromQuery.bars}) differ; give the window once` }),
          );
        }
        bars = fromBody;
      }
      return metered(request, reply, {
        fetch: { bars },
        check: (compiled) => historyCostError(workOf(compiled), bars, ctx.costBudget),
        async execute(compiled, universe, turn) {
          // The matches are counted while they are built: beyond the bound the pass stops (400).
          const { result } = await historyAnchoredAsync(compiled, universe, { bars, sliceMs: ctx.evaluationSliceMs, maxBytes: MAX_RESPONSE_BYTES, turn });
          return { answer: boundedJson(result), log: { bars, matches: result.stats.matches } };
        },
      });
    },
  );

  // Why a symbol matches or not (decisions §11): JSON { query, symbol, time? }, metered as one run.
  app.post(
    "/xql/why",
    { onRequest: [auth.authenticate, quotaFirst], config: { jsonFields: ["symbol", "time"] } },
    async (request, reply) => {
      usageHeaders(request, reply);
      const symbol = jsonFieldOf(request, "symbol");
      const rawTime = jsonFieldOf(request, "time");
      if (typeof request.body === "string") {
        return reply.code(400).send(bodyProblemResult({ problem: 'why takes JSON {"query": "...", "symbol": "EURUSD", "time"?: ms or ISO 8601}' }));
      }
      if (typeof symbol !== "string" || symbol === "") return reply.code(400).send(bodyProblemResult({ problem: 'The JSON field "symbol" must be a non-empty string' }));
      const time = rawTime === undefined ? undefined : typeof rawTime === "number" ? rawTime : typeof rawTime === "string" ? Date.parse(rawTime) : NaN;
      if (time !== undefined && !Number.isFinite(time)) {
        return reply.code(400).send(bodyProblemResult({ problem: 'The JSON field "time" must be ms since epoch or an ISO 8601 time' }));
      }
      return metered(request, reply, {
        // The symbol's series alone, reaching back to the bar asked (at most history's window).
        fetch: (compiled) => {
          const base = compiled.plan.sources[0]!.timeframe;
          const back = time === undefined ? 0 : Math.ceil((clock.now() - time) / TIMEFRAME_MS[base]) + 1;
          return { symbols: [symbol], bars: Math.min(MAX_HISTORY_BARS, Math.max(0, back)) + 1 };
        },
        key: `${symbol}\n${time ?? ""}`,
        async execute(compiled, universe) {
          const base = compiled.plan.sources[0]!.timeframe;
          const instrument = universe.find((i) => i.symbol === symbol);
          const times = instrument?.bars[base]?.time;
          const missing = `No bars for ${symbol} on ${compiled.plan.market} ${base}`;
          if (!instrument || !times || times.length === 0 || (time !== undefined && times[0]! > time)) throw new NotFound(missing);
          // The bar asked (the latest at or before `time`), evaluated as run does there: each
          // source's bars from its anchor (decisions §9, §11), so the tree holds run's numbers.
          const answer = whyAnchored(compiled, instrument, time);
          return { answer: boundedJson(answer), log: { symbol, matched: answer.matched } };
        },
      });
    },
  );

  app.get("/usage", { onRequest: auth.authenticate }, async (request, reply) => {
    const caller = auth.callerOf(request);
    const now = clock.now();
    const usage = await fromStore(() => quota.usage(caller.accountId, utcDay(now), caller.limit));
    setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
    return reply.send({
      tier: caller.tier,
      limit: caller.limit,
      used: usage.used,
      remaining: usage.remaining,
      resetAt: new Date(nextUtcMidnight(now)).toISOString(),
    });
  });

  // Each dependency is checked (read and write); the body names the ones that failed.
  app.get("/health", async (request, reply) => {
    const checks: Record<string, string> = {};
    let healthy = true;
    await Promise.all(
      ctx.dependencies.map(async ({ roles, store }) => {
        for (const role of roles) checks[role] = "ok";
        try {
          await store.health?.();
        } catch (error) {
          healthy = false;
          request.log.warn({ err: describeError(error), dependency: roles.join(",") }, "health check failed");
          // A store serving several roles says which part failed: its database (bars, keys) or its quota counters.
          const part = error instanceof HealthError ? error.dependency : undefined;
          const failed = roles.filter((role) => (part === "quota" ? role === "quota" : part === "database" ? role !== "quota" : true));
          for (const role of failed.length > 0 ? failed : roles) checks[role] = error instanceof HealthError ? error.reason : "unavailable";
        }
      }),
    );
    const ordered = Object.fromEntries(["bars", "keys", "quota"].filter((r) => r in checks).map((r) => [r, checks[r]!]));
    if (healthy) return reply.send({ status: "ok", version: VERSION, checks: ordered });
    return reply.code(503).send({ status: "unavailable", version: VERSION, checks: ordered });
  });

  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(ctx.openApi));
}

