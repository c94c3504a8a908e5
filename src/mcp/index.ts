/**
 * The MCP bridge: tools over the HTTP API, served on stdio to an AI assistant's MCP client.
 * `xql_validate`, `xql_explain`, `xql_run`, `xql_history` and the alert tools (`xql_alert_create`,
 * `xql_alert_list`, `xql_alert_delete`) forward to the service through
 * {@link XqlClient} and return its body as structured content and as JSON text; a 4xx/5xx is a
 * tool result with `isError: true` carrying the same body. `xql_nl_reference` answers from the
 * library's phrase reference. Nothing but protocol goes to stdout; logs go to stderr.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Readable, Writable } from "node:stream";
import { XqlClient, XqlClientError, type XqlResponse } from "../client/index.js";
import { findPhrases } from "../phrases/index.js";
import { VERSION } from "../version.js";
import { DEFAULT_BASE_URL, MCP_TOOLS } from "./tools.js";
import {
  ALERT_CREATE_DESCRIPTION,
  ALERT_DELETE_DESCRIPTION,
  ALERT_LIST_DESCRIPTION,
  WATCHLIST_LIST_DESCRIPTION,
  WATCHLIST_SET_DESCRIPTION,
  WHY_DESCRIPTION,
  EXPLAIN_DESCRIPTION,
  REFERENCE_DESCRIPTION,
  RUN_DESCRIPTION,
  HISTORY_DESCRIPTION,
  VALIDATE_DESCRIPTION,
} from "./descriptions.js";
import {
  alertCreateInput,
  alertCreateOutput,
  alertDeleteInput,
  alertDeleteOutput,
  alertListOutput,
  watchlistListOutput,
  watchlistSetInput,
  watchlistSetOutput,
  whyInput,
  whyOutput,
  explainOutput,
  historyInput,
  historyOutput,
  phraseInput,
  queryInput,
  referenceOutput,
  runOutput,
  validateOutput,
} from "./schemas.js";
import { messageOf } from "../errors.js";

export { DEFAULT_BASE_URL, MCP_TOOLS };

type Body = Record<string, unknown>;

function toolResult(body: Body, isError: boolean): CallToolResult {
  const result: CallToolResult = {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body,
  };
  if (isError) result.isError = true;
  return result;
}

/**
 * A 429's body says only that the limit is reached; an assistant also needs to know when to try
 * again, which the service says in headers an MCP client never sees. So the tool result adds
 * them beside the service's own fields: `resetAt` (ISO 8601, from `X-RateLimit-Reset`: when the
 * daily quota starts afresh) and `retryAfter` (seconds, from `Retry-After`).
 */
function withRetryTimes(response: XqlResponse<object | null, number>): Body {
  const body = response.body as Body;
  if (response.ok || response.status !== 429) return body;
  const times: Body = {};
  if (response.rateLimit && response.rateLimit.remaining === 0) times.resetAt = new Date(response.rateLimit.reset * 1000).toISOString();
  if (response.retryAfter !== undefined) times.retryAfter = response.retryAfter;
  return { ...body, ...times };
}

/** Calls the service; any failure to get an answer becomes a tool error naming the URL, never a throw. */
async function forward(call: () => Promise<XqlResponse<object | null, number>>): Promise<CallToolResult> {
  try {
    const response = await call();
    return toolResult(withRetryTimes(response), !response.ok);
  } catch (error) {
    const message =
      error instanceof XqlClientError
        ? error.message
        : `The XQL bridge failed unexpectedly: ${messageOf(error)}`;
    return toolResult({ error: message }, true);
  }
}

export interface CreateMcpServerOptions {
  /** Receives each tool call while it runs, so a shutdown can let calls in flight answer first. */
  inFlight?: Set<Promise<unknown>>;
}

