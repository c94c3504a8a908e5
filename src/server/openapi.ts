/** The OpenAPI 3.1 description served at `/openapi.json`. */
import { VERSION } from "../version.js";
import type { ServicePart } from "./service.js";
import { BARS_READ_OPENAPI_PATHS } from "./bars-read.js";
import { RAW_SERIES, TIMEFRAMES } from "../types.js";
import { PLAYGROUND_OPENAPI_PATHS } from "./playground.js";
import { PUSH_OPENAPI_PATHS } from "./push.js";
import { ALERTS_OPENAPI_SCHEMAS, alertsOpenApiPaths } from "./alerts-openapi.js";
import { WATCHLISTS_OPENAPI_SCHEMAS, WHY_OPENAPI_SCHEMAS, watchlistsOpenApiPaths, whyOpenApiPaths } from "./watchlists-openapi.js";

type Paths = Record<string, Record<string, unknown>>;

/** The paths of several route modules as one object: a path served by two modules (GET and POST /xql/bars) keeps both methods. */
function mergePaths(...parts: Paths[]): Paths {
  const merged: Paths = {};
  for (const part of parts) for (const [path, methods] of Object.entries(part)) merged[path] = { ...merged[path], ...methods };
  return merged;
}

const errorBody = {
  type: "object",
  required: ["error"],
  properties: { error: { type: "string" } },
  additionalProperties: false,
} as const;

const position = {
  type: "object",
  required: ["line", "column", "offset"],
  properties: {
    line: { type: "integer", minimum: 1, description: "1-based line" },
    column: { type: "integer", minimum: 1, description: "1-based column" },
    offset: { type: "integer", minimum: 0, description: "0-based UTF-16 offset into the query" },
  },
  additionalProperties: false,
} as const;

const rateLimitHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/RateLimitLimit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/RateLimitRemaining" },
  "X-RateLimit-Reset": { $ref: "#/components/headers/RateLimitReset" },
} as const;

const queryBody = {
  required: true,
  description:
    'The XQL query as raw text (any Content-Type but application/json; read as UTF-8), or with Content-Type application/json the object {"query": "<text>"} (anything else is a 400 saying so). At most the body limit, 64 KiB by default. Queries above the cost guard (4,000 tokens, 50 columns, a static cost budget) are refused with a 400.',
  content: {
    "text/plain": {
      schema: { type: "string" },
      example: 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nrsi(14) < 30',
    },
    "application/json": {
      schema: { type: "object", required: ["query"], properties: { query: { type: "string" } }, additionalProperties: false },
      example: { query: 'market = "CRYPTO"\ntimeframe = h1\nrsi(14) < 30' },
    },
  },
} as const;

const historyBody = {
  ...queryBody,
  description: `${queryBody.description} With application/json the window may come in the body: {"query": "<text>", "bars": N}.`,
  content: {
    ...queryBody.content,
    "application/json": {
      schema: {
        type: "object",
        required: ["query"],
        properties: { query: { type: "string" }, bars: { type: "integer", minimum: 1, maximum: 1000 } },
        additionalProperties: false,
      },
      example: { query: 'market = "CRYPTO"\ntimeframe = h1\nrsi(14) < 30', bars: 200 },
    },
  },
} as const;

const keyStoreFailed = {
  description: "The key store failed while checking the API key",
  content: { "application/json": { schema: errorBody, example: { error: "Data store unavailable" } } },
} as const;

const timedOut = {
  description: "The request (headers or body) took longer than the server's timeout to arrive",
  content: { "application/json": { schema: errorBody } },
} as const;

const invalid = { description: "Syntax or plan error", content: { "application/json": { schema: { $ref: "#/components/schemas/Invalid" } } } };
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
/** Every authenticated route: the account's admission (decisions §2 "Fair use"). */
export const TOO_MANY_REQUESTS_RESPONSE = { $ref: "#/components/responses/TooManyRequests" } as const;
const tooLarge = { $ref: "#/components/responses/TooLarge" };

