/**
 * The query routes: `POST /xql/validate` and `/xql/explain` (authenticated, not metered), and
 * the metered `POST /xql/run`, `/xql/history` and `/xql/why`, which go through the metering
 * pipeline (`metered.ts`) in the contract's order.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Clock } from "../clock.js";
import { XqlDataError, XqlError } from "../errors.js";
import { DEFAULT_HISTORY_BARS, MAX_HISTORY_BARS, TIMEFRAME_MS } from "../types.js";
import { historyAnchoredAsync, runAnchoredAsync, whyAnchored, workOf } from "../api.js";
import { historyCostError } from "../plan/cost.js";
import { MAX_RESPONSE_BYTES, responseTooLarge, runResultBytes } from "../json-size.js";
import { type WatchlistStore, resolveWatchlist } from "../accounts/watchlists.js";
import type { Authenticator } from "./auth.js";
import { bodyProblemResult, jsonFieldOf, queryBodyOf, withTransportHint } from "./body.js";
import { fromStore } from "./errors.js";
import { Metering, NotFound } from "./metered.js";
import type { QueryCache } from "./query-cache.js";
import { DEFAULT_RESULTS_CACHE_BYTES, ResultsCache } from "./results-cache.js";
import type { ServicePart } from "./service.js";

/** What the query routes read: the parsed queries, the caller, the watchlists and the metering of the metered ones. */
interface QueryRouteContext {
  auth: Authenticator;
  queries: QueryCache;
  clock: Clock;
  /** The accounts' saved lists, for queries that say `watchlist = "name"`; undefined: none are known. */
  watchlists: WatchlistStore | undefined;
  metering: Metering;
  /** The cost budget a history's price (the work of its passes, `historyPrice`) is held to. */
  costBudget: number;
  /** Milliseconds of evaluation between turns of the event loop. */
  evaluationSliceMs: number;
}

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

/**
 * validate, explain, and the metered run, history and why: the metering reads the bars (through
 * the hot tier) and the accounts' quota, and keeps answers in a results cache of its own.
 */
export const queriesPart: ServicePart = (app, service) => {
  const { bars, quota, auth, queries, clock, cache, admission, watchlists, limits, options } = service;
  const runs = new ResultsCache(options.resultsCacheBytes ?? DEFAULT_RESULTS_CACHE_BYTES, options.resultsCacheTtlMs ?? 5_000);
  const metering = new Metering({ bars, quota, auth, queries, clock, warmup: limits.warmup, cache, admission, runs, watchlists });
  registerQueryRoutes(app, { auth, queries, clock, watchlists, metering, costBudget: limits.costBudget, evaluationSliceMs: limits.evaluationSliceMs });
};

function registerQueryRoutes(app: FastifyInstance, ctx: QueryRouteContext): void {
  registerCheckRoutes(app, ctx);
  registerRun(app, ctx);
  registerHistory(app, ctx);
  registerWhy(app, ctx);
}

/** `POST /xql/validate` and `/xql/explain`: the query checked and planned, nothing fetched or metered. */
function registerCheckRoutes(app: FastifyInstance, ctx: QueryRouteContext): void {
  const { auth, queries } = ctx;

  app.post("/xql/validate", { onRequest: auth.authenticate }, async (request, reply) => {
    const body = queryBodyOf(request);
    if (typeof body !== "string") return reply.code(400).send(bodyProblemResult(body));
    const result = queries.validate(body);
    if (result.valid) {
      const unknown = await unknownWatchlist(ctx, request, body);
      if (unknown) return reply.code(400).send(unknown.toResult());
      return reply.code(200).send(result);
    }
    return reply.code(400).send({ valid: false, error: withTransportHint(body, result.error, queries.codeOf(body)) });
  });

  app.post("/xql/explain", { onRequest: auth.authenticate }, async (request, reply) => {
    const body = queryBodyOf(request);
    if (typeof body !== "string") return reply.code(400).send(bodyProblemResult(body));
    const result = queries.explain(body);
    if ("plan" in result) {
      const unknown = await unknownWatchlist(ctx, request, body);
      if (unknown) return reply.code(400).send(unknown.toResult());
      return reply.code(200).send(result);
    }
    return reply.code(400).send({ valid: false, error: withTransportHint(body, result.error, queries.codeOf(body)) });
  });
}

