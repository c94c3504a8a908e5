/**
 * The scale-out quota store: daily counters in Redis, shared by every `xql serve` replica.
 *
 * - One key per account and UTC day: `xql:quota:{account}:{YYYY-MM-DD}`. The day is in the
 *   name, so a new day starts from zero at UTC midnight whatever the key's expiry.
 * - Reserve is one Lua script (atomic in Redis): when the counter is below the limit it is
 *   incremented, otherwise nothing changes, so the counter never exceeds the limit and of N
 *   concurrent reservations with k remaining exactly k are admitted, across replicas.
 * - Release is one Lua script too: decrement only when above zero.
 * - Each write sets the key to expire one hour after the end of its UTC day (the hour lets a
 *   replica whose clock lags a little still find the day's counter; it never changes
 *   metering since the next day has another key). Should that moment already be past on the
 *   Redis server's clock, the key is kept one more day instead of vanishing at once.
 * - Fail fast: no offline queue and no retried commands, so while Redis is down every call
 *   rejects at once (the server answers run with 500, consuming nothing) instead of
 *   queueing; the client keeps reconnecting in the background and calls work again as soon
 *   as Redis is back. Each command gives up after `commandTimeout` (1 s).
 * - Reconciliation: a Redis that stalls (paused, swapping) still executes, when it wakes, the
 *   commands whose replies the client stopped waiting for. So each reservation carries an id:
 *   reserving writes a pending marker `…:r:{id}` beside the counter (TTL 10 minutes), and a
 *   release of that id removes the marker and decrements only when the marker was there;
 *   when it was not (the reservation has not arrived yet), the release leaves a tombstone
 *   that makes the late reservation a no-op. Both scripts are idempotent, and a release sent
 *   after a timed-out reservation on the same connection is executed after it. So a run that
 *   answered 500 is never charged, whenever Redis runs its commands. A 200 leaves the marker
 *   to expire: the call stays counted.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { RedisOptions } from "ioredis";
import type { QuotaStore, QuotaUsage, Reservation } from "./accounts.js";
import { HealthError } from "../store/store.js";
import { redactUrl } from "../redact.js";
import { XqlDataError, messageOf } from "../errors.js";

const DAY_MS = 86_400_000;
/** Kept past the end of the key's UTC day, ms. */
export const QUOTA_EXPIRY_MARGIN_MS = 3_600_000;

/** Seconds a reservation's marker or a release's tombstone is kept: far beyond any run. */
export const RESERVATION_TTL_S = 600;

/**
 * KEYS[1] counter, KEYS[2] the reservation's marker (empty id: none); ARGV[1] limit, ARGV[2]
 * expiry (ms epoch). Returns {admitted 0|1, used}. A marker already present means this
 * reservation was counted (a resent command): admitted again without counting; a tombstone
 * means it was already released: refused without counting.
 */
const RESERVE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
local marker = redis.call('GET', KEYS[2])
if marker == 'reserved' then
  return {1, used}
end
if marker == 'released' then
  return {0, used}
end
if used >= limit then
  return {0, used}
end
used = redis.call('INCR', KEYS[1])
redis.call('SET', KEYS[2], 'reserved', 'EX', ${RESERVATION_TTL_S})
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = tonumber(ARGV[2])
if at <= now then at = now + ${DAY_MS} end
redis.call('PEXPIREAT', KEYS[1], at)
return {1, used}
`;

/**
 * KEYS[1] counter, KEYS[2] the reservation's marker. Returns the count after giving the
 * reservation back (never below zero): only a marker still `reserved` is given back, once;
 * without one, a tombstone stops the reservation from counting should it arrive later.
 */
const RELEASE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local marker = redis.call('GET', KEYS[2])
if marker == 'reserved' then
  if used > 0 then
    used = redis.call('DECR', KEYS[1])
  end
end
if marker ~= 'released' then
  redis.call('SET', KEYS[2], 'released', 'EX', ${RESERVATION_TTL_S})
end
return used
`;

/** KEYS[1] counter. The release of a call made without a reservation id. */
const RELEASE_ANONYMOUS = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used > 0 then
  used = redis.call('DECR', KEYS[1])
