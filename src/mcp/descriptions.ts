/**
 * Tool descriptions, written for the model that calls the tools: what the tool does, the
 * query's shape, a short example, and what each error means and how to act on it. Function and
 * series names come from the registry, so a new indicator appears here without an edit.
 */
import { FUNCTIONS, SERIES } from "../functions/registry.js";
import { TIMEFRAMES } from "../types.js";

const QUERY_SHAPE = `XQL query shape (plain text, one statement per line, the condition last):
  market = "CRYPTO"              required ("CRYPTO" or "FOREX")
  timeframe = h1                 required: ${TIMEFRAMES.join(" ")}
  columns = [close, rsi(14)]     optional: values returned per match, keyed by their text
  sort = rsi(14) asc             optional: asc or desc
  limit = 20                     optional: 1..10000
  let avgv = avg(volume, 20)     optional named expressions, used below
  rsi(14) < 30 and volume > avgv * 2     the condition (boolean)
Operators: and or not, < <= > >= == !=, + - * /, parentheses. x[n] is the value n bars ago.
A prefix reads another timeframe's last completed bar: d::sma(200), h4::rsi(14), w::highest(high, 52); it applies to the next term only (d::close * 2 is (d::close) * 2).
Series: ${[...SERIES.keys()].join(" ")}.
Functions: ${[...FUNCTIONS.values()].map((f) => (f.params.length === 0 ? f.name : `${f.name}(${f.params.map((p) => (p.default ? `[${p.name}]` : p.name)).join(", ")})`)).join(" ")}. A bracketed first argument is optional (close, or high/low for highest/lowest); a name without parentheses takes no arguments and is written bare; lengths are positive integer literals; each timeframe may look back at most 300 bars.
Use xql_nl_reference to turn phrases such as "oversold" or "golden cross" into conditions.`;

const QUERY_ERRORS = `Errors (the result has isError: true and carries the service's body):
- {"valid": false, "error": {"type": "syntax", "message", "position": {"line", "column", "offset"}}}: the text is malformed at that position, e.g. "Unknown identifier 'rsl', did you mean 'rsi'?" or "Unexpected end of input, expected ')'". Fix the query there and call again.
- {"valid": false, "error": {"type": "plan", "message"}}: well-formed but not plannable, e.g. a missing market/timeframe setting or "Lookback of 400 bars on timeframe d exceeds the ceiling of 300 bars" (use shorter lengths or a coarser prefix such as w::).
- {"error": "Missing or invalid API key"}: the XQL_API_KEY configured for this MCP server is wrong or revoked. Retrying will not help; tell the user to fix the key.
- {"error": "Could not reach the XQL service at <url>: ..."} or "... did not answer within ...": the service is down or XQL_BASE_URL is wrong. The query is not at fault; tell the user.`;

export const VALIDATE_DESCRIPTION = `Check an XQL market-screening query without running it. Free: not metered, touches no data. Returns {"valid": true} when the query parses and plans. Use it before xql_run, and after every edit of a query that failed.

${QUERY_SHAPE}

Example query:
market = "CRYPTO"
timeframe = h1
let avgv = avg(volume, 20)
rsi(14) < 30 and volume > avgv * 2

${QUERY_ERRORS}`;

export const EXPLAIN_DESCRIPTION = `Explain an XQL query without running it. Free: not metered, touches no data. Returns {"plan": {"market", "sources": [{"timeframe", "series", "minLookback"}]}, "explanation": "Matches when ..."}. The explanation is a mechanical rendering of the query (not trading advice); use it to confirm the query says what the user asked, and the plan to see which timeframes and how many bars it reads.

${QUERY_SHAPE}

Example query:
market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14)]
sort = rsi(14) asc
close > d::sma(200) and rsi(14) < 30

${QUERY_ERRORS}`;

export const RUN_DESCRIPTION = `Run an XQL screening query over every instrument of its market and return the matches: {"results": [{"symbol", "columns": {"<column text>": number or null}}]}, in the query's sort order, cut at its limit. An empty results array means nothing matches right now; it is not an error. Metered: each successful run uses one request of the API key's daily quota (validate and explain are free, so validate first). Add columns = [...] to see the values behind each match.

${QUERY_SHAPE}

Example query:
market = "CRYPTO"
timeframe = h1
columns = [close, rsi(14), volume]
sort = rsi(14) asc
limit = 20
let avgv = avg(volume, 20)
rsi(14) < 30 and volume > avgv * 2

${QUERY_ERRORS}
- {"error": "Daily API rate limit exceeded", "resetAt", "retryAfter"}: the daily run quota is used up until resetAt (the next UTC midnight, ISO 8601; retryAfter in seconds). Do not retry before then; validate and explain still work.
- {"error": "Data store unavailable"}: the service could not read market data. The query is fine; try again later.`;

export const REFERENCE_DESCRIPTION = `Look up how screener phrases are written in XQL. Returns {"entries": [{"phrase", "query", "notes"}]}. Each query is a condition fragment, with any "let" lines it needs first, that is valid after the market and timeframe lines. Covers oversold/overbought, golden and death crosses, moving averages (200-day, 50-day), MACD and Bollinger signals, volume spikes, 52-week highs, breakouts, gaps, ranges, trends, pullbacks, candles and multi-timeframe conditions.

Input: {"phrase": "oversold"} filters by words, case-insensitively, best matches first; filler words ("show me", "crypto", "with") are ignored; omit phrase to list every entry. No match gives an empty list: try a shorter or different word.

To combine entries: put all their let lines first, then join their conditions with "and". Example for "oversold crypto with a volume spike":
market = "CRYPTO"
timeframe = h1
let avgv = avg(volume, 20)
rsi(14) < 30 and volume > avgv * 2
Then call xql_validate, xql_explain and xql_run with the full query, and xql_history to see when that screen matched over the last bars and what followed.`;

