/**
 * The playground's routes: the page at `/` with its assets (static files built into
 * `dist/playground/` by `npm run build`), and `GET /xql/bars`, the bars of one symbol for the
 * page's chart. Bars are authenticated (and admitted per account) like every `/xql/` route but
 * not metered: drawing the chart of a result is part of looking at a run already paid for, so
 * it reads no more than a run would (decisions §2 "Fair use"): the one series asked for, at
 * most the bars a run fetches for a source. No language logic here either.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { extname, join } from "node:path";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { BarStore } from "../store/store.js";
import { DEFAULT_WARMUP_CEILING, RAW_SERIES, TIMEFRAMES, isTimeframe } from "../types.js";
import { fromStore } from "./errors.js";
import { anchorReach } from "../eval/anchor.js";
import { FAVICON } from "./favicon.js";

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

export interface PlaygroundOptions {
  readonly bars: BarStore;
  /** The service's authentication hook (the one every `/xql/` route runs in onRequest). */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /** Markets queries may name, in their configured spelling. */
  readonly markets: readonly string[];
  /** The most bars one request may ask for: what a run may fetch for a source. Default {@link MAX_CHART_BARS}. */
  readonly maxBars?: number;
  /** Where the built page is (`index.html` and its assets); absent: `/` says how to build it. */
  readonly dir?: string;
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** The page's files, read once: the page is built before the server starts and never changes under it. */
function readPage(dir: string | undefined): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  if (dir === undefined || !existsSync(join(dir, "index.html"))) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type !== undefined) files.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return files;
}

/** Registers `/`, `/playground/:file` and `GET /xql/bars` on the service. */
export function registerPlayground(app: FastifyInstance, options: PlaygroundOptions): void {
  const files = readPage(options.dir);
  const maxBars = options.maxBars ?? MAX_CHART_BARS;
  // The page's HTML names its assets under /playground/ with a content hash, so they can be cached for good.
  // The page holds an API key field: no other site may frame it (clickjacking), in the CSP
  // for browsers that read it and in X-Frame-Options for those that do not.
  const security = {
    "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };

  app.get("/", async (_request, reply) => {
    const page = files.get("index.html");
    if (!page) return reply.code(404).send({ error: "The playground is not built; run `npm run build`" });
    return reply.headers({ ...security, "Cache-Control": "no-cache" }).type(page.type).send(page.body);
  });

  // Every browser asks for it; the page's console shows a 404 otherwise.
  app.get("/favicon.ico", async (_request, reply) =>
    reply.headers({ "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=86400" }).type("image/x-icon").send(FAVICON),
  );

  app.get("/playground/:file", async (request, reply) => {
    const { file } = request.params as { file: string };
    const asset = file !== "index.html" ? files.get(file) : undefined;
    if (!asset) return reply.code(404).send({ error: "Not found" });
    return reply.headers({ ...security, "Cache-Control": "public, max-age=31536000, immutable" }).type(asset.type).send(asset.body);
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
      required: ["time", "open", "high", "low", "close", "volume"],
      properties: Object.fromEntries(["time", ...RAW_SERIES].map((k) => [k, { type: "array", items: { type: ["number", "null"] } }])),
    },
    feed: {
      type: "object",
      description: "Where the bars came from, when `xql data sync` wrote them: the source (a ccxt exchange id, oanda, dukascopy), the price side (bid, ask, mid; trades for an exchange) and the last sync",
      required: ["source", "price", "lastSync"],
      properties: { source: { type: "string" }, price: { type: "string" }, lastSync: { type: "string", format: "date-time" } },
    },
  },
} as const;

/** The playground's paths for `/openapi.json`. */
export const PLAYGROUND_OPENAPI_PATHS = {
  "/": {
    get: {
      operationId: "playground",
      summary: "The playground: an editor with live checks, explanation, a run against this service and charts (HTML)",
      security: [],
      responses: {
        "200": { description: "The page", content: { "text/html": { schema: { type: "string" } } } },
        "404": { description: "The page was not built (`npm run build`)" },
      },
    },
  },
  "/favicon.ico": {
    get: {
      operationId: "favicon",
      summary: "The playground's icon",
      security: [],
      responses: { "200": { description: "A 16×16 icon", content: { "image/x-icon": { schema: { type: "string", format: "binary" } } } } },
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
