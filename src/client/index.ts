/**
 * `xql/client`: a small typed client for the XQL HTTP API. It returns the service's bodies and
 * statuses as they are (a 400 or a 429 is a value, not an exception), exposes the rate-limit
 * headers, and throws {@link XqlClientError} only when no HTTP answer arrived: the service was
 * unreachable, too slow, or answered with something that is not the API's JSON.
 *
 * It imports no server code and no MCP code, so it can be used from any Node 20 program (and
 * from anything else with a WHATWG `fetch` and `node:crypto`: Deno, Bun). `verifyWebhook` checks
 * an alert's webhook on the receiving side with the very code the service signs it with.
 *
 * @module xql/client
 */
import type { HistoryResult, InvalidResult, Plan, RunResult } from "../types.js";
import { VERSION } from "../version.js";

export { DEFAULT_TOLERANCE_SEC, type VerifyOptions, type WebhookHeaders, type WebhookRefusal, WebhookVerificationError, verifyWebhook } from "../alerts/sign.js";

/** The body of every non-400 failure: 401, 413, 429 and 500 all answer `{ error: "..." }`. */
export interface ServiceErrorBody {
  /** What went wrong, e.g. `Missing or invalid API key` or `Daily API rate limit exceeded`. */
  error: string;
}

/** The body of a successful validate. */
export interface ValidBody {
  /** Always `true`: the query is well-formed and plannable. */
  valid: true;
}

/** The body of a successful explain. */
export interface ExplainBody {
  /** The data-requirements manifest: the market and, per timeframe, the series and bars needed. */
  plan: Plan;
  /** The mechanical rendering of the query, e.g. `Matches when rsi(14) < 30.` */
  explanation: string;
}

/** The body of `GET /usage`. */
export interface UsageBody {
  /** The tier of the key's account. */
  tier: "free" | "essential" | "plus";
  /** Runs allowed per UTC day for the tier (free 30, essential 1,500, plus 4,500). */
  limit: number;
  /** Runs counted today (UTC) for the key's account, over all of its keys. */
  used: number;
  /** Runs left today: `limit - used`, never below 0. */
  remaining: number;
  /** ISO 8601 UTC timestamp of the next UTC midnight, e.g. `2026-11-23T00:00:00.000Z`. */
  resetAt: string;
}

/** The body of a webhook delivery and the data of a stream event (decisions §7): what `verifyWebhook` returns. */
export interface AlertDeliveryBody {
  /** The alert that fired. */
  alert: {
    /** Its id (`alrt_…`). */
    id: string;
    /** The name given at creation. */
    name: string;
  };
  /** Its base timeframe. */
  timeframe: string;
  /** The base bar's open time, ms. */
  time: number;
  /** Enters and exits at that bar, by symbol; `columns` as in run, at that bar. */
  events: {
    /** The instrument. */
    symbol: string;
    /** `enter`: it matches at this bar and did not at the previous one; `exit`: the reverse. */
    kind: "enter" | "exit";
    /** The query's columns at this bar (for an exit too: the values it stopped matching with). */
    columns: Record<string, number | null>;
  }[];
  /** The delivery id, the same on every retry: deduplicate on it. */
  delivery: string;
}

/** An alert as listed (`GET /xql/alerts`): never its secret. */
export interface AlertBody {
  /** `alrt_` followed by 16 base62 characters. */
  id: string;
  /** The alert's name: the query's explanation unless one was given. */
  name: string;
  /** The saved query text. */
  query: string;
  /** Where deliveries are POSTed; null: the stream only. */
  webhook: string | null;
  /** ISO 8601 UTC. */
  createdAt: string;
}

/** The body of a created alert (`POST /xql/alerts`, 201). */
export interface AlertCreatedBody extends AlertBody {
  /** Signs the webhook deliveries (`X-XQL-Signature` and `webhook-signature`: check them with {@link verifyWebhook}); shown only in this answer. */
  secret: string;
  /** The baseline: symbols matching at the latest closed base bar, which fire no event. */
  matching: string[];
}

