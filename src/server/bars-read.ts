/**
 * `GET /xql/symbols`: a market's symbols, for the editor's completion inside `symbols = [...]`.
 * `GET /xql/bars`: the latest bars of one series, for the playground's chart. Authenticated
 * (and admitted per account) like every `/xql/` route but not metered: drawing the chart of a
 * result is part of looking at a run already paid for, so it reads no more than a run would
 * (decisions §2 "Fair use"): the one series asked for, at most the bars a run fetches for a
 * source. Bars are written by `POST /xql/bars` (`push.ts`).
 */
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { BarStore } from "../store/store.js";
import { BAR_COLUMNS, DEFAULT_WARMUP_CEILING, RAW_SERIES, TIMEFRAMES, isTimeframe } from "../types.js";
import { anchorReach } from "../eval/anchor.js";
import { fromStore } from "./errors.js";
import type { ServicePart } from "./service.js";

/**
 * Bars one `GET /xql/bars` may ask for by default: what a run reads for a source at most, its
 * anchors' reach (decisions §9) over the warm-up ceiling — (1.5 + 1) × 5,000 + 3 on FOREX.
 */
export const MAX_CHART_BARS = chartBarsBound(DEFAULT_WARMUP_CEILING);

/** What a run reads for one source of fetch `ceiling` at most: its anchors' reach on FOREX, the farther (anchor.ts). */
export function chartBarsBound(ceiling: number): number {
  return anchorReach("FOREX", "h1", "h1", ceiling);
}
/** Bars when `bars` is not given: the service's default warm-up, what a run fetches. */
export const DEFAULT_CHART_BARS = 300;

interface BarsReadOptions {
  readonly bars: BarStore;
  /** The service's authentication hook (the one every `/xql/` route runs in onRequest). */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Markets queries may name, in their configured spelling. */
  readonly markets: readonly string[];
  /** The most bars one request may ask for: what a run may fetch for a source. */
  readonly maxBars: number;
}

function registerBarsRead(app: FastifyInstance, options: BarsReadOptions): void {
  const { maxBars } = options;
  // A market's symbols, as a screen of it considers them (every symbol holding bars): the
  // editor completes them inside `symbols = [...]`. Asked again at each such completion, so the
  // answer carries an ETag of its content and a browser revalidates it (304 when unchanged).
  app.get("/xql/symbols", { onRequest: options.authenticate }, async (request, reply) => {
    const marketParam = (request.query as Record<string, unknown>).market;
    if (typeof marketParam !== "string") return reply.code(400).send({ error: "market is required, e.g. ?market=FOREX" });
    const market = options.markets.find((m) => m.toLowerCase() === marketParam.toLowerCase());
    if (market === undefined) return reply.code(400).send({ error: `Unknown market '${marketParam}'; known: ${options.markets.join(", ")}` });
    const symbols = await fromStore(() => options.bars.symbols(market));
    const body = JSON.stringify({ market, symbols });
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
    reply.headers({ ETag: etag, "Cache-Control": "private, no-cache" });
    if (request.headers["if-none-match"]?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) return reply.code(304).send();
    return reply.type("application/json; charset=utf-8").send(body);
  });

  app.get("/xql/bars", { onRequest: options.authenticate }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const text = (name: string): string | undefined => (typeof query[name] === "string" ? (query[name] as string) : undefined);
    const marketParam = text("market");
    const symbol = text("symbol");
    const timeframe = text("timeframe");
    const barsParam = text("bars");
    if (marketParam === undefined || symbol === undefined || timeframe === undefined) {
      return reply.code(400).send({ error: "market, symbol and timeframe are required, e.g. ?market=FOREX&symbol=EURUSD&timeframe=h1" });
    }
    const market = options.markets.find((m) => m.toLowerCase() === marketParam.toLowerCase());
    if (market === undefined) return reply.code(400).send({ error: `Unknown market '${marketParam}'; known: ${options.markets.join(", ")}` });
    if (!isTimeframe(timeframe)) return reply.code(400).send({ error: `Unknown timeframe '${timeframe}'; use one of ${TIMEFRAMES.join(" ")}` });
    const count = barsParam === undefined ? Math.min(DEFAULT_CHART_BARS, maxBars) : /^\d+$/.test(barsParam) ? Number(barsParam) : NaN;
    if (!Number.isInteger(count) || count < 1 || count > maxBars) {
      return reply.code(400).send({ error: `bars must be an integer from 1 to ${maxBars}` });
    }
    // The one series asked for: never the whole market to answer one symbol.
    const read = await fromStore(() => options.bars.latestBars({ market, timeframe, baseTimeframe: timeframe, series: RAW_SERIES, count, symbols: [symbol] }));
    const found = read.find((s) => s.symbol === symbol);
    if (!found) return reply.code(404).send({ error: `No ${timeframe} bars for '${symbol}' in ${market}` });
    const b = found.bars;
    const columns = {
      time: Array.from(b.time),
      open: Array.from(b.open),
      high: Array.from(b.high),
      low: Array.from(b.low),
      close: Array.from(b.close),
      volume: Array.from(b.volume),
    };
    // Where the bars came from, when a sync wrote them: the series' own record, or (a derived
    // timeframe) the record of the timeframe it is derived from.
    const records = ((await fromStore(() => options.bars.feeds(market))) ?? []).filter((f) => f.symbol === symbol);
    const record = records.find((f) => f.timeframe === timeframe) ?? records[0];
    const feed = record && { source: record.source, price: record.price, lastSync: new Date(record.syncedAt).toISOString() };
    return reply.send({ market, symbol, timeframe, bars: columns, ...(feed ? { feed } : {}) });
  });
}

