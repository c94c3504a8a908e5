/**
 * `GET /health` (no key): each store the service depends on is checked (read and write); the
 * body names, per role (bars, keys, quota), the ones that failed and why.
 */
import { VERSION } from "../version.js";
import { HealthError } from "../store/store.js";
import { describeError } from "./errors.js";
import type { ServicePart } from "./service.js";

/** `GET /health`, over every store the options named, with the roles it serves. */
export const healthPart: ServicePart = (app, { dependencies }) => {
  app.get("/health", async (request, reply) => {
    const checks: Record<string, string> = {};
    let healthy = true;
    await Promise.all(
      dependencies.map(async ({ roles, store }) => {
        for (const role of roles) checks[role] = "ok";
        try {
          await store.health?.();
        } catch (error) {
          healthy = false;
          request.log.warn({ err: describeError(error), dependency: roles.join(",") }, "health check failed");
          // A store serving several roles says which part failed: its database (bars, keys) or its quota counters.
          const part = error instanceof HealthError ? error.dependency : undefined;
          const failed = roles.filter((role) => (part === "quota" ? role === "quota" : part === "database" ? role !== "quota" : true));
          for (const role of failed.length > 0 ? failed : roles) checks[role] = error instanceof HealthError ? error.reason : "unavailable";
        }
      }),
    );
    const ordered = Object.fromEntries(["bars", "keys", "quota"].filter((r) => r in checks).map((r) => [r, checks[r]!]));
    if (healthy) return reply.send({ status: "ok", version: VERSION, checks: ordered });
    return reply.code(503).send({ status: "unavailable", version: VERSION, checks: ordered });
  });
};
