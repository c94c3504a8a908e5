/**
 * The metered query routes' pipeline (run, history, why), in the contract's order (decisions
 * §2): the quota read first (an exhausted account gets 429 before its body is read), then
 * parse and plan (a 400 that never held a reservation), then the atomic reservation, then the
 * fetch (a 500 gives it back), and only a 200 keeps it.
 */
import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CompiledQuery } from "../api.js";
import type { Clock } from "../clock.js";
import { XqlDataError, XqlError } from "../errors.js";
import type { Instrument } from "../types.js";
import { fetchAnchored } from "../fetch/fetch.js";
import type { HotTier } from "../store/hot-tier.js";
import type { BarStore } from "../store/store.js";
import type { QuotaStore, QuotaUsage, Reservation } from "../accounts/accounts.js";
import { type WatchlistStore, resolveWatchlist } from "../accounts/watchlists.js";
import type { Admission } from "./admission.js";
import type { Authenticator, Caller } from "./auth.js";
import { bodyProblemResult, jsonFieldOf, queryBodyOf, withTransportHint } from "./body.js";
import { INTERNAL, RATE_LIMITED, describeError, fromStore, pathOf, sendStoreFailure } from "./errors.js";
import type { QueryCache } from "./query-cache.js";
import { secondsUntilReset, setRateLimitHeaders, utcDay } from "./quota.js";
import type { ResultsCache } from "./results-cache.js";

const JSON_TYPE = "application/json; charset=utf-8";

/** A request about something the store does not hold (why's symbol without bars): a 404 with its message. */
export class NotFound extends XqlDataError<"no-bars-at"> {}

/** What the metered routes read and meter with. */
export interface MeteringContext {
  readonly bars: BarStore;
  readonly quota: QuotaStore;
  readonly auth: Authenticator;
  readonly queries: QueryCache;
  readonly clock: Clock;
  /** Bars fetched per source beyond the plan's need. */
  readonly warmup: number;
  /** The hot tier runs read their bars from, or undefined to read the store every time. */
  readonly cache: HotTier | undefined;
  /** The per-account admission; its turns share evaluation round-robin by account. */
  readonly admission: Admission;
  /** Run and history answers (JSON text) per (endpoint with query string, window, query text, data version); metered per request all the same. */
  readonly runs: ResultsCache;
  /** The accounts' saved lists, for queries that say `watchlist = "name"`; undefined: none are known. */
  readonly watchlists: WatchlistStore | undefined;
}

/** What one metered route adds to the pipeline. */
export interface MeteredRoute {
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
}

/** A reservation held for one request, and how to give it back. */
interface Held {
  reservation: Reservation;
  giveBack: () => Promise<void>;
}

/** The metering of one server: the quota read before the body, the reservation, the answer. */
export class Metering {
  /** The usage read before the body, per request: its headers for a 400. */
  private readonly usageBefore = new WeakMap<FastifyRequest, QuotaUsage>();

  constructor(private readonly ctx: MeteringContext) {}