/** An MCP server named "xql" with the tools of {@link MCP_TOOLS}, calling the service through `client`. */
export function createMcpServer(client: XqlClient, options: CreateMcpServerOptions = {}): McpServer {
  const track = (call: Promise<CallToolResult>): Promise<CallToolResult> => {
    const inFlight = options.inFlight;
    if (!inFlight) return call;
    inFlight.add(call);
    return call.finally(() => inFlight.delete(call));
  };
  const server = new McpServer(
    { name: "xql", title: "XQL market screener", version: VERSION },
    {
      instructions:
        "XQL screens markets (CRYPTO, FOREX) with a small query language. To answer a request such as \"oversold crypto with a volume spike\": look the phrases up with xql_nl_reference, assemble the full query (market and timeframe lines, let lines, then one condition joined with and), check it with xql_validate (free), confirm its meaning with xql_explain (free), then call xql_run (metered). To judge a screen before trusting it, xql_history (metered, one request) shows when it matched over the last N bars and how price moved 1, 5 and 20 bars later. Every error says what to fix.",
    },
  );

  const readOnly = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

  server.registerTool(
    "xql_validate",
    {
      title: "Validate an XQL query",
      description: VALIDATE_DESCRIPTION,
      inputSchema: queryInput,
      outputSchema: validateOutput,
      annotations: { ...readOnly, idempotentHint: true },
    },
    ({ query }) => track(forward(() => client.validate(query))),
  );

  server.registerTool(
    "xql_explain",
    {
      title: "Explain an XQL query",
      description: EXPLAIN_DESCRIPTION,
      inputSchema: queryInput,
      outputSchema: explainOutput,
      annotations: { ...readOnly, idempotentHint: true },
    },
    ({ query }) => track(forward(() => client.explain(query))),
  );

  server.registerTool(
    "xql_run",
    {
      title: "Run an XQL screen",
      description: RUN_DESCRIPTION,
      inputSchema: queryInput,
      outputSchema: runOutput,
      // Reads market data only, but each run uses quota, so it is not idempotent.
      annotations: { ...readOnly, idempotentHint: false },
    },
    ({ query }) => track(forward(() => client.run(query))),
  );

  server.registerTool(
    "xql_history",
    {
      title: "Screen history of an XQL query",
      description: HISTORY_DESCRIPTION,
      inputSchema: historyInput,
      outputSchema: historyOutput,
      // Like run: reads market data only, but uses quota.
      annotations: { ...readOnly, idempotentHint: false },
    },
    ({ query, bars }) => track(forward(() => client.history(query, bars === undefined ? undefined : { bars }))),
  );

  server.registerTool(
    "xql_why",
    {
      title: "Why a symbol matches an XQL screen, or not",
      description: WHY_DESCRIPTION,
      inputSchema: whyInput,
      outputSchema: whyOutput,
      // Like run: reads market data only, but uses quota.
      annotations: { ...readOnly, idempotentHint: false },
    },
    ({ query, symbol, time }) => track(forward(() => client.why(query, symbol, time === undefined ? undefined : { time }))),
  );

  // Alerts change the account's saved state: not read-only; creating twice makes two alerts.
  const writes = { readOnlyHint: false, openWorldHint: false } as const;

  server.registerTool(
    "xql_alert_create",
    {
      title: "Create an XQL alert",
      description: ALERT_CREATE_DESCRIPTION,
      inputSchema: alertCreateInput,
      outputSchema: alertCreateOutput,
      annotations: { ...writes, destructiveHint: false, idempotentHint: false },
    },
    ({ query, webhook, name }) =>
      track(forward(() => client.createAlert({ query, ...(webhook === undefined ? {} : { webhook }), ...(name === undefined ? {} : { name }) }))),
  );

  server.registerTool(
    "xql_alert_list",
    {
      title: "List XQL alerts",
      description: ALERT_LIST_DESCRIPTION,
      outputSchema: alertListOutput,
      annotations: { ...readOnly, idempotentHint: true },
    },
    () => track(forward(() => client.listAlerts())),
  );

  server.registerTool(
    "xql_alert_delete",
    {
      title: "Delete an XQL alert",
      description: ALERT_DELETE_DESCRIPTION,
      inputSchema: alertDeleteInput,
      outputSchema: alertDeleteOutput,
      annotations: { ...writes, destructiveHint: true, idempotentHint: true },
    },
    ({ id }) =>
      track(
        forward(async () => {
          const response = await client.deleteAlert(id);
          // A 204 has no body; the tool says what it removed.
          return response.ok ? { ...response, body: { deleted: id } } : response;
        }),
      ),
  );

  // A list is saved state: putting the same list twice leaves the same list.
  server.registerTool(
    "xql_watchlist_set",
    {
      title: "Save an XQL watchlist",
      description: WATCHLIST_SET_DESCRIPTION,
      inputSchema: watchlistSetInput,
      outputSchema: watchlistSetOutput,
      annotations: { ...writes, destructiveHint: true, idempotentHint: true },
    },
    ({ name, symbols }) => track(forward(() => client.putWatchlist(name, symbols))),
  );

  server.registerTool(
    "xql_watchlist_list",
    {
      title: "List XQL watchlists",
      description: WATCHLIST_LIST_DESCRIPTION,
      outputSchema: watchlistListOutput,
      annotations: { ...readOnly, idempotentHint: true },
    },
    () => track(forward(() => client.listWatchlists())),
  );

  server.registerTool(
    "xql_nl_reference",
    {
      title: "Phrase-to-XQL reference",
      description: REFERENCE_DESCRIPTION,
      inputSchema: phraseInput,
      outputSchema: referenceOutput,
      annotations: { ...readOnly, idempotentHint: true },
    },
    ({ phrase }) => {
      const entries = findPhrases(phrase).map(({ phrase: p, query, notes }) =>
        notes === undefined ? { phrase: p, query } : { phrase: p, query, notes },
      );
      return toolResult({ entries }, false);
    },
  );

  return server;
}

