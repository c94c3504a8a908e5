/**
 * What every part of the service shares, built once per server: the store handles (each its
 * own: bars, the accounts' keys and quota counters, their watchlists, alerts), the clock, the
 * limits several route families apply, and the request pipeline every authenticated route goes
 * through (the key, the account's admission, its fair turns). Each route family is a
 * {@link ServicePart} given this context (`parts.ts`); `createServer` composes them.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Clock } from "../clock.js";
import { systemClock } from "../clock.js";
import type { XqlOptions } from "../types.js";
import { DEFAULT_LOOKBACK_CEILING, DEFAULT_MARKETS, DEFAULT_WARMUP_CEILING } from "../types.js";
import { DEFAULT_COST_BUDGET } from "../plan/cost.js";
import { DEFAULT_WARMUP } from "../fetch/fetch.js";
import { HotTier } from "../store/hot-tier.js";
import type { BarStore } from "../store/store.js";
import type { KeyStore, QuotaStore } from "../accounts/accounts.js";
import { type WatchlistStore, hasWatchlists } from "../accounts/watchlists.js";
import { type AlertStore, hasAlerts } from "../alerts/alerts.js";
import type { ServerOptions } from "./app.js";
import { Admission, DEFAULT_MAX_RUNS_IN_FLIGHT, DEFAULT_MAX_RUNS_QUEUED } from "./admission.js";
import { type Authenticator, createAuthenticator } from "./auth.js";
import { ServiceMetrics } from "./metrics.js";
import { DEFAULT_QUERY_CACHE_BYTES, QueryCache } from "./query-cache.js";
import { setRateLimitHeaders, utcDay } from "./quota.js";

/** 64 KiB: the largest query body accepted. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/** The stores the service reads and writes, one handle per room, as `createServer` resolved them from its options. */
export interface ServiceStores {
  readonly bars: BarStore;
  /** Accounts and their keys: `options.keys`, else the store's own accounts (`store.accounts`), not the bar store. */
  readonly keys: KeyStore;
  /** Daily counters: `options.quota`, else the store's own accounts. */
  readonly quota: QuotaStore;
  /** The accounts' saved lists (decisions §13); undefined: the stores keep none, and no list routes are served. */
  readonly watchlists: WatchlistStore | undefined;
  /** Alerts (decisions §7); undefined: no alerts routes, nothing evaluated. */
  readonly alerts: AlertStore | undefined;
  /** Every distinct store the options named, with the roles it serves, for `/health`. */
  readonly dependencies: readonly { roles: readonly string[]; store: { health?: () => Promise<void> } }[];
}

/** The limits more than one route family applies, each option with its default. */
export interface ServiceLimits {
  /** Largest request body in bytes (a push of bars raises its own). */
  readonly bodyLimit: number;
  /** Markets queries and pushed rows may name. */
  readonly markets: readonly string[];
  /** Largest minLookback a source may need. */
  readonly lookbackCeiling: number;
  /** Largest warm-up a source may ask for. */
  readonly warmupCeiling: number;
  /** Bars fetched per source beyond the plan's need. */
  readonly warmup: number;
  /** Largest static cost of a query, and the budget a history's price is held to. */
  readonly costBudget: number;
  /** Milliseconds of evaluation between turns of the event loop (runs, histories, alert rounds). */
  readonly evaluationSliceMs: number;
}

/** What every part of the service is given. */
export interface ServiceContext extends ServiceStores {
  /** What `createServer` was given: a part reads the options only it uses from here, with their defaults beside it. */
  readonly options: ServerOptions;
  readonly limits: ServiceLimits;
  readonly clock: Clock;
  /** The per-account admission; its turns share evaluation round-robin by account. */
  readonly admission: Admission;
  /** The `onRequest` hook of every authenticated route, and the caller it found. */
  readonly auth: Authenticator;
  /** Adds the rate-limit headers to a run or history answer of a known key, whatever went wrong (an error, the admission's 429). */
  readonly rateLimitHeaders: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Parsed queries by text (validate, explain, compile). */
  readonly queries: QueryCache;
  /** The hot tier runs and alert rounds read bars from, or undefined to read the store every time. */
  readonly cache: HotTier | undefined;
  /** `/metrics` (decisions §10), when asked for. */
  readonly metrics: ServiceMetrics | undefined;
}

/** One route family of the service: registers its routes (and their hooks) on the app, from the handles it takes out of the context. */
export type ServicePart = (app: FastifyInstance, service: ServiceContext) => void;

/**
 * Resolves the stores from the options: `bars`, `keys` and `quota` each override `store`. The
 * accounts are reached through the store's own accounts handle where it has one, so a key
 * lookup or a quota read is one call on the accounts, never a forward through the bar store.
 *
 * @throws TypeError when no bar, key or quota store is given.
 */