export const HISTORY_DESCRIPTION = `Screen history: evaluate an XQL screen at each of the last N base bars (input "bars", default 100, at most 1000) as if that bar were the latest, and report when it matched and what price did next. Returns {"matches": [{"time", "symbol", "columns"}], "stats": {"bars", "matches", "symbolsMatched", "forward": {"1", "5", "20": {"n", "mean", "median", "hitRate"}}}, "meta"}. time is the bar's open time in ms (UTC); forward gives the close-to-close return in percent 1, 5 and 20 bars after each match (hitRate: share above 0; null when no match has that many later bars). The values at a past bar are exactly what a run then would have shown: no later bar leaks in. It is a screen's hit history, not a trading backtest (no costs, no position sizing); say so when you report it. Metered like xql_run: one request of the daily quota, whatever N is.

${QUERY_SHAPE}

Example: {"query": "market = \\"CRYPTO\\"\\ntimeframe = h1\\nrsi(14) < 30", "bars": 300}

${QUERY_ERRORS}
- {"error": "Daily API rate limit exceeded", "resetAt", "retryAfter"}: the daily quota is used up until resetAt (the next UTC midnight, ISO 8601; retryAfter in seconds). Do not retry before then.
- {"error": "Query parameter 'bars' must be an integer from 1 to 1000"}: use a window within those bounds.`;

export const ALERT_CREATE_DESCRIPTION = `Save an XQL screen as an alert: from the next closed base bar on, each time a bar of the query's timeframe closes, the service reports which symbols started matching (enter) and which stopped (exit), by a signed POST to the webhook and on the account's stream (GET /xql/alerts/stream). Returns {"id", "name", "query", "webhook", "secret", "createdAt", "matching"}: "matching" is what matches now (the baseline, no event); "secret" verifies the webhook's X-XQL-Signature and is shown only in this answer, so pass it on to the user. Not metered. Accounts hold at most 1 (free), 20 (essential) or 100 (plus) alerts.

${QUERY_SHAPE}

Example: {"query": "market = \\"CRYPTO\\"\\ntimeframe = h1\\ncolumns = [close, rsi(14)]\\nrsi(14) < 30", "webhook": "https://example.com/hooks/xql", "name": "oversold crypto"}

${QUERY_ERRORS}
- {"error": "Webhook URL must be https:// to a public address"}: the webhook is http://, private, loopback or link-local. Ask the user for a public https:// endpoint, or omit it.
- {"error": "Alert limit reached for this tier"}: the account holds its tier's alerts. Offer to delete one (xql_alert_list, xql_alert_delete).`;

export const ALERT_LIST_DESCRIPTION = `List the account's alerts: {"alerts": [{"id", "name", "query", "webhook", "createdAt"}]}, oldest first (secrets are never shown again). Not metered.`;

export const ALERT_DELETE_DESCRIPTION = `Remove an alert by its id (from xql_alert_list): it stops being evaluated and its pending deliveries are dropped. Returns {"deleted": "<id>"}; an id the account does not hold is {"error": "Alert not found"}. Not metered.`;

export const WATCHLIST_SET_DESCRIPTION = `Save a list of symbols under a name for the account (replacing a list of that name), so that screens, histories and alerts can cover only those symbols: write watchlist = "name" after the timeframe setting of a query (or list them inline with symbols = ["EURUSD", "GBPUSD"]). Input {"name", "symbols"}: the name is 1 to 40 characters of a-z, 0-9, _ and -; 1 to 1,000 distinct symbols, spelled as the market stores them (EURUSD, BTCUSDT); at most 50 lists an account. Returns {"name", "symbols", "updatedAt"}. Not metered. A query naming a list that does not exist is the plan error "Unknown watchlist 'name'"; a symbol the market lacks is counted in meta.skipped.noData of a run.`;

export const WATCHLIST_LIST_DESCRIPTION = `List the account's saved symbol lists: {"watchlists": [{"name", "symbols", "updatedAt"}]}, by name. Use it before writing watchlist = "name" in a query. Not metered.`;

export const WHY_DESCRIPTION = `Explain why one symbol matches an XQL screen at a bar, or not: the condition part by part with each part's value there. Use it when a query finds nothing (which part fails for a symbol that should match?) or too much (which part lets a symbol through?), then fix the threshold or the part and run again. Input {"query", "symbol", "time"?} (time: ms or ISO 8601; default the latest bar). Returns {"symbol", "time", "matched", "columns", "tree"}: tree nodes are {"expr", "value", "time"?, "children"?} — "and"/"or"/"not" and comparisons list their operands, a let name its definition; value is true/false, a number, or null where the part is undefined (not enough bars yet, division by zero); "time" marks a part read at another bar (d::..., an offset). The values are exactly the run's. Metered: one run of the daily quota. A symbol without bars is {"error": "No bars for SYMBOL on MARKET TIMEFRAME"}.`;
