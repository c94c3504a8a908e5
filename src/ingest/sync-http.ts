/**
 * How every sync source talks to its server (decisions §6, §12, §14): one place for the bounds
 * and the waits, whatever the provider.
 *
 * - A reply is read up to {@link DEFAULT_MAX_REPLY_BYTES} (64 MiB): a larger one is cut off and
 *   counts as a failed request, so a hostile `--api-url` cannot grow the process without end.
 * - A reply that is not the JSON expected (an HTML page from a proxy, a truncated body) is a
 *   failed request said on standard error, never an empty success.
 * - 429/418 pause every request of the source until its `Retry-After` has passed, up to
 *   {@link MAX_RETRY_AFTER_MS} (5 minutes; a longer one is waited 5 minutes, and said so);
 *   network failures, 5xx and bad replies are retried with exponential back-off; a refused
 *   connection says at once that the host cannot be reached.
 * - A stop request (SIGINT) ends every wait at once, and aborts the requests still in flight
 *   after a short grace ({@link DEFAULT_STOP_GRACE_MS}), so the process exits within 2 s
 *   whatever it was waiting on; the pages already answered are still written.
 * - Requests of one source start at most `perSecond` a second (OANDA: 120 per address).
 */
import { setMaxListeners } from "node:events";
import { redactUrl } from "../redact.js";
import { type Clock, type Sleep, systemClock, systemSleep } from "../clock.js";
import { XqlDataError, messageOf } from "../errors.js";

/** The largest reply a sync reads: beyond it the reply is cut off and the request has failed. */
export const DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024;

/** The longest `Retry-After` a sync waits out; a server asking for more gets this. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** ms a request in flight may still finish after a stop request before it is aborted. */
export const DEFAULT_STOP_GRACE_MS = 1000;

/** Where a sync reads the time and waits; the tests' clock moves on when the sync sleeps. */
export interface SyncClock extends Clock {
  /** Resolves after `ms`, or at once when `signal` is aborted. */
  sleep: Sleep;
}

export const systemSyncClock: SyncClock = { now: systemClock.now, sleep: systemSleep };

/** Why a request failed: each kind is waited on, retried or given up as the table in docs/data.md says. */
export type FeedFailure =
  /** 429/418: the source limits requests; `retryAfterMs` when it said how long. */
  | "limited"
  /** The connection was refused, or the host name does not resolve. */
  | "unreachable"
  /** Reset, dropped, or no answer within the timeout. */
  | "network"
  /** HTTP 5xx. */
  | "server"
  /** A reply above the byte bound. */
  | "too-large"
  /** A reply that is not the JSON expected. */
  | "bad-reply"
  /** The credentials were refused (401/403): no retry helps, the sync ends. */
  | "refused"
  /** Any other 4xx: this request is wrong for this pair (an unknown instrument); not retried. */
  | "client"
  /** The stop request aborted it. */
  | "stopped";

/** A request that failed, by kind; the message is for people and holds no credentials. */
export class FeedRequestError extends XqlDataError<"feed-request"> {
  override readonly name: string = "FeedRequestError";
  constructor(
    readonly kind: FeedFailure,
    message: string,
    readonly retryAfterMs?: number,
    readonly status?: number,
  ) {
    super("feed-request", { message });
  }
}

/** Kinds retried with back-off (a limited request waits its Retry-After instead). */
const RETRIED: ReadonlySet<FeedFailure> = new Set(["limited", "unreachable", "network", "server", "too-large", "bad-reply"]);

/** How failed requests are retried. */
export interface RetryPolicy {
  /** First wait after a failure, doubled on each attempt up to `maxDelayMs`. Default 1000. */
  baseDelayMs?: number;
  /** Longest wait between attempts. Default 60 000. */
  maxDelayMs?: number;
  /** Attempts per request before it fails. Default 8 (about 4 minutes of an unreachable host). */
  attempts?: number;
}

export interface FeedClientOptions extends RetryPolicy {
  /** Told each wait: its reason and how long until the retry. */
  onRetry?: (message: string) => void;
  /** ms a request may take before it counts as unanswered. Default 30 000. */
  timeoutMs?: number;
  /** The reply bound in bytes. Default {@link DEFAULT_MAX_REPLY_BYTES}. */
  maxReplyBytes?: number;
  /** At most this many requests start per second. Default: no limit. */
  perSecond?: number;
  clock?: SyncClock;
  /** The stop request: waits end at once, requests in flight are aborted after `stopGraceMs`. */
  stop?: AbortSignal;
  stopGraceMs?: number;
}