export function storesOf(options: ServerOptions): ServiceStores {
  const { store } = options;
  const bars = options.bars ?? store;
  const accounts = store === undefined ? undefined : accountsOf(store);
  const keys = options.keys ?? accounts;
  const quota = options.quota ?? accounts;
  if (!bars || !keys || !quota) throw new TypeError("createServer needs a bar, key and quota store (or one `store` serving all three)");
  // /health checks the stores as the options named them: a store's own health covers its
  // accounts (an SQLite store's quota file, a PostgreSQL pool), whichever handle the routes use.
  const roles = new Map<unknown, string[]>();
  for (const [role, given] of [["bars", bars], ["keys", options.keys ?? store], ["quota", options.quota ?? store]] as const) {
    roles.set(given, [...(roles.get(given) ?? []), role]);
  }
  // Watchlists live with the accounts (decisions §13): the key store's, else the store's, even
  // when the keys are wrapped (a fallback key cache keeps no lists).
  const watchlists = [options.keys, accounts, store].find(hasWatchlists) as WatchlistStore | undefined;
  const owner = [store, bars].find(hasAlerts);
  return {
    bars,
    keys,
    quota,
    watchlists,
    alerts: options.alerts === false ? undefined : (options.alerts ?? (owner && hasAlerts(owner) ? owner.alerts : undefined)),
    dependencies: [...roles].map(([given, storeRoles]) => ({ roles: storeRoles, store: given as { health?: () => Promise<void> } })),
  };
}

/** The store's accounts (keys and quota counters): its `accounts` handle, or the store itself when it serves them. */
function accountsOf(store: NonNullable<ServerOptions["store"]>): (KeyStore & QuotaStore) | undefined {
  if ("accounts" in store && isAccounts(store.accounts)) return store.accounts;
  return isAccounts(store) ? store : undefined;
}

function isAccounts(value: unknown): value is KeyStore & QuotaStore {
  const methods = value as Partial<Record<"findKeyByHash" | "usage" | "reserve" | "release", unknown>> | null | undefined;
  return typeof methods?.findKeyByHash === "function" && typeof methods.usage === "function" && typeof methods.reserve === "function" && typeof methods.release === "function";
}

/** The limits several route families apply, from the options and their defaults. */
export function limitsOf(options: ServerOptions): ServiceLimits {
  return {
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    markets: options.markets ?? DEFAULT_MARKETS,
    lookbackCeiling: options.lookbackCeiling ?? DEFAULT_LOOKBACK_CEILING,
    warmupCeiling: options.warmupCeiling ?? DEFAULT_WARMUP_CEILING,
    warmup: options.warmup ?? DEFAULT_WARMUP,
    costBudget: options.costBudget ?? DEFAULT_COST_BUDGET,
    evaluationSliceMs: options.evaluationSliceMs ?? 10,
  };
}

/**
 * The context every part is given, and the request pipeline it shares: authentication with
 * the account's admission (`onRequest`), then the account's fair turn once the body is read
 * (`preHandler`), and the hot tier, which closes with the app.
 */
export function serviceOf(app: FastifyInstance, options: ServerOptions, stores: ServiceStores, limits: ServiceLimits): ServiceContext {
  const clock = options.clock ?? systemClock;
  const admission = new Admission(options.maxRunsInFlight ?? DEFAULT_MAX_RUNS_IN_FLIGHT, options.maxRunsQueued ?? DEFAULT_MAX_RUNS_QUEUED);
  // Run and history answers carry the rate-limit headers for a known key, whatever went wrong
  // (an error, or the admission's 429).
  const rateLimitHeaders = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const caller = auth.maybeCallerOf(request);
    if (!caller || (request.routeOptions.url !== "/xql/run" && request.routeOptions.url !== "/xql/history")) return;
    try {
      const now = clock.now();
      const usage = await stores.quota.usage(caller.accountId, utcDay(now), caller.limit);
      setRateLimitHeaders(reply, caller.limit, usage.remaining, now);
    } catch {
      // The quota store is down as well; the answer goes out without the headers.
    }
  };
  // Every route that authenticates through this hook gets the per-account admission.
  const auth = createAuthenticator(stores.keys, { admission, beforeRefusal: rateLimitHeaders });
  // And its work starts at a fair turn, once its body is read: parsing a 4,000-token query is
  // synchronous, so one account's admitted requests take one turn at a time, round-robin with
  // every other account's, instead of running back to back before anyone else's next step.
  app.addHook("preHandler", async (request) => {
    const caller = auth.maybeCallerOf(request);
    if (caller) await admission.turns.turn(caller.accountId);
  });
  const cache = options.cache === false ? undefined : (options.cache ?? new HotTier(stores.bars, { budgetBytes: cacheBytes(options.cacheMb) }));
  if (cache && options.cache === undefined) {
    // A tier of its own: it follows the store's writes while the server runs.
    cache.watch();
    app.addHook("onClose", async () => cache.close());
  }
  const xqlOptions: XqlOptions = {
    markets: limits.markets,
    lookbackCeiling: limits.lookbackCeiling,
    ...(options.warmupCeiling === undefined ? {} : { warmupCeiling: options.warmupCeiling }),
    ...(options.costBudget === undefined ? {} : { costBudget: options.costBudget }),
  };
  return {
    ...stores,
    options,
    limits,
    clock,
    admission,
    auth,
    rateLimitHeaders,
    queries: new QueryCache(xqlOptions, options.queryCacheBytes ?? DEFAULT_QUERY_CACHE_BYTES),
    cache,
    metrics: options.metrics ? new ServiceMetrics(options.metrics.registry) : undefined,
  };
}

function cacheBytes(mb: number | undefined): number | undefined {
  if (mb === undefined) return undefined;
  if (!Number.isInteger(mb) || mb < 0) throw new TypeError("createServer: cacheMb must be a non-negative integer (MiB)");
  return mb * 1024 * 1024;
}
