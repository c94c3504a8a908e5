/** The watchlists routes in `/openapi.json` (decisions §13), spread into the document by `openapi.ts`. */

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
