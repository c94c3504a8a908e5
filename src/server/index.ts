/**
 * `xql/server`: the XQL HTTP service as a Fastify instance, with the store contracts and the
 * embedded SQLite store, so other Node services can mount it or run it on their own stores.
 *
 * @module xql/server
 */
export { createServer, systemClock, DEFAULT_BODY_LIMIT } from "./app.js";
export type { Clock, ServerOptions } from "./app.js";
export { openApiDocument } from "./openapi.js";
export { utcDay, nextUtcMidnight } from "./quota.js";
export { openStore } from "../data/open.js";
export type { OpenStoreOptions, Store } from "../data/open.js";
export type { PostgresStoreOptions } from "../data/postgres.js";
export { DEFAULT_COST_BUDGET } from "../plan/cost.js";
export { SqliteStore, SCHEMA_VERSION } from "../data/sqlite.js";
export type { SqliteStoreOptions } from "../data/sqlite.js";
export { BarCache, DEFAULT_WARMUP, fetchUniverse } from "../data/fetch.js";
export type { FetchOptions } from "../data/fetch.js";
export { TIERS, TIER_LIMITS, HealthError } from "../data/store.js";
export type {
  Account,
  BarBatch,
  BarStore,
  DeleteBarsRequest,
  KeyRecord,
  KeyStore,
  LatestBarsRequest,
  ProgressListener,
  QuotaStore,
  QuotaUsage,
  Reservation,
  SeriesInfo,
  SymbolBars,
  Tier,
} from "../data/store.js";
export { generateApiKey, hashApiKey } from "../data/keys.js";
