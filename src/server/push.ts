/**
 * `POST /xql/bars`: bars pushed by a user's own feed (decisions §6). Only a key with the
 * `write` scope may push (a run key hears 403 before its body is read); the body is CSV in any
 * import format or NDJSON, up to 16 MiB, checked whole by `ingest/push.ts` before one
 * transaction writes it. Writes are not runs: nothing is metered.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { CsvImportError } from "../ingest/csv.js";
import { type PushFormat, parsePush } from "../ingest/push.js";
import type { BarStore } from "../store/store.js";
import { SeriesLimitError } from "../store/series-owners.js";
import type { Tier } from "../accounts/accounts.js";
import type { Admission } from "./admission.js";
import type { Clock } from "../clock.js";
import type { Authenticator } from "./auth.js";
import { BUSY_RETRY_AFTER_S, STORE_BUSY, describeError, fromStore, sendStoreFailure } from "./errors.js";

/** 16 MiB: the largest push accepted. */
export const PUSH_BODY_LIMIT = 16 * 1024 * 1024;

export const CANNOT_WRITE = { error: "This key cannot write bars" } as const;

/** New series one push may create (decisions §14); beyond, 400 naming the count, nothing written. */
export const SERIES_PER_PUSH = 10_000;

/** Series an account may hold (created by its pushes, still stored) per tier (decisions §14). */
export const SERIES_PER_TIER: Readonly<Record<Tier, number>> = { free: 1_000, essential: 20_000, plus: 100_000 };

export const SERIES_LIMIT = { error: "Series limit reached for this tier" } as const;

const UNSUPPORTED = {
  error: "Send bars as text/csv (with ?market=&timeframe=, and ?symbol= for formats without a symbol column) or application/x-ndjson",
} as const;

/** Content types read as NDJSON: the registered one and the spellings feeds use for it. */
const NDJSON_TYPES = ["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/jsonlines"];

/** The body kind a Content-Type names, or undefined for one a push cannot have. */
export function pushFormatOf(contentType: string | undefined): PushFormat | undefined {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "text/csv") return "csv";
  if (NDJSON_TYPES.includes(type)) return "ndjson";
  return undefined;
}

export interface PushContext {
  bars: BarStore;
  auth: Authenticator;
  clock: Clock;
  /** The per-account admission: a push reads its body in slices that take the account's turns. */
  admission: Admission;
  /** The service's markets: rows of any other are refused. */
  markets: readonly string[];
  bodyLimit?: number;
  /** Told the bars each committed push wrote (`/metrics`). */
  onWritten?: (bars: number) => void;
}

export function registerPush(app: FastifyInstance, ctx: PushContext): void {
  const { auth } = ctx;
  // One push writes at a time in this process: writes serialize on the store's locks anyway,
  // and a burst of pushes must not take every pooled connection from the runs (PostgreSQL).
  let writing: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(write: () => Promise<T>): Promise<T> => {
    const turn = writing.then(write, write);
    writing = turn.catch(() => undefined);
    return turn;
  };

  // With the key, before the body: a run key is refused without uploading 16 MiB.
  async function writeScope(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = auth.maybeCallerOf(request);
    if (!caller) return; // refused by authenticate
    if (caller.scope !== "write") await reply.code(403).send(CANNOT_WRITE);
  }

  app.post("/xql/bars", { onRequest: [auth.authenticate, writeScope], bodyLimit: ctx.bodyLimit ?? PUSH_BODY_LIMIT }, async (request, reply) => {
    const caller = auth.callerOf(request);
    const format = pushFormatOf(request.headers["content-type"]);
    if (format === undefined) return reply.code(415).send(UNSUPPORTED);
    const body = typeof request.body === "string" ? request.body : "";
    const query = request.query as Record<string, unknown>;
    const text = (name: string): string | undefined => (typeof query[name] === "string" ? (query[name] as string) : undefined);
    const now = ctx.clock.now();
    let parsed;
    try {
      parsed = await parsePush(
        format,
        body,
        { market: text("market"), timeframe: text("timeframe"), symbol: text("symbol"), format: text("format"), tz: text("tz"), columns: text("columns"), timeFormat: text("timeFormat") },
        now,
        {
          markets: ctx.markets,
          perPush: SERIES_PER_PUSH,
          stored: async (market) => new Set((await fromStore(() => ctx.bars.series(market))).map((s) => `${s.timeframe}\u0000${s.symbol}`)),
          turn: () => ctx.admission.turns.turn(caller.accountId),
        },
      );
    } catch (error) {
      if (!(error instanceof CsvImportError)) throw error;
      return reply.code(400).send({ error: `${error.message}; nothing was written`, line: error.line });
    }
    reply.header("X-XQL-Open-Bars", String(parsed.open));
    if (parsed.batches.length === 0) return reply.code(200).send({ written: 0, replaced: 0, symbols: 0 });
    let result;
    try {
      const claim = { account: caller.accountId, now, perPush: SERIES_PER_PUSH, perAccount: SERIES_PER_TIER[caller.tier] };
      // In slices that take this account's turns, so other accounts' requests go on meanwhile.
      const turn = () => ctx.admission.turns.turn(caller.accountId);
      result = await fromStore(() => oneAtATime(() => ctx.bars.upsertBars(parsed.batches, undefined, { claim, turn })));
    } catch (error) {
      const limit = (error as { cause?: unknown }).cause;
      if (limit instanceof SeriesLimitError) {
        if (limit.kind === "account") return reply.code(403).send(SERIES_LIMIT);
        return reply.code(400).send({ error: `${limit.message}; nothing was written`, line: 0 });
      }
      request.log.error({ err: describeError(error), account: caller.accountId }, "bar push failed");
      // Another writer (an import) held the store's lock longer than a write waits: busy, not down.
      if (lockHeld(error)) return reply.code(503).header("Retry-After", String(BUSY_RETRY_AFTER_S)).send(STORE_BUSY);
      return sendStoreFailure(reply, error);
    }
    ctx.onWritten?.(result.written);
    request.log.info({ account: caller.accountId, written: result.written, replaced: result.replaced, open: parsed.open }, "bars");
    return reply.code(200).send({ written: result.written, replaced: result.replaced, symbols: result.symbols });
  });
}