/** A reply read whole (within the bound). */
export interface FeedReply {
  status: number;
  headers: Headers;
  body: Buffer;
}

/**
 * One source's requests: bounded reads, the shared pause of a rate limit, retries with back-off,
 * and the stop request. `id` names the source in every message (`oanda`, `binance`).
 */
export class FeedClient {
  /** No request starts before this time (the clock's): a 429 pauses them all (the limit is per address). */
  private pausedUntil = 0;
  private nextStart = 0;
  /** Aborted `stopGraceMs` after the stop request: requests still in flight then are abandoned. */
  readonly hardStop: AbortSignal;
  private readonly clock: SyncClock;
  private readonly stop: AbortSignal;
  /** HTTP requests sent, for the summary (a page of Dukascopy's is several). */
  requests = 0;

  /** The sync's time (its clock's, ms). */
  now(): number {
    return this.clock.now();
  }
  /** Hosts already said to be unreachable: said once at once, then with the waits. */
  private readonly unreachableSaid = new Set<string>();

  constructor(
    readonly id: string,
    private readonly options: FeedClientOptions = {},
  ) {
    this.clock = options.clock ?? systemSyncClock;
    this.stop = options.stop ?? new AbortController().signal;
    const hard = new AbortController();
    this.hardStop = hard.signal;
    // Every request in flight listens on it until it ends (boundedFetch removes its listener):
    // a batch of requests is many at once, which is not the leak Node's warning is about.
    setMaxListeners(0, hard.signal);
    const grace = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    const onStop = (): void => {
      // Wall time, not the clock's: the grace bounds how long the process lingers after Ctrl-C.
      const timer = setTimeout(() => hard.abort(), grace);
      timer.unref?.();
    };
    if (this.stop.aborted) onStop();
    else this.stop.addEventListener("abort", onStop, { once: true });
  }

  get maxReplyBytes(): number {
    return this.options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  }

  get timeoutMs(): number {
    return this.options.timeoutMs ?? 30_000;
  }

