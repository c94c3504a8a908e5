/**
 * The watchlists routes (decisions §13) and `POST /xql/why` (§11) in `/openapi.json`, spread into
 * the document by `openapi.ts`.
 */

/** The `{ "error": "..." }` body schema, which `openapi.ts` owns. */
type ErrorBodySchema = object;

const json = (schema: object, example?: object) => ({ "application/json": example === undefined ? { schema } : { schema, example } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
const tooManyRequests = { $ref: "#/components/responses/TooManyRequests" };
const nameParameter = { name: "name", in: "path", required: true, schema: { type: "string", pattern: "^[a-z0-9_-]{1,40}$" }, description: "The list's name" };

/** The watchlists' paths, their error answers with the document's error body. */
export function watchlistsOpenApiPaths(errorBody: ErrorBodySchema) {
  const storeFailed = { description: "The store failed", content: json(errorBody, { error: "Data store unavailable" }) };
  const notFound = { description: "No list of that name on this account (another account's lists are not found either)", content: json(errorBody, { error: "Watchlist not found" }) };
  return {
    "/xql/watchlists": {
      get: {
        operationId: "listWatchlists",
        summary: "The account's saved symbol lists, by name; never metered",
        responses: {
          "200": { description: "The lists", content: json({ type: "object", required: ["watchlists"], properties: { watchlists: { type: "array", items: ref("Watchlist") } }, additionalProperties: false }) },
          "401": unauthorized,
          "429": tooManyRequests,
          "500": storeFailed,
        },
      },
    },
    "/xql/watchlists/{name}": {
      parameters: [nameParameter],
      put: {
        operationId: "putWatchlist",
        summary: "Save a symbol list for queries that say watchlist = \"name\"; never metered",
        description:
          "Saves (or replaces) the account's list of that name: 1 to 1,000 distinct symbols, at most 50 lists an account. A query with `watchlist = \"name\"` screens only these symbols of its market; an alert on it follows the list as it is at each bar.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { type: "object", required: ["symbols"], properties: { symbols: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 1000 } }, additionalProperties: false },
              example: { symbols: ["EURUSD", "GBPUSD", "USDJPY"] },
            },
          },
        },
        responses: {
          "200": { description: "Replaced", content: json(ref("Watchlist")) },
          "201": { description: "Created", content: json(ref("Watchlist")) },
          "400": { description: "A bad name or body", content: json(errorBody, { error: "Duplicate symbol 'EURUSD'" }) },
          "401": unauthorized,
          "403": { description: "The account holds 50 lists", content: json(errorBody, { error: "Watchlist limit reached: at most 50 lists an account" }) },
          "429": tooManyRequests,
          "500": storeFailed,
        },
      },
      get: {
        operationId: "getWatchlist",
        summary: "One of the account's lists; never metered",
        responses: { "200": { description: "The list", content: json(ref("Watchlist")) }, "401": unauthorized, "404": notFound, "429": tooManyRequests, "500": storeFailed },
      },
      delete: {
        operationId: "deleteWatchlist",
        summary: "Remove one of the account's lists; never metered",
        responses: { "204": { description: "Removed" }, "401": unauthorized, "404": notFound, "429": tooManyRequests, "500": storeFailed },
      },
    },
  };
}

export const WATCHLISTS_OPENAPI_SCHEMAS = {
  Watchlist: {
    type: "object",
    required: ["name", "symbols", "updatedAt"],
    properties: {
      name: { type: "string" },
      symbols: { type: "array", items: { type: "string" } },
      updatedAt: { type: "string", description: "ISO 8601 time it was last saved" },
    },
    additionalProperties: false,
  },
};

/** `POST /xql/why`: metered like run; its failures are run's. */
export function whyOpenApiPaths(errorBody: ErrorBodySchema) {
  return {
    "/xql/why": {
      post: {
        operationId: "why",
        summary: "Why a symbol matches a screen at a bar, or not: the condition part by part; metered as one run",
        description:
          "The condition as a tree of its parts with their values at the bar (the run's values there, bit for bit; history's at an earlier bar). `and`/`or`/`not` and comparisons list their operands, a `let` name its definition; a part read at another bar (a coarser timeframe's last closed bar, an offset) gives that bar's open time as `time`. A value is null where the part is undefined (warm-up, NaN). `time` may go back at most 1,000 base bars. See docs/why.md.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["query", "symbol"],
                properties: { query: { type: "string" }, symbol: { type: "string" }, time: { type: ["integer", "string"], description: "ms since epoch or ISO 8601; default the latest bar" } },
                additionalProperties: false,
              },
              example: { query: 'market = "FOREX"\ntimeframe = h1\nrsi(14) < 30 and close > d::sma(200)', symbol: "EURUSD" },
            },
          },
        },
        responses: {
          "200": { description: "The tree", content: json(ref("Why")) },
          "400": { description: "The query is invalid (the validate body), or the body is not a why request", content: json(ref("Invalid")) },
          "401": unauthorized,
          "404": { description: "The symbol has no bars on the query's market and base timeframe (at or before `time`)", content: json(errorBody, { error: "No bars for NOPE on FOREX h1" }) },
          "429": tooManyRequests,
          "500": { description: "The store failed", content: json(errorBody, { error: "Data store unavailable" }) },
        },
      },
    },
  };
}

export const WHY_OPENAPI_SCHEMAS = {
  Why: {
    type: "object",
    required: ["symbol", "time", "matched", "columns", "tree"],
    properties: {
      symbol: { type: "string" },
      time: { type: "integer", description: "Open time (ms) of the base bar evaluated" },
      matched: { type: "boolean" },
      columns: { type: "object", additionalProperties: { type: ["number", "null"] } },
      tree: ref("WhyNode"),
    },
    additionalProperties: false,
  },
  WhyNode: {
    type: "object",
    required: ["expr", "value"],
    properties: {
      expr: { type: "string", description: "The part's canonical text, as explain prints it" },
      value: { type: ["number", "boolean", "null"] },
      time: { type: "integer", description: "Open time (ms) of the bar the part read, when not the bar asked" },
      children: { type: "array", items: ref("WhyNode") },
    },
    additionalProperties: false,
  },
};