/** SQLite's "another connection holds the lock" (SQLITE_BUSY, SQLITE_LOCKED), under the store wrapper's cause. */
function lockHeld(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

const errorWithLine = {
  type: "object",
  required: ["error", "line"],
  properties: {
    error: { type: "string", description: "What is wrong, naming the line and field, ending '; nothing was written'" },
    line: { type: "integer", minimum: 0, description: "The 1-based line of the body at fault; 0 when the request as a whole is (a missing ?market=, an empty body)" },
  },
  additionalProperties: false,
} as const;

const fixedError = { type: "object", required: ["error"], properties: { error: { type: "string" } }, additionalProperties: false } as const;

/** The route in `/openapi.json`. */
export const PUSH_OPENAPI_PATHS = {
  "/xql/bars": {
    post: {
      operationId: "pushBars",
      summary: "Write bars from your own feed (a key with the write scope; never metered, admitted like every authenticated route)",
      description:
        "The whole body is checked before anything is written, by the rules of `xql data import` (finite numbers, high ≥ max(open, close), low ≤ min(open, close), volume ≥ 0, prices within 1e-12..1e12, times on the timeframe's boundaries, at most 2 days ahead, no bar twice); the first bad row is a 400 naming its line and field, and nothing is written. Bars whose period has not ended (open time + duration after the server's clock) are left out and counted in X-XQL-Open-Bars. Overlapping bars replace stored ones; coarser timeframes are derived; one transaction.",
      parameters: [
        { name: "market", in: "query", required: false, description: "CSV: the market of every row (required for CSV)", schema: { type: "string" }, example: "CRYPTO" },
        { name: "timeframe", in: "query", required: false, description: "CSV: the timeframe of every row (required for CSV)", schema: { type: "string" }, example: "m1" },
        { name: "symbol", in: "query", required: false, description: "CSV: the symbol of every row, for formats without a symbol column (Binance, MetaTrader, HistData)", schema: { type: "string" } },
        { name: "format", in: "query", required: false, description: "CSV: force a format (xql, binance, metatrader, histdata, generic) instead of detecting it", schema: { type: "string" } },
        { name: "tz", in: "query", required: false, description: "CSV: the time zone of MetaTrader, HistData and generic times", schema: { type: "string" } },
        { name: "columns", in: "query", required: false, description: "CSV: the generic format's columns, e.g. time,open,high,low,close,volume", schema: { type: "string" } },
        { name: "timeFormat", in: "query", required: false, description: "CSV: the generic format's times: iso, s, ms or us", schema: { type: "string" } },
      ],
      requestBody: {
        required: true,
        description: "At most 16 MiB.",
        content: {
          "text/csv": {
            schema: { type: "string" },
            example: "symbol,time,open,high,low,close,volume\nBTCUSDT,2026-11-20T13:00:00Z,97000,97150.5,96980,97100,12.5\n",
          },
          "application/x-ndjson": {
            schema: { type: "string" },
            example:
              '{"market":"CRYPTO","timeframe":"m1","symbol":"BTCUSDT","time":1795611600000,"open":97000,"high":97150.5,"low":96980,"close":97100,"volume":12.5}\n',
          },
        },
      },
      responses: {
        "200": {
          description: "Written",
          headers: { "X-XQL-Open-Bars": { description: "Bars of the body left out because their period has not ended", schema: { type: "integer" } } },
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["written", "replaced", "symbols"],
                properties: {
                  written: { type: "integer", minimum: 0, description: "Bars written" },
                  replaced: { type: "integer", minimum: 0, description: "Of those, bars that replaced a stored bar of the same time" },
                  symbols: { type: "integer", minimum: 0, description: "Distinct (market, symbol) pairs written" },
                },
                additionalProperties: false,
              },
            },
          },
        },
        "400": {
          description: "A bad row, a row of a market the service does not have, a missing parameter, or more than 10,000 new series in one push; nothing was written",
          content: { "application/json": { schema: errorWithLine } },
        },
        "401": { $ref: "#/components/responses/Unauthorized" },
        "403": {
          description: "The key has the run scope (before the body is read), or the push would take the account past its tier's series (free 1,000, essential 20,000, plus 100,000); nothing was written",
          content: { "application/json": { schema: fixedError, examples: { scope: { value: CANNOT_WRITE }, series: { value: SERIES_LIMIT } } } },
        },
        "408": { description: "The request took longer than the server's timeout to arrive", content: { "application/json": { schema: fixedError } } },
        "413": { $ref: "#/components/responses/TooLarge" },
        "429": { $ref: "#/components/responses/TooManyRequests" },
        "415": { description: "Neither text/csv nor application/x-ndjson", content: { "application/json": { schema: fixedError, example: UNSUPPORTED } } },
        "500": { description: "The data store failed; nothing was written", content: { "application/json": { schema: fixedError } } },
        "503": {
          description: "The data store is busy with another writer for longer than a push waits; nothing was written",
          headers: { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } } },
          content: { "application/json": { schema: fixedError } },
        },
      },
    },
  },
} as const;