  /**
   * Runs `request` (one HTTP request and the reading of its reply) until it succeeds, retrying
   * the failures {@link RETRIED} lists. `what` names it in messages ("EUR_USD h1 candles").
   *
   * @throws FeedRequestError: the last failure after the attempts, one not retried, or `stopped`.
   */
  async run<T>(what: string, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const attempts = this.options.attempts ?? 8;
    const base = this.options.baseDelayMs ?? 1000;
    const max = this.options.maxDelayMs ?? 60_000;
    // Back-off grows with the failures that are not a rate limit (those wait their Retry-After).
    let failures = 0;
    for (let attempt = 1; ; attempt++) {
      await this.waitTurn();
      if (this.stop.aborted) throw new FeedRequestError("stopped", `stopped before ${what}`);
      let failure: FeedRequestError;
      try {
        return await request(this.hardStop);
      } catch (error) {
        if (this.hardStop.aborted) throw new FeedRequestError("stopped", `${what}: stopped while waiting for ${this.id}`);
        failure = this.classify(error);
      }
      if (!RETRIED.has(failure.kind) || attempt >= attempts || this.stop.aborted) throw failure;
      const backoff = Math.min(max, base * 2 ** (failure.kind === "limited" ? attempt - 1 : failures++));
      const onRetry = this.options.onRetry ?? (() => {});
      if (failure.kind === "limited") {
        const asked = failure.retryAfterMs;
        const delay = asked === undefined ? backoff : Math.min(asked, MAX_RETRY_AFTER_MS);
        this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + delay);
        onRetry(
          asked === undefined
            ? `${this.id} is limiting requests (${failure.message}); waiting ${seconds(delay)}, then retrying ${what}`
            : asked > MAX_RETRY_AFTER_MS
              ? `${this.id} is limiting requests (${failure.message}); its Retry-After asks for ${Math.round(asked / 1000)} s, more than a sync waits: waiting ${seconds(delay)}, then retrying ${what}`
              : `${this.id} is limiting requests (${failure.message}); waiting ${seconds(delay)} as its Retry-After says, then retrying ${what}`,
        );
        // The pause holds every request of the source; this one waits with them in waitTurn.
        continue;
      }
      onRetry(`${this.describe(failure)}; retrying ${what} in ${seconds(backoff)} (attempt ${attempt + 1} of ${attempts})`);
      await this.clock.sleep(backoff, this.stop);
    }
  }

  /**
   * GETs `url` and reads its reply within the bound; a 429/418, 401/403 or 5xx is thrown as its
   * kind, other statuses are the caller's to read. The request is aborted by the timeout or by
   * the stop request's grace.
   */
  async get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<FeedReply> {
    await this.holdForPause();
    if (this.stop.aborted) throw new FeedRequestError("stopped", "stopped before the request");
    this.requests++;
    const reply = await boundedFetch(url, { method: "GET", headers }, { signal, timeoutMs: this.timeoutMs, maxBytes: this.maxReplyBytes, clock: this.clock });
    throwForStatus(reply, this.clock.now());
    return reply;
  }

  /**
   * Waits out the shared pause of a rate limit, right before a request goes out: requests
   * already queued (behind ccxt's limiter, or in a batch) wait too, since the limit is per
   * address. Ends at once on a stop request.
   */
  async holdForPause(): Promise<void> {
    for (let wait = this.pausedUntil - this.clock.now(); wait > 0 && !this.stop.aborted; wait = this.pausedUntil - this.clock.now()) {
      await this.clock.sleep(wait, this.stop);
    }
  }

  /** Waits for the shared pause and the request rate; both end at once on a stop request. */
  private async waitTurn(): Promise<void> {
    await this.holdForPause();
    const perSecond = this.options.perSecond;
    if (perSecond === undefined) return;
    // Each request takes the next start slot; a burst is spread at 1000/perSecond ms apart.
    const now = this.clock.now();
    const start = Math.max(now, this.nextStart);
    this.nextStart = start + 1000 / perSecond;
    if (start > now) await this.clock.sleep(start - now, this.stop);
  }

  private classify(error: unknown): FeedRequestError {
    if (error instanceof FeedRequestError) return error;
    const network = networkFailure(error);
    if (network) return network;
    return new FeedRequestError("client", messageOf(error));
  }

  /** The failure in a few words, without a proxy's credentials. */
  private describe(failure: FeedRequestError): string {
    switch (failure.kind) {
      case "unreachable": {
        const first = !this.unreachableSaid.has(failure.message);
        this.unreachableSaid.add(failure.message);
        return `${this.id}: ${failure.message}${first ? " (check --api-url and the network)" : ""}`;
      }
      case "network":
        return `${this.id} did not answer (${failure.message})`;
      case "server":
        return `${this.id} failed to answer (${failure.message})`;
      case "too-large":
      case "bad-reply":
        return `${this.id} sent a reply a sync cannot use: ${failure.message}`;
      default:
        return `${this.id}: ${failure.message}`;
    }
  }
}

/** Network failures by the codes Node and undici give them. */
const REFUSED_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
const NETWORK_CODES = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

function codeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.cause?.code ?? e?.code;
  return typeof code === "string" ? code : undefined;
}

/** A fetch failure as a {@link FeedRequestError}, or undefined when it is not a network failure. */
function networkFailure(error: unknown, url?: string): FeedRequestError | undefined {
  const code = codeOf(error);
  if (code !== undefined && REFUSED_CODES.has(code)) {
    const host = url === undefined ? "the host" : safeHost(url);
    return new FeedRequestError("unreachable", `cannot reach ${host} (${code === "ECONNREFUSED" ? "connection refused" : code === "ENOTFOUND" ? "no such host" : code})`);
  }
  if ((code !== undefined && NETWORK_CODES.has(code)) || (error instanceof TypeError && /terminated|fetch failed|socket|other side closed/i.test(error.message))) {
    return new FeedRequestError("network", code ?? (error as Error).message);
  }
  return undefined;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return redactUrl(url);
  }
}

/**
 * One GET (or any method) whose reply is read up to `maxBytes`: redirects are not followed (a
 * feed's API does not redirect; a loop of them would otherwise hold the sync), the timeout and
 * `signal` abort it, and failures come back as {@link FeedRequestError}s.
 */