const ERROR_SCHEMA = { type: "object", required: ["error"], properties: { error: { type: "string" } }, additionalProperties: false } as const;

const barsSchema = {
  type: "object",
  required: ["market", "symbol", "timeframe", "bars"],
  properties: {
    market: { type: "string" },
    symbol: { type: "string" },
    timeframe: { type: "string", enum: [...TIMEFRAMES] },
    bars: {
      type: "object",
      description: "Columns, oldest bar first; time is the bar's UTC open time in ms",
      required: [...BAR_COLUMNS],
      properties: Object.fromEntries(BAR_COLUMNS.map((k) => [k, { type: "array", items: { type: ["number", "null"] } }])),
    },
    feed: {
      type: "object",
      description: "Where the bars came from, when `xql data sync` wrote them: the source (a ccxt exchange id, oanda, dukascopy), the price side (bid, ask, mid; trades for an exchange) and the last sync",
      required: ["source", "price", "lastSync"],
      properties: { source: { type: "string" }, price: { type: "string" }, lastSync: { type: "string", format: "date-time" } },
    },
  },
} as const;

/** `GET /xql/symbols` and `GET /xql/bars` for `/openapi.json` (`POST /xql/bars`, in `push.ts`, merges beside it). */
export const BARS_READ_OPENAPI_PATHS = {
  "/xql/symbols": {
    get: {
      operationId: "symbols",
      summary:
        "A market's symbols (every symbol holding bars, sorted): what a screen of that market considers, for completing `symbols = [...]`; authenticated and admitted like every route, never metered; an ETag of the answer lets a client revalidate it (304)",
      parameters: [
        { name: "market", in: "query", required: true, description: "One of the configured markets, case-insensitive", schema: { type: "string" }, example: "FOREX" },
        { name: "If-None-Match", in: "header", required: false, description: "The ETag of an earlier answer: 304 while the symbols are the same", schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description: "The market (in its configured spelling) and its symbols",
          headers: { ETag: { description: "The answer's content tag", schema: { type: "string" } } },
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["market", "symbols"],
                properties: { market: { type: "string" }, symbols: { type: "array", items: { type: "string" } } },
                additionalProperties: false,
              },
            },
          },
        },
        "304": { description: "Unchanged since the answer of that ETag" },
        "400": { description: "A missing or unknown market", content: { "application/json": { schema: ERROR_SCHEMA } } },
        "401": { $ref: "#/components/responses/Unauthorized" },
        "429": { $ref: "#/components/responses/TooManyRequests" },
        "500": { description: "The data store failed", content: { "application/json": { schema: ERROR_SCHEMA } } },
      },
    },
  },
  "/xql/bars": {
    get: {
      operationId: "bars",
      summary: "The latest bars of one symbol at one timeframe, for charts; authenticated and admitted like every route, never metered; reads that one series, at most what a run fetches for a source",
      parameters: [
        { name: "market", in: "query", required: true, schema: { type: "string" }, example: "FOREX" },
        { name: "symbol", in: "query", required: true, schema: { type: "string" }, example: "EURUSD" },
        { name: "timeframe", in: "query", required: true, schema: { type: "string", enum: [...TIMEFRAMES] }, example: "h1" },
        {
          name: "bars",
          in: "query",
          required: false,
          description: `How many of the latest bars (default ${DEFAULT_CHART_BARS}, at most ${MAX_CHART_BARS} with the default warm-up ceiling: what a run fetches for a source at most)`,
          schema: { type: "integer", minimum: 1, maximum: MAX_CHART_BARS },
        },
      ],
      responses: {
        "200": { description: "The bars", content: { "application/json": { schema: barsSchema } } },
        "400": { description: "A missing or bad parameter", content: { "application/json": { schema: ERROR_SCHEMA } } },
        "401": { $ref: "#/components/responses/Unauthorized" },
        "404": { description: "No bars for that symbol", content: { "application/json": { schema: ERROR_SCHEMA } } },
        "429": { $ref: "#/components/responses/TooManyRequests" },
        "500": { description: "The data store failed", content: { "application/json": { schema: ERROR_SCHEMA } } },
      },
    },
  },
} as const;

/** `GET /xql/symbols` and `GET /xql/bars`, over the bar store, the bars bounded by what a run may read for a source. */
export const barsReadPart: ServicePart = (app, { bars, auth, limits }) =>
  registerBarsRead(app, {
    bars,
    authenticate: auth.authenticate,
    markets: limits.markets,
    // What a run may read for one source: its anchors' reach (decisions §9) over its fetch,
    // max(minLookback, warm-up), each under its ceiling.
    maxBars: chartBarsBound(Math.max(limits.lookbackCeiling, limits.warmupCeiling)),
  });