end
return used
`;

interface QuotaCommands {
  xqlReserve(key: string, marker: string, limit: number, expireAt: number): Promise<[number, number]>;
  xqlRelease(key: string, marker: string): Promise<number>;
  xqlReleaseAnonymous(key: string): Promise<number>;
}

export interface RedisQuotaStoreOptions {
  /** Prefix of every key. Default `xql:quota:`. */
  prefix?: string;
  /** How long to wait for a connection, ms. Default 2000. */
  connectTimeout?: number;
  /** Limit on each command, ms: a stalled Redis costs a run at most this long. Default 1000. */
  commandTimeout?: number;
  /** Told about connection errors (Redis down, reconnecting). */
  onError?: (error: Error) => void;
}

/** True when the text names a Redis server (`redis://` or `rediss://`). */
export function isRedisUrl(text: string | undefined): text is string {
  return text !== undefined && /^rediss?:\/\//i.test(text);
}

/** The key holding an account's count for a UTC day. */
export function quotaKey(prefix: string, accountId: string, day: string): string {
  return `${prefix}${accountId}:${day}`;
}

/** ms epoch when the counter of `day` (YYYY-MM-DD) may go: the end of that UTC day plus the margin. */
export function quotaExpiry(day: string): number {
  const start = Date.parse(`${day}T00:00:00.000Z`);
  if (Number.isNaN(start)) throw new XqlDataError("quota-day", { day });
  return start + DAY_MS + QUOTA_EXPIRY_MARGIN_MS;
}

/** {@link QuotaStore} on Redis. */
export class RedisQuotaStore implements QuotaStore {
  readonly url: string;
  readonly redis: Redis;
  private readonly prefix: string;
  private readonly commands: QuotaCommands;

  constructor(url: string, options: RedisQuotaStoreOptions = {}) {
    this.url = redactUrl(url);
    this.prefix = options.prefix ?? "xql:quota:";
    const redisOptions: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: options.connectTimeout ?? 2000,
      commandTimeout: options.commandTimeout ?? 1000,
      lazyConnect: true,
      // Keep trying in the background, at most every second.
      retryStrategy: (attempt) => Math.min(50 * attempt, 1000),
    };
    this.redis = new Redis(url, redisOptions);
    this.redis.on("error", (error: Error) => options.onError?.(error));
    this.redis.defineCommand("xqlReserve", { numberOfKeys: 2, lua: RESERVE });
    this.redis.defineCommand("xqlRelease", { numberOfKeys: 2, lua: RELEASE });
    this.redis.defineCommand("xqlReleaseAnonymous", { numberOfKeys: 1, lua: RELEASE_ANONYMOUS });
    this.commands = this.redis as unknown as QuotaCommands;
  }

  /** Connects; rejects when Redis cannot be reached (the client keeps trying afterwards). */
  static async open(url: string, options: RedisQuotaStoreOptions = {}): Promise<RedisQuotaStore> {
    const store = new RedisQuotaStore(url, options);
    try {
      await store.redis.connect();
      await store.redis.ping();
    } catch (error) {
      store.close();
      throw new XqlDataError("redis-unreachable", { url: store.url, reason: messageOf(error) });
    }
    return store;
  }

  async reserve(accountId: string, day: string, limit: number, reservationId?: string): Promise<Reservation> {
    const key = quotaKey(this.prefix, accountId, day);
    const marker = reservationId === undefined ? `${key}:r:${randomUUID()}` : `${key}:r:${reservationId}`;
    const [admitted, used] = await this.commands.xqlReserve(key, marker, limit, quotaExpiry(day));
    return { admitted: admitted === 1, used, remaining: Math.max(0, limit - used) };
  }

  async release(accountId: string, day: string, limit: number, reservationId?: string): Promise<QuotaUsage> {
    const key = quotaKey(this.prefix, accountId, day);
    const used =
      reservationId === undefined
        ? await this.commands.xqlReleaseAnonymous(key)
        : await this.commands.xqlRelease(key, `${key}:r:${reservationId}`);
    return { used, remaining: Math.max(0, limit - used) };
  }

  async usage(accountId: string, day: string, limit: number): Promise<QuotaUsage> {
    const value = await this.redis.get(quotaKey(this.prefix, accountId, day));
    const used = value === null ? 0 : Number(value);
    return { used, remaining: Math.max(0, limit - used) };
  }

  /** Resolves when Redis answers a PING. */
  async health(): Promise<void> {
    try {
      await this.redis.ping();
    } catch (error) {
      throw new HealthError("quota", "Redis does not answer", { cause: error });
    }
  }

  /** Closes the connection at once; later calls reject. */
  close(): void {
    this.redis.disconnect();
  }
}