export async function boundedFetch(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
  bounds: { signal?: AbortSignal; timeoutMs: number; maxBytes: number; clock?: SyncClock },
): Promise<FeedReply> {
  // One controller per request, told by the timeout and by the caller's signal through a listener
  // removed when the request is done: AbortSignal.any would leave a listener on the caller's
  // long-lived stop signal per request until collected (Node 20), which a long `--follow` piles up.
  const controller = new AbortController();
  const timeout = { aborted: false };
  const timer = setTimeout(() => {
    timeout.aborted = true;
    controller.abort();
  }, bounds.timeoutMs);
  const stop = (): void => controller.abort();
  if (bounds.signal?.aborted) controller.abort();
  else bounds.signal?.addEventListener("abort", stop, { once: true });
  try {
    return await readReply(url, init, bounds, controller.signal, timeout);
  } finally {
    clearTimeout(timer);
    bounds.signal?.removeEventListener("abort", stop);
  }
}

async function readReply(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string },
  bounds: { signal?: AbortSignal; timeoutMs: number; maxBytes: number },
  signal: AbortSignal,
  timeout: { readonly aborted: boolean },
): Promise<FeedReply> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal, redirect: "manual" });
  } catch (error) {
    throw fetchFailure(error, url, bounds, timeout);
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel().catch(() => {});
    throw new FeedRequestError("bad-reply", `HTTP ${response.status} redirect to ${redactUrl(response.headers.get("location") ?? "nowhere")}, not followed`, undefined, response.status);
  }
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > bounds.maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(bounds.maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (response.body) {
      for await (const chunk of response.body) {
        size += chunk.byteLength;
        if (size > bounds.maxBytes) {
          await response.body.cancel().catch(() => {});
          throw tooLarge(bounds.maxBytes);
        }
        chunks.push(Buffer.from(chunk));
      }
    }
  } catch (error) {
    if (error instanceof FeedRequestError) throw error;
    throw fetchFailure(error, url, bounds, timeout);
  }
  return { status: response.status, headers: response.headers, body: Buffer.concat(chunks, size) };
}

function tooLarge(maxBytes: number): FeedRequestError {
  return new FeedRequestError("too-large", `the reply is larger than ${bytes(maxBytes)}; cut off there`);
}

function fetchFailure(error: unknown, url: string, bounds: { signal?: AbortSignal; timeoutMs: number }, timeout: { readonly aborted: boolean }): unknown {
  if (bounds.signal?.aborted) return error;
  if (timeout.aborted) return new FeedRequestError("network", `no answer within ${seconds(bounds.timeoutMs)}`);
  return networkFailure(error, url) ?? error;
}

/**
 * Throws the statuses every source treats alike: 429/418, 401/403 and 5xx. `now` is the sync's
 * clock, against which a `Retry-After` given as a date is read.
 */
export function throwForStatus(reply: FeedReply, now: number): void {
  const { status } = reply;
  if (status === 429 || status === 418) {
    throw new FeedRequestError("limited", `HTTP ${status}`, retryAfterMs(reply.headers.get("retry-after") ?? undefined, now), status);
  }
  if (status === 401 || status === 403) throw new FeedRequestError("refused", `HTTP ${status}: ${snippet(reply.body)}`, undefined, status);
  if (status >= 500) throw new FeedRequestError("server", `HTTP ${status}`, undefined, status);
}

/** The reply as JSON, or a bad reply that says what came instead. */
export function parseJsonReply(reply: FeedReply, expected: string): unknown {
  const text = reply.body.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    const kind = /^\s*</.test(text) ? "an HTML page" : text.trim() === "" ? "an empty reply" : "malformed JSON";
    throw new FeedRequestError("bad-reply", `${expected} expected, ${kind} came (HTTP ${reply.status}: ${snippet(reply.body)})`, undefined, reply.status);
  }
}

/** The start of a body, on one line, for a message. */
export function snippet(body: Buffer): string {
  const text = body.subarray(0, 200).toString("utf8").replace(/\s+/g, " ").trim();
  return text === "" ? "empty" : `'${text.slice(0, 80)}${text.length > 80 ? "…" : ""}'`;
}

/** `Retry-After` in ms: seconds, or an HTTP date. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function seconds(ms: number): string {
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(0)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(0)} KiB` : `${n} bytes`;
}
