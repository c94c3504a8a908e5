/** The alerts routes in `/openapi.json`: their paths and schemas, spread into the document by `openapi.ts`. */

/** The `{ "error": "..." }` body schema, which `openapi.ts` owns. */
type ErrorBodySchema = object;

const json = (schema: object, example?: object) => ({ "application/json": example === undefined ? { schema } : { schema, example } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const unauthorized = { $ref: "#/components/responses/Unauthorized" };
/** The account's admission, as on every authenticated route (decisions §2 "Fair use"). */
const tooManyRequests = { $ref: "#/components/responses/TooManyRequests" };
const idParameter = { name: "id", in: "path", required: true, schema: { type: "string" }, description: "The alert's id (`alrt_…`)" };

/** The alerts' paths, their error answers with the document's error body. */
export function alertsOpenApiPaths(errorBody: ErrorBodySchema) {
  const storeFailed = { description: "The store failed", content: json(errorBody, { error: "Data store unavailable" }) };
  const storeBusy = {
    description: "The store is busy with another writer (an import); try again shortly",
    headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } },
    content: json(errorBody, { error: "Data store busy, retry shortly" }),
  };
  const notFound = { description: "No such alert on this account (another account's alerts are not found either)", content: json(errorBody, { error: "Alert not found" }) };
  return {
    "/xql/alerts": {
      post: {
        operationId: "createAlert",
        summary: "Save a screen as an alert on bar close; never metered",
        description:
          "The query is validated as by validate (400 with its body). `matching` is the baseline: the symbols matching at the latest closed base bar, which fire no event; from the next closed bar on, each change is a delivery to the webhook (signed, see docs/alerts.md) and to the stream. `secret`, for the webhook signature, is shown only here. Active alerts per account: free 1, essential 20, plus 100. A webhook must be https:// to a public address (checked again, resolved, before each delivery) unless the server allows private webhooks.",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["query"],
                properties: {
                  query: { type: "string" },
                  webhook: { type: ["string", "null"], description: "https:// URL to POST deliveries to; omitted or null: the stream only" },
                  name: { type: "string", maxLength: 200, description: "Default: the query's explanation" },
                },
                additionalProperties: false,
              },
              example: { query: 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [rsi(14)]\nrsi(14) < 30', webhook: "https://example.com/xql-hook", name: "oversold crypto" },
            },
          },
        },
        responses: {
          "201": { description: "Created", content: json(ref("AlertCreated")) },
          "400": {
            description:
              "The query is invalid (the validate body), the body is not an alert, or the webhook is refused ({\"error\": \"Webhook URL must be https:// to a public address\"})",
            content: json({ oneOf: [ref("Invalid"), errorBody] }),
          },
          "401": unauthorized,
        "429": tooManyRequests,
          "403": { description: "The account holds its tier's number of alerts", content: json(errorBody, { error: "Alert limit reached for this tier" }) },
          "408": { description: "The request took longer than the server's timeout to arrive", content: json(errorBody) },
          "413": { $ref: "#/components/responses/TooLarge" },
          "500": storeFailed,
          "503": storeBusy,
        },
      },
      get: {
        operationId: "listAlerts",
        summary: "The account's alerts, oldest first (no secrets)",
        responses: {
          "200": { description: "Alerts", content: json({ type: "object", required: ["alerts"], properties: { alerts: { type: "array", items: ref("Alert") } }, additionalProperties: false }) },
          "401": unauthorized,
        "429": tooManyRequests,
          "500": storeFailed,
        },
      },
    },
    "/xql/alerts/stream": {
      get: {
        operationId: "alertStream",
        summary: "The account's deliveries as Server-Sent Events",
        description:
          "Each delivery is an event with `id:` the delivery id, `event: alert` and `data:` the webhook body (one line of JSON), sent as deliveries are committed, for every alert of the account (with or without a webhook). Comment lines (`: heartbeat`) keep the connection open through proxies. With `Last-Event-ID` the stream starts after that delivery (within 24 h), replaying at most 1,000 and then a comment saying how many were skipped; an id that is not one of the account's deliveries starts it from now, with a comment saying so; without, it starts with the next delivery. Open streams per account: free 2, essential 5, plus 10; one more is a 429.",
        parameters: [{ name: "Last-Event-ID", in: "header", required: false, schema: { type: "string" }, description: "The last delivery id received" }],
        responses: {
          "200": { description: "An endless text/event-stream", content: { "text/event-stream": { schema: { type: "string" } } } },
          "401": unauthorized,
        "429": tooManyRequests,
          "500": storeFailed,
        },
      },
    },
    "/xql/alerts/{id}": {
      get: {
        operationId: "getAlert",
        summary: "One alert with its matching symbols and recent deliveries",
        parameters: [idParameter],
        responses: {
          "200": { description: "The alert", content: json(ref("AlertDetail")) },
          "401": unauthorized,
        "429": tooManyRequests,
          "404": notFound,
          "500": storeFailed,
        },
      },
      delete: {
        operationId: "deleteAlert",
        summary: "Remove the alert (its pending deliveries are dropped)",
        parameters: [idParameter],
        responses: {
          "204": { description: "Removed" },
          "401": unauthorized,
        "429": tooManyRequests,
          "404": notFound,
          "500": storeFailed,
          "503": storeBusy,
        },
      },
    },
  } as const;
}

