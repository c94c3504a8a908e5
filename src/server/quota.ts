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

/** Runs one account may evaluate at once by default; more wait their turn. */
export const DEFAULT_MAX_RUNS_IN_FLIGHT = 4;
/** Runs one account may have waiting for a slot by default; more answer 429 (TOO_MANY_RUNS). */
export const DEFAULT_MAX_RUNS_QUEUED = 100;

/**
 * Runs in flight per account, in this process: at most `limit` fetch and evaluate at once,
 * the next `queueLimit` wait in order, and beyond that a run is refused at once (429 with its
 * own body, nothing taken from the daily quota). So one account opening many connections
 * takes turns with everyone else instead of crowding them out, while a burst of concurrent
 * runs within the queue (the contract's "N concurrent runs with k remaining admit exactly k")
 * is served whole.
 */
export class InFlightRuns {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(
    readonly limit: number,
    readonly queueLimit: number,
  ) {}

  /** Resolves true once the account holds a slot; false at once when its queue is full. */
  async acquire(accountId: string): Promise<boolean> {
    const count = this.running.get(accountId) ?? 0;
    if (count < this.limit) {
      this.running.set(accountId, count + 1);
      return true;
    }
    const queue = this.waiting.get(accountId) ?? [];
    if (queue.length >= this.queueLimit) return false;
    this.waiting.set(accountId, queue);
    // The slot passes straight from release to the waiter: the running count stays the same.
    await new Promise<void>((resolve) => queue.push(resolve));
    return true;
  }

  release(accountId: string): void {
    const queue = this.waiting.get(accountId);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(accountId);
    if (next) {
      next();
      return;
    }
    const count = (this.running.get(accountId) ?? 1) - 1;
    if (count <= 0) this.running.delete(accountId);
    else this.running.set(accountId, count);
  }
}
