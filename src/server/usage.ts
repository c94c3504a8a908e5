/** `GET /usage`: the caller's account, its tier and its quota on the current UTC day (not metered). */
import type { FastifyInstance } from "fastify";
import type { Clock } from "../clock.js";
import type { QuotaStore } from "../accounts/accounts.js";
import type { Authenticator } from "./auth.js";
import { fromStore } from "./errors.js";
import { nextUtcMidnight, setRateLimitHeaders, utcDay } from "./quota.js";
import type { ServicePart } from "./service.js";

interface UsageRouteContext {
  auth: Authenticator;
  quota: QuotaStore;
  clock: Clock;
}

/** `GET /usage`, read from the accounts' quota counters. */
export const usagePart: ServicePart = {
  name: "usage",
  register: (app, { auth, quota, clock }) => registerUsage(app, { auth, quota, clock }),
};

function registerUsage(app: FastifyInstance, ctx: UsageRouteContext): void {
  const { auth, quota, clock } = ctx;
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
}