  /** Runs in onRequest after authentication: an exhausted account hears 429 before uploading its query. */
  readonly quotaFirst = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { auth, clock, quota } = this.ctx;
    const caller = auth.maybeCallerOf(request);
    if (!caller) return; // refused by authenticate
    const now = clock.now();
    const usage = await fromStore(() => quota.usage(caller.accountId, utcDay(now), caller.limit));
    this.usageBefore.set(request, usage);
    setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
    if (usage.remaining <= 0) {
      await reply.code(429).header("Retry-After", String(secondsUntilReset(now))).send(RATE_LIMITED);
    }
  };

  /** The rate-limit headers of the usage read before the body (every answer of a metered route carries them). */
  usageHeaders(request: FastifyRequest, reply: FastifyReply): void {
    const before = this.usageBefore.get(request);
    if (before) setRateLimitHeaders(reply, this.ctx.auth.callerOf(request).limit, before.remaining, this.ctx.clock.now());
  }

  /**
   * A metered query route (run, history, why), after authentication (with the account's
   * admission) and quota first: parse and plan, the route's own checks (history's window and
   * price), all before any reservation (a 400 never holds quota); then the atomic reservation,
   * the fetch and `execute`, which builds the answer's JSON text. Only a 200 consumes: from the
   * reservation on, whatever fails — the store, the evaluation, an answer too large (400) —
   * gives the reservation back.
   */
  async serve(request: FastifyRequest, reply: FastifyReply, route: MeteredRoute): Promise<FastifyReply> {
    const caller = this.ctx.auth.callerOf(request);
    const now = this.ctx.clock.now();
    this.usageHeaders(request, reply);
    const planned = await this.plan(request, reply, caller, route);
    if (!("compiled" in planned)) return planned;
    const held = await this.reserve(request, reply, caller, now);
    if (!("reservation" in held)) return held;
    return this.answer(request, reply, { caller, now, route, ...planned, ...held });
  }

  /** Parse and plan, the watchlist as saved now, and the route's own refusal: all before any reservation. */
  private async plan(
    request: FastifyRequest,
    reply: FastifyReply,
    caller: Caller,
    route: MeteredRoute,
  ): Promise<{ body: string; compiled: CompiledQuery } | FastifyReply> {
    const body = queryBodyOf(request);
    if (typeof body !== "string") return reply.code(400).send(bodyProblemResult(body));
    const parsed = this.ctx.queries.compile(body);
    if (parsed instanceof XqlError) {
      return reply.code(400).send({ valid: false, error: withTransportHint(body, parsed.body, parsed.code) });
    }
    let compiled: CompiledQuery;
    try {
      const resolved = await resolveWatchlist(parsed, caller.accountId, this.ctx.watchlists);
      if (resolved instanceof XqlError) return reply.code(400).send(resolved.toResult());
      compiled = resolved;
    } catch (error) {
      return sendStoreFailure(reply, error);
    }
    const refused = route.check?.(compiled);
    if (refused) return reply.code(400).send(refused.toResult());
    return { body, compiled };
  }

  /** The atomic reservation of one call; refused (429) when the day's allowance is used up. */
  private async reserve(request: FastifyRequest, reply: FastifyReply, caller: Caller, now: number): Promise<Held | FastifyReply> {
    const { quota } = this.ctx;
    const day = utcDay(now);
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
    let reservation: Reservation;
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
    return { reservation, giveBack };
  }

  /** The answer under a held reservation: from the results cache, or fetched and evaluated; any failure gives the reservation back. */
  private async answer(
    request: FastifyRequest,
    reply: FastifyReply,
    run: Held & { caller: Caller; now: number; route: MeteredRoute; body: string; compiled: CompiledQuery },
  ): Promise<FastifyReply> {
    const { bars, queries, runs, cache, admission } = this.ctx;
    const { caller, now, route, body, compiled, reservation } = run;
    // A run is a pure function of (query, data version): a repeated screen costs a lookup.
    // Keyed by the endpoint with its query string (history's ?bars), the body's window and the query text.
    // A watchlist's screen also depends on the list as saved (and so on the account).
    const list = compiled.watchlist !== undefined ? `${caller.accountId}\n${JSON.stringify(compiled.symbols)}\n` : "";
    const key = `${request.url}\n${jsonFieldOf(request, "bars") ?? ""}\n${route.key ?? ""}\n${list}${body}`;
    let phase: "fetch" | "evaluate" = "fetch";
    try {
      const version = await bars.dataVersion();
      const cached = runs.get(key, version, now);
      if (cached !== undefined) {
        setRateLimitHeaders(reply, caller.limit, reservation.remaining, now);
        return reply.code(200).type(JSON_TYPE).send(cached);
      }
      // The run reads views of the hot tier's arrays until it is done: writes meanwhile copy.
      const lease = cache?.lease();
      let universe: Instrument[];
      let result: Awaited<ReturnType<MeteredRoute["execute"]>>;
      try {
        // Every bar is evaluated from its anchors (decisions §9): the read covers them.
        universe = await fetchAnchored(bars, compiled.plan, {
          warmup: this.ctx.warmup,
          cache,
          lease,
          fetch: compiled.fetch,
          anchorSources: compiled.fetch,
          ...(compiled.symbols ? { symbols: compiled.symbols } : {}),
          ...(typeof route.fetch === "function" ? route.fetch(compiled) : route.fetch),
        });
        phase = "evaluate";
        // Evaluation takes turns of the event loop, round-robin with every other account's work:
        // one large screen never holds other callers for longer than a slice at a time.
        result = await route.execute(compiled, universe, () => admission.turns.turn(caller.accountId));
      } finally {
        lease?.release();
      }
      // Its evaluator's buffers grew to these bars: the query cache weighs the entry again.
      queries.reweigh(body);
      // Keyed by the version read before the fetch: a write in between makes the entry stale, never wrong.
      runs.set(key, version, now, result.answer.text, result.answer.bytes);
      setRateLimitHeaders(reply, caller.limit, reservation.remaining, now);
      request.log.info(
        { account: caller.accountId, market: compiled.plan.market, instruments: universe.length, ...result.log },
        pathOf(request.url).slice("/xql/".length),
      );
      return reply.code(200).type(JSON_TYPE).send(result.answer.text);
    } catch (error) {
      await run.giveBack();
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
}