/** The 429, 500 and 503 answers of the metered routes (run and history). */
const meteredFailures = {
  "429": {
    description:
      "Daily quota exhausted until the next UTC midnight ({\"error\": \"Daily API rate limit exceeded\"}), or too many requests of the account in work and waiting ({\"error\": \"Too many concurrent requests for this account\"}, Retry-After 1, no quota taken)",
    headers: {
      ...rateLimitHeaders,
      "Retry-After": { description: "Seconds until the quota resets", schema: { type: "integer" } },
    },
    content: { "application/json": { schema: errorBody, example: { error: "Daily API rate limit exceeded" } } },
  },
  "500": {
    description: "The data store failed",
    headers: rateLimitHeaders,
    content: { "application/json": { schema: errorBody, example: { error: "Data store unavailable" } } },
  },
  "503": {
    description: "The data store is busy with another writer (an import) for longer than a run waits; nothing is consumed",
    headers: { ...rateLimitHeaders, "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } } },
    content: { "application/json": { schema: errorBody, example: { error: "Data store busy, retry shortly" } } },
  },
} as const;

/** Builds the document (servers left to the caller: the service answers on any host). */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "XQL screening service",
      version: VERSION,
      description:
        "Screens financial instruments with XQL queries. validate, explain and usage are free; run and history are metered against a daily quota per account (UTC days). Alerts watch a screen and report, as each base bar closes, which symbols started and stopped matching, by signed webhook and a stream; they are never metered.",
    },
    security: [{ bearer: [] }],
    paths: mergePaths(PLAYGROUND_OPENAPI_PATHS, BARS_READ_OPENAPI_PATHS, PUSH_OPENAPI_PATHS, {
      "/xql/validate": {
        post: {
          operationId: "validate",
          summary: "Check that a query is well-formed and plannable; touches no data",
          requestBody: queryBody,
          responses: {
            "200": { description: "Valid", content: { "application/json": { schema: { $ref: "#/components/schemas/Valid" } } } },
            "400": invalid,
            "401": unauthorized,
            "408": timedOut,
            "413": tooLarge,
            "429": TOO_MANY_REQUESTS_RESPONSE,
            "500": keyStoreFailed,
          },
        },
      },
      "/xql/explain": {
        post: {
          operationId: "explain",
          summary: "Return the data requirements (plan) and a mechanical explanation",
          requestBody: queryBody,
          responses: {
            "200": { description: "Plan and explanation", content: { "application/json": { schema: { $ref: "#/components/schemas/Explain" } } } },
            "400": invalid,
            "401": unauthorized,
            "408": timedOut,
            "413": tooLarge,
            "429": TOO_MANY_REQUESTS_RESPONSE,
            "500": keyStoreFailed,
          },
        },
      },
      "/xql/run": {
        post: {
          operationId: "run",
          summary: "Fetch the data a query needs and return the matching instruments (metered)",
          description:
            "The quota is read first (exhausted: 429 before the body is read); a 400 never holds a reservation; the reservation is atomic; a 500 or 503 gives it back; only a 200 consumes quota. An answer whose JSON would exceed 16 MiB is a 400 plan error (`Response too large: …`), given back. Like every authenticated route, one account has at most 4 requests in work and 100 waiting, and is refused beyond that with a 429 that costs no quota.",
          requestBody: queryBody,
          responses: {
            "200": {
              description: "Matches (an empty array is not an error)",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/Run" } } },
            },
            "400": { ...invalid, headers: rateLimitHeaders },
            "401": unauthorized,
            "408": timedOut,
            "413": tooLarge,
            ...meteredFailures,
          },
        },
      },
      "/xql/history": {
        post: {
          operationId: "history",
          summary: "When did a screen match over the last N base bars, and what followed (metered like run)",
          description:
            "The screen evaluated at each of the last N distinct base bar times as if that bar were the latest: the values at a bar t equal a run on the store cut after t, each bar evaluated from its anchor (decisions §9), whatever the window. The window is `?bars=N` or `\"bars\"` in a JSON body (both: they must agree). Priced by the work of its passes (one per anchor; a window of up to 100 bars as the query's run) against the cost budget (above it: a 400 plan error naming the price and the largest window that fits, before any reservation); an answer whose JSON would exceed 16 MiB is a 400 plan error counted while the matches are built, never built whole, and given back. One request counts once against the quota; only a 200 consumes it.",
          parameters: [
            {
              name: "bars",
              in: "query",
              required: false,
              description: "How many of the latest base bars to evaluate at (or `\"bars\"` in a JSON body)",
              schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
            },
          ],
          requestBody: historyBody,
          responses: {
            "200": {
              description: "Matches by bar, with forward-return statistics",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/History" } } },
            },
            "400": {
              description: "Syntax or plan error in the query (a window priced above the budget, an answer over 16 MiB), or a `bars` parameter or field out of range, or the two differing",
              headers: rateLimitHeaders,
              content: {
                "application/json": { schema: { oneOf: [{ $ref: "#/components/schemas/Invalid" }, errorBody] } },
              },
            },
            "401": unauthorized,
            "408": timedOut,
            "413": tooLarge,
            ...meteredFailures,
          },
        },
      },
      ...alertsOpenApiPaths(errorBody),
      ...watchlistsOpenApiPaths(errorBody),
      ...whyOpenApiPaths(errorBody),
      "/usage": {
        get: {
          operationId: "usage",
          summary: "The caller's quota for the current UTC day; never metered",
          responses: {
            "200": {
              description: "Usage",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/Usage" } } },
            },
            "401": unauthorized,
            "429": TOO_MANY_REQUESTS_RESPONSE,
            "500": { description: "The quota store failed", content: { "application/json": { schema: errorBody } } },
          },
        },
      },
      "/health": {
        get: {
          operationId: "health",
          summary: "Checks every store: reads the tables a request needs and writes (no authentication)",
          security: [],
          responses: {
            "200": { description: "Up", content: { "application/json": { schema: { $ref: "#/components/schemas/Health" } } } },
            "503": {
              description: "A store cannot be read or written; `checks` names which",
              content: { "application/json": { schema: { $ref: "#/components/schemas/Health" } } },
            },
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "openapi",
          summary: "This document",
          security: [],
          responses: { "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    }),
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An API key, `xql_` followed by 32 base62 characters" },
      },
      headers: {
        RateLimitLimit: { description: "Runs allowed per UTC day for the account's tier", schema: { type: "integer" } },
        RateLimitRemaining: { description: "Runs left today, after this call", schema: { type: "integer" } },
        RateLimitReset: { description: "Unix epoch seconds of the next UTC midnight", schema: { type: "integer" } },
      },
      responses: {
        Unauthorized: {
          description: "Missing, unknown or revoked API key (checked before the body is read)",
          headers: { "WWW-Authenticate": { schema: { type: "string", const: "Bearer" } } },
          content: { "application/json": { schema: errorBody, example: { error: "Missing or invalid API key" } } },
        },
        TooLarge: {
          description: "Request body above the limit",
          content: { "application/json": { schema: errorBody } },
        },
        TooManyRequests: {
          description:
            "The account already has its requests in work (4) and waiting (100) on this server: refused before the body is read, nothing consumed. Several keys of one account are one account.",
          headers: { "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } } },
          content: { "application/json": { schema: errorBody, example: { error: "Too many concurrent requests for this account" } } },
        },
      },
      schemas: {
        ...ALERTS_OPENAPI_SCHEMAS,
        ...WATCHLISTS_OPENAPI_SCHEMAS,
        ...WHY_OPENAPI_SCHEMAS,
        Valid: {
          type: "object",
          required: ["valid"],
          properties: { valid: { const: true } },
          additionalProperties: false,
        },
        Invalid: {
          type: "object",
          required: ["valid", "error"],
          properties: {
            valid: { const: false },
            error: {
              type: "object",
              required: ["type", "message"],
              properties: {
                type: { enum: ["syntax", "plan"] },
                message: { type: "string" },
                position: { ...position, description: "Present for syntax errors only" },
              },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
        Plan: {
          type: "object",
          required: ["market", "sources"],
          properties: {
            market: { type: "string" },
            sources: {
              type: "array",
              description: "Base timeframe first, then by duration",
              items: {
                type: "object",
                required: ["timeframe", "series", "minLookback"],
                properties: {
                  timeframe: { enum: [...TIMEFRAMES] },
                  series: { type: "array", items: { enum: [...RAW_SERIES] } },
                  minLookback: { type: "integer", minimum: 1 },
                },
                additionalProperties: false,
              },
            },
          },
          additionalProperties: false,
        },
        Explain: {
          type: "object",
          required: ["plan", "explanation"],
          properties: { plan: { $ref: "#/components/schemas/Plan" }, explanation: { type: "string" } },
          additionalProperties: false,
        },
        Run: {
          type: "object",
          required: ["results", "meta"],
          properties: {
            results: {
              type: "array",
              items: {
                type: "object",
                required: ["symbol", "columns"],
                properties: {
                  symbol: { type: "string" },
                  columns: {
                    type: "object",
                    description: "Column text as written in the query → value (null when not finite)",
                    additionalProperties: { type: ["number", "null"] },
                  },
                },
                additionalProperties: false,
              },
            },
            meta: {
              type: "object",
              description: "What the run considered, so that no results can be told from no data",
              required: ["instruments", "matched", "skipped", "asOf", "unconverged"],
              properties: {
                instruments: { type: "integer", description: "Instruments of the market considered, skipped ones included" },
                matched: { type: "integer", description: "Matches before the query's limit" },
                skipped: {
                  type: "object",
                  required: ["shortHistory", "noData"],
                  properties: {
                    shortHistory: { type: "integer", description: "Fewer bars than a source's minLookback" },
                    noData: { type: "integer", description: "No bars on a source the plan needs" },
                  },
                  additionalProperties: false,
                },
                asOf: { type: ["string", "null"], format: "date-time", description: "Open time of the latest base bar evaluated" },
                unconverged: {
                  type: "integer",
                  minimum: 0,
                  description:
                    "Instruments evaluated on fewer bars than a source's warm-up from the bar's anchor (a young series, a short store): their recursive values may be further from the all-history value than the warm-up promises (decisions §9)",
                },
              },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
        Forward: {
          type: "object",
          description: "Close-to-close returns in percent k base bars after each match (only matches with k later bars count)",
          required: ["n", "mean", "median", "hitRate"],
          properties: {
            n: { type: "integer", minimum: 0 },
            mean: { type: ["number", "null"] },
            median: { type: ["number", "null"], description: "The mean of the middle two for an even n" },
            hitRate: { type: ["number", "null"], minimum: 0, maximum: 1, description: "Share of returns above 0" },
          },
          additionalProperties: false,
        },
        HistoryMeta: {
          type: "object",
          required: ["instruments", "matched", "skipped", "asOf", "unconverged"],
          properties: {
            instruments: { type: "integer", minimum: 0, description: "Instruments of the market considered" },
            matched: { type: "integer", minimum: 0, description: "Matches over the window before limit" },
            skipped: {
              type: "object",
              required: ["shortHistory", "noData"],
              properties: {
                shortHistory: { type: "integer", minimum: 0, description: "Never enough history at any bar of the window" },
                noData: { type: "integer", minimum: 0, description: "No bars on a needed source, or no base bar in the window" },
              },
              additionalProperties: false,
            },
            asOf: { type: ["string", "null"], format: "date-time", description: "Open time of the window's latest bar" },
            unconverged: {
              type: "integer",
              minimum: 0,
              description: "Instruments evaluated at some window bar on fewer bars than a source's warm-up from that bar's anchor (decisions §9)",
            },
          },
          additionalProperties: false,
        },
        History: {
          type: "object",
          required: ["matches", "stats", "meta"],
          properties: {
            matches: {
              type: "array",
              description: "By bar time, then symbol",
              items: {
                type: "object",
                required: ["time", "symbol", "columns"],
                properties: {
                  time: { type: "integer", description: "Open time of the base bar, UTC ms since epoch" },
                  symbol: { type: "string" },
                  columns: { type: "object", additionalProperties: { type: ["number", "null"] } },
                },
                additionalProperties: false,
              },
            },
            stats: {
              type: "object",
              required: ["bars", "matches", "symbolsMatched", "forward"],
              properties: {
                bars: { type: "integer", minimum: 0 },
                matches: { type: "integer", minimum: 0 },
                symbolsMatched: { type: "integer", minimum: 0 },
                forward: {
                  type: "object",
                  required: ["1", "5", "20"],
                  properties: {
                    "1": { $ref: "#/components/schemas/Forward" },
                    "5": { $ref: "#/components/schemas/Forward" },
                    "20": { $ref: "#/components/schemas/Forward" },
                  },
                  additionalProperties: false,
                },
              },
              additionalProperties: false,
            },
            meta: { $ref: "#/components/schemas/HistoryMeta" },
          },
          additionalProperties: false,
        },
        Usage: {
          type: "object",
          required: ["tier", "limit", "used", "remaining", "resetAt"],
          properties: {
            tier: { enum: ["free", "essential", "plus"] },
            limit: { type: "integer" },
            used: { type: "integer" },
            remaining: { type: "integer" },
            resetAt: { type: "string", format: "date-time", description: "The next UTC midnight, with milliseconds" },
          },
          additionalProperties: false,
        },
        Health: {
          type: "object",
          required: ["status", "version", "checks"],
          properties: {
            status: { enum: ["ok", "unavailable"] },
            version: { type: "string" },
            checks: {
              type: "object",
              description:
                "Per role of the stores (bars, keys, quota): `ok`, or what failed (`cannot be read`, `cannot be written`, `the database file was deleted or replaced`, `busy`, `Redis does not answer`, `unavailable`)",
              properties: { bars: { type: "string" }, keys: { type: "string" }, quota: { type: "string" } },
              additionalProperties: false,
            },
          },
          additionalProperties: false,
        },
      },
    },
  };
}

/** `GET /openapi.json` (no key): the document, written once when the server is made. */
export const openApiPart: ServicePart = (app) => {
  const text = JSON.stringify(openApiDocument());
  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(text));
};
