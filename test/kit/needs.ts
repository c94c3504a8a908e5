/**
 * Tests that need something this machine may not have (PostgreSQL and Redis, root, Linux) are
 * registered either way: where the need is met they run; where it is not they are skipped with
 * the reason in their title, so the report says what did not run and why — never a silent
 * `runIf`. CI meets every need (`npm run check` starts PostgreSQL and Redis and exports their
 * URLs), so there nothing is skipped.
 */
import { describe, it } from "vitest";

/** PostgreSQL for the tests (`scripts/services.sh start` prints it), or undefined. */
export const DATABASE_URL = process.env.XQL_TEST_DATABASE_URL || undefined;
/** Redis for the tests (`scripts/services.sh start` prints it), or undefined. */
export const REDIS_URL = process.env.XQL_TEST_REDIS_URL || undefined;

const START = "run scripts/services.sh start and eval its export lines";
/** Why a test that needs PostgreSQL cannot run here, or undefined when it can. */
export const WITHOUT_POSTGRES = DATABASE_URL ? undefined : `XQL_TEST_DATABASE_URL not set (${START})`;
/** Why a test that needs PostgreSQL and Redis cannot run here, or undefined when it can. */
export const WITHOUT_SERVICES =
  DATABASE_URL && REDIS_URL ? undefined : `${[DATABASE_URL ? "" : "XQL_TEST_DATABASE_URL", REDIS_URL ? "" : "XQL_TEST_REDIS_URL"].filter(Boolean).join(" and ")} not set (${START})`;

/** The title of a test or suite skipped for `reason`. */
export function skippedTitle(name: string, reason: string): string {
  return `${name} — skipped: ${reason}`;
}

/** A suite that runs unless `missing` says why it cannot (then every test in it is skipped, the reason in the suite's title). */
export function describeUnless(missing: string | undefined, name: string, body: () => void): void {
  if (missing === undefined) describe(name, body);
  else describe.skip(skippedTitle(name, missing), body);
}

/** A test that runs unless `missing` says why it cannot (then it is skipped, the reason in its title). */
export function itUnless(missing: string | undefined, name: string, body: () => unknown, timeout?: number): void {
  if (missing === undefined) it(name, body, timeout);
  else it.skip(skippedTitle(name, missing), body, timeout);
}

/** A suite that needs PostgreSQL. */
export function needsPostgres(name: string, body: () => void): void {
  describeUnless(WITHOUT_POSTGRES, name, body);
}

/** A suite that needs PostgreSQL and Redis. */
export function needsServices(name: string, body: () => void): void {
  describeUnless(WITHOUT_SERVICES, name, body);
}