/** One delivery of an alert as `GET /xql/alerts/{id}` lists it. */
export interface AlertDeliverySummary {
  /** The delivery id (`X-XQL-Delivery`, the stream's `id:`). */
  id: string;
  /** Open time of the base bar, UTC ms. */
  time: number;
  /** Enter and exit events in it. */
  events: number;
  /** `stream` for an alert without a webhook. */
  status: "pending" | "delivered" | "failed" | "stream";
  /** POST attempts so far. */
  attempts: number;
  /** When it was made, ISO 8601. */
  createdAt: string;
  /** When the webhook answered 2xx, ISO 8601; null otherwise. */
  deliveredAt: string | null;
  /** When a pending delivery is tried next, ISO 8601; null otherwise. */
  nextAttemptAt: string | null;
  /** What the last failed attempt met (`HTTP 500`, `timeout: …`); null when none failed. */
  lastError: string | null;
}

/** The body of `GET /xql/alerts/{id}`. */
export interface AlertDetailBody extends AlertBody {
  /** Symbols matching at the last evaluated base bar. */
  matching: string[];
  /** Open time of the last evaluated base bar, ISO 8601; null before any. */
  asOf: string | null;
  /** The latest deliveries, newest first. */
  deliveries: AlertDeliverySummary[];
}

/** The body of `GET /xql/alerts`. */
export interface AlertListBody {
  /** The account's alerts, oldest first. */
  alerts: AlertBody[];
}

/** What {@link XqlClient.createAlert} sends. */
export interface NewAlertRequest {
  /** The query text, validated as by validate. */
  query: string;
  /** `https://` URL to POST deliveries to; omitted: the stream only. */
  webhook?: string;
  /** Default: the query's explanation. */
  name?: string;
}

/** The `X-RateLimit-*` headers of a run or usage response. */
export interface RateLimit {
  /** Runs allowed per UTC day for the key's tier. */
  limit: number;
  /** Runs left in the current day, after this call. */
  remaining: number;
  /** Unix epoch seconds of the next UTC midnight, when the quota resets. */
  reset: number;
}

interface ResponseMeta {
  /** The `X-RateLimit-*` headers, when the service sent all three (run and usage do). */
  rateLimit?: RateLimit;
  /** Seconds from the `Retry-After` header (sent with a 429). */
  retryAfter?: number;
}

/** A successful answer: 200 (201 for a created alert, 204 for a deleted one). */
export interface XqlSuccess<T, S extends number = 200> extends ResponseMeta {
  /** Always `true` for a success. */
  ok: true;
  /** 200, or the route's own success status. */
  status: S;
  /** The parsed JSON body (null for a 204). */
  body: T;
}

/**
 * Any other answer: a 400 carries the query error (`{ valid: false, error }`), every other
 * status carries `{ error: "..." }`.
 */
export interface XqlFailure extends ResponseMeta {
  /** Always `false`: any status other than 200. */
  ok: false;
  /** The HTTP status, such as 400, 401, 413, 429 or 500. */
  status: number;
  /**
   * `{ valid: false, error }` for a query error (a 400), `{ error: "..." }` for any other failure. A
   * body that is neither (a proxy's HTML page) is replaced by `{ error }` naming the status and URL.
   */
  body: InvalidResult | ServiceErrorBody;
}

/** What every method resolves to: the HTTP status, the parsed body and the rate-limit headers. */
export type XqlResponse<T, S extends number = 200> = XqlSuccess<T, S> | XqlFailure;

/** What {@link XqlClient.validate} resolves to: `{ valid: true }` on a 200, the query error on a 400. */
export type ValidateResponse = XqlResponse<ValidBody>;
/** What {@link XqlClient.explain} resolves to: `{ plan, explanation }` on a 200, the query error on a 400. */
export type ExplainResponse = XqlResponse<ExplainBody>;
/** What {@link XqlClient.run} resolves to: `{ results }` on a 200; a 429 when the daily quota is used up. */
export type RunResponse = XqlResponse<RunResult>;
/** What {@link XqlClient.history} resolves to: `{ matches, stats, meta }` on a 200; metered like run. */
export type HistoryResponse = XqlResponse<HistoryResult>;
/** What {@link XqlClient.usage} resolves to: the key's quota state on a 200. */
export type UsageResponse = XqlResponse<UsageBody>;
/** What {@link XqlClient.createAlert} resolves to: the alert with its secret on a 201. */
export type CreateAlertResponse = XqlResponse<AlertCreatedBody, 201>;
/** What {@link XqlClient.listAlerts} resolves to. */
export type ListAlertsResponse = XqlResponse<AlertListBody>;
/** What {@link XqlClient.getAlert} resolves to: 404 for an alert the key's account does not hold. */
export type GetAlertResponse = XqlResponse<AlertDetailBody>;
/** What {@link XqlClient.deleteAlert} resolves to: 204 with a null body. */
export type DeleteAlertResponse = XqlResponse<null, 204>;

