/**
 * Quota periods are UTC days. A day is named `YYYY-MM-DD`; it resets at the next UTC
 * midnight, which the rate-limit headers give in epoch seconds and `/usage` as ISO 8601.
 */
import type { FastifyReply } from "fastify";

const DAY_MS = 86_400_000;

/** The quota period holding `now`: its UTC date, `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** ms since the epoch of the first UTC midnight after `now`. */
export function nextUtcMidnight(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/** Whole seconds from `now` until the quota resets, at least 1. */
export function secondsUntilReset(now: number): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000));
}

/** Sets `X-RateLimit-Limit`, `X-RateLimit-Remaining` (after this call) and `X-RateLimit-Reset` (epoch seconds). */
export function setRateLimitHeaders(reply: FastifyReply, limit: number, remaining: number, now: number): void {
  reply.header("X-RateLimit-Limit", String(limit));
  reply.header("X-RateLimit-Remaining", String(Math.max(0, remaining)));
  reply.header("X-RateLimit-Reset", String(nextUtcMidnight(now) / 1000));
}