/** The plan error of a valid query naming a watchlist the caller's account does not have. */
async function unknownWatchlist(ctx: QueryRouteContext, request: FastifyRequest, body: string): Promise<XqlError | undefined> {
  const compiled = ctx.queries.compile(body);
  if (compiled instanceof XqlError || compiled.watchlist === undefined) return undefined;
  const resolved = await fromStore(() => resolveWatchlist(compiled, ctx.auth.callerOf(request).accountId, ctx.watchlists));
  return resolved instanceof XqlError ? resolved : undefined;
}

/** `POST /xql/run`: the screen at the latest bar, metered as one run. */
function registerRun(app: FastifyInstance, ctx: QueryRouteContext): void {
  const { auth, metering } = ctx;
  app.post("/xql/run", { onRequest: [auth.authenticate, metering.quotaFirst] }, async (request, reply) =>
    metering.serve(request, reply, {
      fetch: {},
      async execute(compiled, universe, turn) {
        const result = await runAnchoredAsync(compiled, universe, { sliceMs: ctx.evaluationSliceMs, turn });
        // Measured before the text is written: an answer over the bound is never built.
        if (runResultBytes(result) > MAX_RESPONSE_BYTES) throw responseTooLarge(MAX_RESPONSE_BYTES);
        return { answer: boundedJson(result), log: { results: result.results.length } };
      },
    }),
  );
}

/** `POST /xql/history`: the screen over a window of bars (decisions §5), its price checked before any reservation. */
function registerHistory(app: FastifyInstance, ctx: QueryRouteContext): void {
  const { auth, metering } = ctx;
  const historyWindows = new WeakMap<FastifyRequest, { bars: number; given: boolean }>();
  // `?bars=N` (default 100, at most 1,000) is checked with the key, before quota or body: a bad
  // window is the caller's mistake in the URL, not a query error, and costs nothing.
  async function historyWindow(request: FastifyRequest): Promise<void> {
    if (!auth.maybeCallerOf(request)) return; // refused by authenticate
    const raw = (request.query as { bars?: unknown }).bars;
    const bars = raw === undefined ? DEFAULT_HISTORY_BARS : typeof raw === "string" && /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
    if (!(bars >= 1 && bars <= MAX_HISTORY_BARS)) {
      // Through the error handler, which adds the rate-limit headers like any run answer.
      throw Object.assign(new XqlDataError("history-window", { max: MAX_HISTORY_BARS }), { statusCode: 400 });
    }
    historyWindows.set(request, { bars, given: raw !== undefined });
  }

  app.post(
    "/xql/history",
    { onRequest: [auth.authenticate, historyWindow, metering.quotaFirst], config: { jsonFields: ["bars"] } },
    async (request, reply) => {
      // The window: `?bars=N`, or `"bars"` in a JSON body (decisions §5), or both when they agree.
      const fromQuery = historyWindows.get(request)!;
      const fromBody = jsonFieldOf(request, "bars");
      let bars = fromQuery.bars;
      metering.usageHeaders(request, reply);
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
      return metering.serve(request, reply, {
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
}

/** `POST /xql/why`: why a symbol matches or not (decisions §11), JSON { query, symbol, time? }, metered as one run. */
function registerWhy(app: FastifyInstance, ctx: QueryRouteContext): void {
  const { auth, metering, clock } = ctx;
  app.post(
    "/xql/why",
    { onRequest: [auth.authenticate, metering.quotaFirst], config: { jsonFields: ["symbol", "time"] } },
    async (request, reply) => {
      metering.usageHeaders(request, reply);
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
      return metering.serve(request, reply, {
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
          if (!instrument || !times || times.length === 0 || (time !== undefined && times[0]! > time)) throw new NotFound("no-bars-at", { symbol, market: compiled.plan.market, timeframe: base });
          // The bar asked (the latest at or before `time`), evaluated as run does there: each
          // source's bars from its anchor (decisions §9, §11), so the tree holds run's numbers.
          const answer = whyAnchored(compiled, instrument, time);
          return { answer: boundedJson(answer), log: { symbol, matched: answer.matched } };
        },
      });
    },
  );
}
