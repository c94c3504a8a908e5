/**
 * `xql/server`: the XQL HTTP service as a Fastify instance, with the store contracts and the
 * embedded SQLite store, so other Node services can mount it or run it on their own stores.
 *
 * @module xql/server
 */
export { createServer } from "./app.js";
export { DEFAULT_BODY_LIMIT } from "./service.js";
export { systemClock } from "../clock.js";
export { DEFAULT_METRICS_HOST, MissingPromClientError, metricsAddress } from "./metrics.js";
export type { MetricsOptions } from "./metrics.js";
export type { ServerOptions } from "./app.js";
export type { Clock, Sleep } from "../clock.js";
export { openApiDocument } from "./openapi.js";
export { utcDay, nextUtcMidnight } from "./quota.js";
export { openStore } from "../open/open.js";
export type { OpenStoreOptions, Store } from "../open/open.js";
export type { PostgresStoreOptions } from "../store/postgres.js";
export { DEFAULT_COST_BUDGET } from "../plan/cost.js";
export { SqliteStore } from "../open/sqlite.js";
export { SCHEMA_VERSION } from "../db/migrations.js";
export type { SqliteStoreOptions } from "../store/sqlite.js";
export { DEFAULT_WARMUP, fetchUniverse } from "../fetch/fetch.js";
export { HotTier } from "../store/hot-tier.js";
export type { HotLease, HotTierOptions, HotTierStats } from "../store/hot-tier.js";
export type { FetchOptions } from "../fetch/fetch.js";
export { TIERS, TIER_LIMITS } from "../accounts/accounts.js";
export { HealthError } from "../store/store.js";
export type { Account, KeyRecord, KeyStore, NewKey, QuotaStore, QuotaUsage, Reservation, Tier } from "../accounts/accounts.js";
export type {
  BarBatch,
  BarStore,
  ChangesSince,
  DataChange,
  DataListener,
  DeleteBarsRequest,
  Incoming,
  LatestBarsRequest,
  ProgressListener,
  SeriesInfo,
  SymbolBars,
  SymbolWrite,
  FeedRecord,
  TouchedSeries,
  WriteOptions,
  WriteResult,
} from "../store/store.js";
export type { SeriesClaim } from "../store/series-owners.js";
export type { LeaseView, PgScreenLeases } from "../alerts/leases.js";
export type { Watchlist, WatchlistPut } from "../accounts/watchlists.js";
export { MAX_WATCHLISTS } from "../accounts/watchlists.js";
export type { Columns } from "../store/blocks.js";
export type { SqliteAccounts } from "../accounts/sqlite.js";
export { generateApiKey, hashApiKey } from "../accounts/keys.js";
export { ALERT_LIMITS } from "../alerts/alerts.js";
export type {
  AlertEvent,
  AlertHead,
  AlertRecord,
  AlertState,
  AlertStore,
  BarOutcome,
  DeliveryOutcome,
  DeliveryShares,
  DeliveryStatus,
  DeliverySummary,
  DueDelivery,
  EvaluationCommit,
  MatchRow,
  NewAlert,
  StreamItem,
} from "../alerts/alerts.js";
export type { ResolvedAddress, Resolver } from "../alerts/webhook-url.js";
