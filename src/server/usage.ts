/** `GET /usage`: the caller's account, its tier and its quota on the current UTC day (not metered). */
import { fromStore } from "./errors.js";
import { nextUtcMidnight, setRateLimitHeaders, utcDay } from "./quota.js";
import type { ServicePart } from "./service.js";

/** `GET /usage`, read from the accounts' quota counters. */
export const usagePart: ServicePart = (app, { auth, quota, clock }) => {
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
};
