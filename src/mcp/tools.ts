/**
 * What `xql mcp --help` and the bridge's start-up line say about the tools, kept apart from the
 * bridge (`./index.ts`) because that loads the MCP SDK and zod: the help must print in a
 * library install, where those optional packages are absent. `test/mcp/tools.test.ts` checks
 * that the bridge registers exactly these tools.
 */

/** Where the bridge looks for the service when `XQL_BASE_URL` is not set. */
export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

/** Every tool the bridge serves, in the order it registers them, with one line for people. */
export const MCP_TOOLS: readonly { readonly name: string; readonly summary: string }[] = [
  { name: "xql_validate", summary: "check a query (free)" },
  { name: "xql_explain", summary: "its plan and a plain-English explanation (free)" },
  { name: "xql_run", summary: "run a screen over its market (metered: one run of the daily quota)" },
  { name: "xql_history", summary: "when a screen matched over the last N bars, and what followed (metered: one request)" },
  { name: "xql_why", summary: "why one symbol matches a screen at a bar, or not, part by part (metered: one run)" },
  { name: "xql_alert_create", summary: "save a screen as an alert: enter and exit events as base bars close, by signed webhook and stream (free)" },
  { name: "xql_alert_list", summary: "the account's alerts (free)" },
  { name: "xql_alert_delete", summary: "remove an alert by its id (free)" },
  { name: "xql_watchlist_set", summary: "save a named list of symbols for watchlist = \"name\" in queries and alerts (free)" },
  { name: "xql_watchlist_list", summary: "the account's saved symbol lists (free)" },
  { name: "xql_nl_reference", summary: "screener phrases written as XQL conditions (answered locally, free)" },
];