export interface ServeStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Where diagnostics go; default standard error. */
  log?: (line: string) => void;
}

/**
 * Serves the tools on stdio until the MCP client closes standard input, then resolves to
 * `{}`; when the transport gives up on its input (a JSON-RPC line over its 10 MiB buffer),
 * resolves to `{ failure }` saying why, so the command exits non-zero.
 */
export async function serveStdio(client: XqlClient, options: ServeStdioOptions = {}): Promise<{ failure?: string }> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));

  const inFlight = new Set<Promise<unknown>>();
  const server = createMcpServer(client, { inFlight });
  const transport = new StdioServerTransport(stdin, stdout);
  let closing = false;
  let lastError: Error | undefined;
  // The transport closes itself only when it cannot go on reading (its buffer overflowed):
  // a close nobody asked for is a failure, with the error it reported just before.
  const closed = new Promise<{ failure?: string }>((resolve) => {
    transport.onclose = () => resolve(closing ? {} : { failure: lastError?.message ?? "the transport closed unexpectedly" });
  });
  transport.onerror = (error) => {
    lastError = error;
    log(`xql mcp: ${error.message}`);
  };

  const close = (drain: boolean): void => {
    if (closing) return;
    closing = true;
    // Requests already read get their answers before the transport closes (a client may write
    // its requests and close stdin at once); a broken stdout has no one left to answer.
    // A turn of the event loop first lets requests read with the last bytes reach their handlers.
    const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    void nextTurn()
      .then(() => (drain ? Promise.allSettled([...inFlight]) : undefined))
      .then(nextTurn)
      .then(() => server.close())
      .catch((error: unknown) => log(`xql mcp: ${messageOf(error)}`));
  };
  // The client closes our stdin to stop us; a vanished client makes stdout fail.
  stdin.once("end", () => close(true));
  stdin.once("close", () => close(true));
  stdout.on("error", () => close(false));

  await server.connect(transport);
  log(`xql mcp ${VERSION}: serving ${MCP_TOOLS.map((tool) => tool.name).join(", ")} for ${client.baseUrl}`);
  const result = await closed;
  if (result.failure !== undefined) {
    // Nothing more will be read: stop reading standard input and end the server, so the process exits.
    stdin.destroy();
    await server.close().catch(() => undefined);
  }
  return result;
}