const alertFields = {
  id: { type: "string" },
  name: { type: "string" },
  query: { type: "string" },
  webhook: { type: ["string", "null"] },
  createdAt: { type: "string", format: "date-time" },
} as const;

const columns = { type: "object", description: "Column text → value, as in run (null when not finite)", additionalProperties: { type: ["number", "null"] } };

export const ALERTS_OPENAPI_SCHEMAS = {
  Alert: { type: "object", required: Object.keys(alertFields), properties: alertFields, additionalProperties: false },
  AlertCreated: {
    type: "object",
    required: [...Object.keys(alertFields), "secret", "matching"],
    properties: {
      ...alertFields,
      secret: { type: "string", description: "Signs the webhook deliveries; shown only in this answer" },
      matching: { type: "array", items: { type: "string" }, description: "The baseline: symbols matching at the latest closed base bar" },
    },
    additionalProperties: false,
  },
  AlertDetail: {
    type: "object",
    required: [...Object.keys(alertFields), "matching", "asOf", "deliveries"],
    properties: {
      ...alertFields,
      matching: { type: "array", items: { type: "string" }, description: "Symbols matching at the last evaluated base bar" },
      asOf: { type: ["string", "null"], format: "date-time", description: "Open time of the last evaluated base bar" },
      deliveries: {
        type: "array",
        description: "The latest deliveries, newest first",
        items: {
          type: "object",
          required: ["id", "time", "events", "status", "attempts", "createdAt", "deliveredAt", "nextAttemptAt", "lastError"],
          properties: {
            id: { type: "string" },
            time: { type: "integer", description: "Open time of the base bar, UTC ms" },
            events: { type: "integer", minimum: 1 },
            status: { enum: ["pending", "delivered", "failed", "stream"], description: "`stream`: the alert has no webhook" },
            attempts: { type: "integer", minimum: 0 },
            createdAt: { type: "string", format: "date-time" },
            deliveredAt: { type: ["string", "null"], format: "date-time" },
            nextAttemptAt: { type: ["string", "null"], format: "date-time", description: "When a pending delivery is tried next" },
            lastError: { type: ["string", "null"], description: "What the last failed attempt met" },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  AlertDelivery: {
    type: "object",
    description: "The body of a webhook POST and the data of a stream event",
    required: ["alert", "timeframe", "time", "events", "delivery"],
    properties: {
      alert: { type: "object", required: ["id", "name"], properties: { id: { type: "string" }, name: { type: "string" } }, additionalProperties: false },
      timeframe: { enum: ["m1", "m5", "m15", "m30", "h1", "h4", "d", "w"] },
      time: { type: "integer", description: "Open time of the base bar that closed, UTC ms" },
      events: {
        type: "array",
        description: "By symbol",
        items: {
          type: "object",
          required: ["symbol", "kind", "columns"],
          properties: {
            symbol: { type: "string" },
            kind: { enum: ["enter", "exit"] },
            columns: { ...columns, description: "enter: the values at this bar; exit: the values it last matched with" },
          },
          additionalProperties: false,
        },
      },
      delivery: { type: "string", description: "The delivery id, also in X-XQL-Delivery: the same on every retry" },
    },
    additionalProperties: false,
  },
} as const;
