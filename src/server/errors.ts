/**
 * Error mapping: the fixed bodies the service answers with, the wrapper that turns any store
 * failure into `500 Data store unavailable` (or a busy store into 503), the log-safe view of
 * a failure, and the not-found and error handlers. No cause, stack or key ever reaches a body.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { StoreBusyError } from "../store/store.js";
import { XqlDataError } from "../errors.js";

export const UNAUTHORIZED = { error: "Missing or invalid API key" } as const;
export const RATE_LIMITED = { error: "Daily API rate limit exceeded" } as const;
export const STORE_UNAVAILABLE = { error: "Data store unavailable" } as const;
export const STORE_BUSY = { error: "Data store busy, retry shortly" } as const;
export const INTERNAL = { error: "Internal server error" } as const;
/** Seconds a 503 busy answer asks the caller to wait. */
export const BUSY_RETRY_AFTER_S = 1;

/** A store call failed: the answer is 500 `Data store unavailable` (503 when busy), never the cause. */
export class StoreUnavailable extends XqlDataError<"store-unavailable"> {
  override readonly name: string = "StoreUnavailable";
  constructor(options?: ErrorOptions) {
    super("store-unavailable", {}, options);
  }
}

/** Runs a store call; any failure becomes a {@link StoreUnavailable} carrying the cause. */
export async function fromStore<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (cause) {
    throw new StoreUnavailable({ cause });
  }
}

/** True when the failure is a store that was busy with another writer (an import), not down. */
export function isBusy(error: unknown): boolean {
  const cause = error instanceof StoreUnavailable ? error.cause : error;
  return cause instanceof StoreBusyError;
}

/** Answers a store failure: 503 with Retry-After when the store was busy, else 500. */
export function sendStoreFailure(reply: FastifyReply, error: unknown): FastifyReply {
  if (isBusy(error)) return reply.code(503).header("Retry-After", String(BUSY_RETRY_AFTER_S)).send(STORE_BUSY);
  return reply.code(500).send(STORE_UNAVAILABLE);
}

/** Log-safe view of a failure: the message and code, no stack, and never a header. */
export function describeError(error: unknown): Record<string, unknown> {
  const cause = error instanceof StoreUnavailable ? error.cause : error;
  if (cause instanceof Error) return { name: cause.name, message: cause.message, code: (cause as { code?: unknown }).code };
  return { message: String(cause) };
}

/** The methods the service's routes use (HEAD comes with every GET), in `Allow` order. */
const ROUTE_METHODS = ["GET", "HEAD", "POST", "DELETE"] as const;

/** A request URL without its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/**
 * Installs the 404/405 handler and the error handler. `beforeError` runs first for every
 * error (the run route uses it to add the rate-limit headers).
 */
export function installErrorHandlers(
  app: FastifyInstance,
  options: { bodyLimit: number; beforeError?: (request: import("fastify").FastifyRequest, reply: FastifyReply) => Promise<void> },
): void {
  // A known path with another method is a 405 naming the methods its routes take, not a 404.
  app.setNotFoundHandler(async (request, reply) => {
    const url = pathOf(request.url);
    const methods = ROUTE_METHODS.filter((method) => app.hasRoute({ method, url })).join(", ");
    if (methods !== "") return reply.code(405).header("Allow", methods).send({ error: `Method not allowed; use ${methods}` });
    return reply.code(404).send({ error: "Not found" });
  });

  app.setErrorHandler(async (error: unknown, request, reply) => {
    const status = (error as { statusCode?: unknown }).statusCode;
    await options.beforeError?.(request, reply);
    if (error instanceof StoreUnavailable) {
      request.log.error({ err: describeError(error) }, isBusy(error) ? "data store busy" : "data store unavailable");
      return sendStoreFailure(reply, error);
    }
    if (status === 413) {
      // A route may raise the server's limit (a push of bars takes 16 MiB): name the one that applied.
      const limit = request.routeOptions.bodyLimit ?? options.bodyLimit;
      return reply.code(413).send({ error: `Request body exceeds the limit of ${limit} bytes` });
    }
    if (status === 408 || (error as { code?: unknown }).code === "FST_ERR_REQUEST_TIMEOUT") {
      return reply.code(408).send({ error: "Request timed out" });
    }
    if (typeof status === "number" && status >= 400 && status < 500) {
      return reply.code(status).send({ error: (error as Error).message || "Bad request" });
    }
    request.log.error({ err: describeError(error) }, "unexpected failure");
    return reply.code(500).send(INTERNAL);
  });
}