/** A saved symbol list (`/xql/watchlists`, decisions §13). */
export interface WatchlistBody {
  /** The list's name: 1 to 40 of `a-z 0-9 _ -`. */
  name: string;
  /** Its symbols, in the order saved. */
  symbols: string[];
  /** ISO 8601 time it was last saved. */
  updatedAt: string;
}

/** The body of `GET /xql/watchlists`. */
export interface WatchlistListBody {
  /** The account's lists, by name. */
  watchlists: WatchlistBody[];
}

/** What {@link XqlClient.putWatchlist} resolves to: 201 for a new list, 200 for one replaced. */
export type PutWatchlistResponse = XqlResponse<WatchlistBody, 200 | 201>;
/** What {@link XqlClient.listWatchlists} resolves to. */
export type ListWatchlistsResponse = XqlResponse<WatchlistListBody>;

/** The body of `POST /xql/why` (decisions §11). */
export interface WhyBody {
  /** The symbol asked about. */
  symbol: string;
  /** Open time (ms) of the base bar evaluated. */
  time: number;
  /** Whether the condition holds there. */
  matched: boolean;
  /** The query's columns at that bar. */
  columns: Record<string, number | null>;
  /** The condition part by part: `{ expr, value, time?, children? }`. */
  tree: WhyTreeNode;
}

/** One part of a why tree. */
export interface WhyTreeNode {
  /** The part's canonical text. */
  expr: string;
  /** Its value at the bar; null where undefined. */
  value: number | boolean | null;
  /** The open time of the bar the part read, when not the bar asked. */
  time?: number;
  /** Operands (and/or/not, comparisons) or a let's definition. */
  children?: WhyTreeNode[];
}

/** Options of {@link XqlClient}: where the service is, the key, and how long to wait. */
export interface XqlClientOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8787` or `https://example.com/api`. */
  baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Milliseconds before a request is abandoned with a `timeout` error. Default 30 000. */
  timeoutMs?: number;
  /** The `fetch` to use. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** Per-call options. */
export interface RequestOptions {
  /** Aborts the request; the call then rejects with an `aborted` {@link XqlClientError}. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

/**
 * Why no usable HTTP answer arrived:
 * - `network`: the service could not be reached (refused, DNS, reset);
 * - `timeout`: no answer within the timeout;
 * - `aborted`: the caller's signal aborted the call;
 * - `protocol`: an answer arrived but is not the API's JSON (for example a proxy's HTML page).
 */
export type XqlClientErrorKind = "network" | "timeout" | "aborted" | "protocol";

/** No usable answer from the service. The message names the URL; it never contains the API key. */
export class XqlClientError extends Error {
  /** Always `"XqlClientError"`. */
  override readonly name = "XqlClientError";
  /** Why no usable answer arrived: `network`, `timeout`, `aborted` or `protocol`. */
  readonly kind: XqlClientErrorKind;
  /** The URL that was requested. */
  readonly url: string;
  /** The HTTP status, for `protocol` errors. */
  readonly status: number | undefined;

