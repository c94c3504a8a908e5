/** The OpenAPI 3.1 description served at `/openapi.json`. */
import { VERSION } from "../version.js";

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
  description: "The XQL query as raw text (any Content-Type; read as UTF-8; at most the body limit, 64 KiB by default).",
  content: {
    "text/plain": {
      schema: { type: "string" },
      example: 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 20\nrsi(14) < 30',
    },
  },
} as const;

const invalid = { description: "Syntax or plan error", content: { "application/json": { schema: { $ref: "#/components/schemas/Invalid" } } } };
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
const tooLarge = { $ref: "#/components/responses/TooLarge" };

/** Builds the document (servers left to the caller: the service answers on any host). */
export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "XQL screening service",
      version: VERSION,
      description:
        "Screens financial instruments with XQL queries. validate, explain and usage are free; run is metered against a daily quota per account (UTC days).",
    },
    security: [{ bearer: [] }],
    paths: {
      "/xql/validate": {
        post: {
          operationId: "validate",
          summary: "Check that a query is well-formed and plannable; touches no data",
          requestBody: queryBody,
          responses: {
            "200": { description: "Valid", content: { "application/json": { schema: { $ref: "#/components/schemas/Valid" } } } },
            "400": invalid,
            "401": unauthorized,
            "413": tooLarge,
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
            "413": tooLarge,
          },
        },
      },
      "/xql/run": {
        post: {
          operationId: "run",
          summary: "Fetch the data a query needs and return the matching instruments (metered)",
          description: "Only a 200 consumes quota: a 400 or 500 gives the reservation back.",
          requestBody: queryBody,
          responses: {
            "200": {
              description: "Matches (an empty array is not an error)",
              headers: rateLimitHeaders,
              content: { "application/json": { schema: { $ref: "#/components/schemas/Run" } } },
            },
            "400": { ...invalid, headers: rateLimitHeaders },
            "401": unauthorized,
            "413": tooLarge,
            "429": {
              description: "Daily quota exhausted until the next UTC midnight",
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
          },
        },
      },
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
          },
        },
      },
      "/health": {
        get: {
          operationId: "health",
          summary: "Liveness and data store check (no authentication)",
          security: [],
          responses: {
            "200": { description: "Up", content: { "application/json": { schema: { $ref: "#/components/schemas/Health" } } } },
            "503": { description: "The data store does not answer", content: { "application/json": { schema: { $ref: "#/components/schemas/Health" } } } },
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
    },
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
      },
      schemas: {
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
                  timeframe: { enum: ["m1", "m5", "m15", "m30", "h1", "h4", "d", "w"] },
                  series: { type: "array", items: { enum: ["open", "high", "low", "close", "volume"] } },
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
              required: ["instruments", "matched", "skipped", "asOf"],
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
              },
              additionalProperties: false,
            },
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
          required: ["status", "version"],
          properties: { status: { enum: ["ok", "unavailable"] }, version: { type: "string" } },
          additionalProperties: false,
        },
      },
    },
  };
}