  constructor(kind: XqlClientErrorKind, url: string, message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.url = url;
    this.status = options?.status;
  }
}

/** True for the 400 body of a query error (`{ valid: false, error: { type, message, position? } }`). */
export function isInvalidResult(body: unknown): body is InvalidResult {
  return (
    typeof body === "object" &&
    body !== null &&
    (body as { valid?: unknown }).valid === false &&
    typeof (body as { error?: unknown }).error === "object"
  );
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * A client for one service and one key.
 *
 * @example
 * ```ts
 * import { XqlClient } from "xql/client";
 *
 * const xql = new XqlClient({ baseUrl: "http://127.0.0.1:8787", apiKey: process.env.XQL_API_KEY! });
 * const res = await xql.run('market = "CRYPTO"\ntimeframe = h1\nrsi(14) < 30');
 * if (res.ok) console.log(res.body.results, res.rateLimit?.remaining);
 * else console.error(res.status, res.body);
 * ```
 */
export class XqlClient {
  /** The base URL, normalized to end with `/`. */
  readonly baseUrl: string;
  /** Milliseconds before a call is abandoned with a `timeout` error, unless the call overrides it. */
  readonly timeoutMs: number;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;

  constructor(options: XqlClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new TypeError(`Invalid XQL base URL '${options.baseUrl}': expected an absolute http(s) URL`);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new TypeError(`Invalid XQL base URL '${options.baseUrl}': expected an http or https URL`);
    }
    if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new TypeError("An XQL API key is required");
    }
    // Checked here so that fetch never echoes a malformed key in a header error.
    if (!/^[\x21-\x7e]+$/.test(options.apiKey.trim())) {
      throw new TypeError("The XQL API key contains characters that cannot be sent in a header");
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new TypeError(`timeoutMs must be a positive number of milliseconds, got ${String(options.timeoutMs)}`);
    }
    base.search = "";
    base.hash = "";
    if (!base.pathname.endsWith("/")) base.pathname += "/";
    this.baseUrl = base.href;
    this.timeoutMs = timeoutMs;
    this.#apiKey = options.apiKey.trim();
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** `POST /xql/validate`: parses and plans the query; touches no data; never metered. */
  validate(query: string, options?: RequestOptions): Promise<ValidateResponse> {
    return this.#request<ValidBody>("POST", "xql/validate", query, options);
  }

  /** `POST /xql/explain`: the data plan and a mechanical rendering of the query; never metered. */
  explain(query: string, options?: RequestOptions): Promise<ExplainResponse> {
    return this.#request<ExplainBody>("POST", "xql/explain", query, options);
  }

  /** `POST /xql/run`: screens the market; metered (a 200 uses one run of the daily quota). */
  run(query: string, options?: RequestOptions): Promise<RunResponse> {
    return this.#request<RunResult>("POST", "xql/run", query, options);
  }

  /**
   * `POST /xql/history?bars=N`: when the screen matched over the last N base bars (default 100,
   * at most 1,000) and the returns that followed; metered like run (one request).
   */
  history(query: string, options?: RequestOptions & { bars?: number }): Promise<HistoryResponse> {
    const path = options?.bars === undefined ? "xql/history" : `xql/history?bars=${encodeURIComponent(String(options.bars))}`;
    return this.#request<HistoryResult>("POST", path, query, options);
  }

  /** `GET /usage`: the key's quota state; never metered. */
  usage(options?: RequestOptions): Promise<UsageResponse> {
    return this.#request<UsageBody>("GET", "usage", undefined, options);
  }

  /**
   * `POST /xql/alerts`: saves a screen as an alert on bar close (never metered). 201 with the
   * alert, its baseline `matching` and its `secret` (shown only here); 400 for an invalid query
   * or a refused webhook; 403 beyond the tier's alerts.
   */
  createAlert(alert: NewAlertRequest, options?: RequestOptions): Promise<CreateAlertResponse> {
    return this.#request<AlertCreatedBody, 201>("POST", "xql/alerts", { json: alert }, options);
  }

  /** `GET /xql/alerts`: the account's alerts, oldest first, without secrets. */
  listAlerts(options?: RequestOptions): Promise<ListAlertsResponse> {
    return this.#request<AlertListBody>("GET", "xql/alerts", undefined, options);
  }

  /** `GET /xql/alerts/{id}`: one alert with its matching symbols and latest deliveries. */
  getAlert(id: string, options?: RequestOptions): Promise<GetAlertResponse> {
    return this.#request<AlertDetailBody>("GET", `xql/alerts/${encodeURIComponent(id)}`, undefined, options);
  }

  /** `DELETE /xql/alerts/{id}`: removes the alert (204); 404 when the account holds no such alert. */
  deleteAlert(id: string, options?: RequestOptions): Promise<DeleteAlertResponse> {
    return this.#request<null, 204>("DELETE", `xql/alerts/${encodeURIComponent(id)}`, undefined, options);
  }

  /**
   * `PUT /xql/watchlists/{name}`: saves the account's list of that name (1 to 1,000 distinct
   * symbols; at most 50 lists), for queries that say `watchlist = "name"`; never metered.
   */
  putWatchlist(name: string, symbols: readonly string[], options?: RequestOptions): Promise<PutWatchlistResponse> {
    return this.#request<WatchlistBody, 200 | 201>("PUT", `xql/watchlists/${encodeURIComponent(name)}`, { json: { symbols } }, options);
  }

  /** `GET /xql/watchlists`: the account's lists, by name; never metered. */
  listWatchlists(options?: RequestOptions): Promise<ListWatchlistsResponse> {
    return this.#request<WatchlistListBody>("GET", "xql/watchlists", undefined, options);
  }

  /** `DELETE /xql/watchlists/{name}`: removes the list (204); 404 when the account has none of that name. */
  deleteWatchlist(name: string, options?: RequestOptions): Promise<XqlResponse<null, 204>> {
    return this.#request<null, 204>("DELETE", `xql/watchlists/${encodeURIComponent(name)}`, undefined, options);
  }

  /**
   * `POST /xql/why`: why `symbol` matches the screen at a bar (default the latest), or not — the
   * condition part by part with its values there; metered as one run. 404 for a symbol without bars.
   */
  why(query: string, symbol: string, options?: RequestOptions & { time?: number | string }): Promise<XqlResponse<WhyBody>> {
    return this.#request<WhyBody>("POST", "xql/why", { json: { query, symbol, ...(options?.time === undefined ? {} : { time: options.time }) } }, options);
  }

  async #request<T, S extends number = 200>(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body: string | { json: unknown } | undefined,
    options: RequestOptions | undefined,
  ): Promise<XqlResponse<T, S>> {
    const url = new URL(path, this.baseUrl).href;
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: "application/json",
      "user-agent": `xql-client/${VERSION}`,
    };
    let payload: string | undefined;
    if (typeof body === "string") {
      headers["content-type"] = "text/plain; charset=utf-8";
      payload = body;
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body.json);
    }

    let response: Response;
    let text: string;
    try {
      response = await this.#fetch(url, { method, headers, body: payload, signal });
      text = await response.text();
    } catch (error) {
      throw this.#transportError(error, url, method, timeoutMs, options?.signal);
    }

    const meta = readMeta(response.headers);
    if (response.status === 204) return { ok: true, status: 204 as S, body: null as T, ...meta };
    const parsed = parseJson(text);
    if (response.status === 200 || response.status === 201) {
      if (parsed === undefined || typeof parsed !== "object" || parsed === null) {
        throw new XqlClientError(
          "protocol",
          url,
          `${method} ${url} answered ${response.status} with a body that is not JSON: ${snippet(text)}`,
          { status: response.status },
        );
      }
      return { ok: true, status: response.status as S, body: parsed as T, ...meta };
    }
    const failure: InvalidResult | ServiceErrorBody =
      isInvalidResult(parsed) || isServiceError(parsed)
        ? parsed
        : {
            error: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""} from ${url}${
              text.trim() === "" ? "" : `: ${snippet(text)}`
            }`,
          };
    return { ok: false, status: response.status, body: failure, ...meta };
  }

  #transportError(
    error: unknown,
    url: string,
    method: string,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
  ): XqlClientError {
    if (callerSignal?.aborted) {
      return new XqlClientError("aborted", url, `${method} ${url} was aborted`, { cause: error });
    }
    const name = error instanceof Error ? error.name : "";
    if (name === "TimeoutError" || name === "AbortError") {
      return new XqlClientError(
        "timeout",
        url,
        `The XQL service at ${url} did not answer within ${timeoutMs} ms`,
        { cause: error },
      );
    }
    return new XqlClientError(
      "network",
      url,
      `Could not reach the XQL service at ${url}: ${describeNetworkError(error)}`,
      { cause: error },
    );
  }
}

function isServiceError(body: unknown): body is ServiceErrorBody {
  return typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function headerNumber(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === "") return undefined;
  const value = Number(raw);
  return Number.isFinite(value) ? value : undefined;
}

function readMeta(headers: Headers): ResponseMeta {
  const meta: ResponseMeta = {};
  const limit = headerNumber(headers, "x-ratelimit-limit");
  const remaining = headerNumber(headers, "x-ratelimit-remaining");
  const reset = headerNumber(headers, "x-ratelimit-reset");
  if (limit !== undefined && remaining !== undefined && reset !== undefined) {
    meta.rateLimit = { limit, remaining, reset };
  }
  const retryAfter = headerNumber(headers, "retry-after");
  if (retryAfter !== undefined) meta.retryAfter = retryAfter;
  return meta;
}

/** Undici hides the useful part (`connect ECONNREFUSED 127.0.0.1:8787`) in the cause. */
function describeNetworkError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    const text = typeof code === "string" && !current.message.includes(code) ? `${current.message} (${code})` : current.message;
    if (text && !parts.includes(text)) parts.push(text);
    current = (current as { cause?: unknown }).cause;
  }
  // "fetch failed" says nothing once the cause is known.
  const useful = parts.filter((p) => p !== "fetch failed");
  return (useful.length > 0 ? useful : parts.length > 0 ? parts : [String(error)]).join(": ");
}
