/**
 * Zod schemas of the four tools. Outputs are the service's HTTP bodies, and a failed call is a
 * tool result with `isError: true` carrying the same body, so every output schema accepts both
 * the success body and the error bodies (`{ valid: false, error: {...} }` for a query error,
 * `{ error: "..." }` for everything else). Bodies that come from the service are loose objects:
 * a field the service adds later must not make an MCP client reject the result.
 */
import { z } from "zod";

export const queryInput = {
  query: z
    .string()
    .describe(
      'The complete XQL query text: settings one per line, then the condition last, e.g. "market = \\"CRYPTO\\"\\ntimeframe = h1\\nrsi(14) < 30".',
    ),
};

export const phraseInput = {
  phrase: z
    .string()
    .optional()
    .describe(
      'Words to look up, e.g. "oversold" or "volume spike". Matched case-insensitively on words; omit it to list every entry.',
    ),
};

const position = z.looseObject({
  line: z.number().int().describe("1-based line of the problem."),
  column: z.number().int().describe("1-based column of the problem."),
  offset: z.number().int().describe("0-based character offset into the query."),
});

const queryError = z.looseObject({
  type: z.enum(["syntax", "plan"]).describe('"syntax": the text is malformed at `position`; "plan": well-formed but cannot be planned.'),
  message: z.string(),
  position: position.optional().describe("Where the syntax error is. Absent for plan errors."),
});

/** Query errors (HTTP 400) are objects; every other failure is a message string. */
const error = z
  .union([queryError, z.string()])
  .optional()
  .describe(
    "Present only on failure: an object {type, message, position?} for a query error, or a message string (bad API key, quota exhausted, service unavailable or unreachable).",
  );

const valid = z.boolean().optional().describe("true when the query is valid; false on a query error.");

export const validateOutput = z.looseObject({ valid, error });

const plan = z.looseObject({
  market: z.string(),
  sources: z.array(
    z.looseObject({
      timeframe: z.string(),
      series: z.array(z.string()),
      minLookback: z.number().int(),
    }),
  ),
});

export const explainOutput = z.looseObject({
  plan: plan.optional().describe("The data the query needs: one source per timeframe with its series and minimum bars."),
  explanation: z.string().optional().describe("A mechanical rendering of the query: 'Matches when ...'."),
  valid,
  error,
});

export const runOutput = z.looseObject({
  results: z
    .array(
      z.looseObject({
        symbol: z.string(),
        columns: z.record(z.string(), z.number().nullable()),
      }),
    )
    .optional()
    .describe("Matching instruments in the query's sort order; empty when nothing matches (not an error)."),
  meta: z
    .looseObject({
      instruments: z.number().int().describe("Instruments of the market considered, skipped ones included."),
      matched: z.number().int().describe("Instruments that matched, before the query's limit."),
      skipped: z.looseObject({
        shortHistory: z.number().int().describe("Left out: fewer bars than the query needs."),
        noData: z.number().int().describe("Left out: no bars at all on a timeframe the query needs."),
      }),
      asOf: z.string().nullable().describe("ISO 8601 open time of the latest base bar evaluated; null when none was."),
    })
    .optional()
    .describe("What the run looked at: tells 'nothing matched' from 'no data for this market or timeframe'."),
  valid,
  error,
});

export const historyInput = {
  ...queryInput,
  bars: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe("How many of the latest base bars to evaluate the screen at (default 100, at most 1000)."),
};

const forward = z.looseObject({
  n: z.number().int().describe("Matches with k later bars (only those count)."),
  mean: z.number().nullable().describe("Mean close-to-close return in percent; null when n = 0."),
  median: z.number().nullable(),
  hitRate: z.number().nullable().describe("Share 0..1 of returns above 0."),
});

export const historyOutput = z.looseObject({
  matches: z
    .array(
      z.looseObject({
        time: z.number().describe("Open time of the base bar, UTC ms since epoch."),
        symbol: z.string(),
        columns: z.record(z.string(), z.number().nullable()),
      }),
    )
    .optional()
    .describe("Every match by bar time, then symbol; the values are those a run at that bar would have shown."),
  stats: z
    .looseObject({
      bars: z.number().int(),
      matches: z.number().int(),
      symbolsMatched: z.number().int(),
      forward: z.looseObject({ "1": forward, "5": forward, "20": forward }).describe("Returns 1, 5 and 20 base bars after each match."),
    })
    .optional(),
  meta: z
    .looseObject({
      instruments: z.number().int(),
      matched: z.number().int(),
      skipped: z.looseObject({ shortHistory: z.number().int(), noData: z.number().int() }),
      asOf: z.string().nullable(),
    })
    .optional(),
  valid,
  error,
});

export const referenceOutput = z.object({
  entries: z.array(
    z.object({
      phrase: z.string(),
      query: z.string().describe("A condition fragment, with any `let` lines first; place it after the market and timeframe lines."),
      notes: z.string().optional(),
    }),
  ),
});

export const alertCreateInput = {
  ...queryInput,
  webhook: z
    .string()
    .optional()
    .describe("https:// URL of a public endpoint to POST each change to (signed with the returned secret). Omit it to follow the alert on the stream only."),
  name: z.string().optional().describe("A name for the alert (1 to 200 characters); default: the query's explanation."),
};

const alert = z.looseObject({
  id: z.string().describe("The alert's id, for xql_alert_delete."),
  name: z.string(),
  query: z.string(),
  webhook: z.string().nullable(),
  createdAt: z.string(),
});

export const alertCreateOutput = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  query: z.string().optional(),
  webhook: z.string().nullable().optional(),
  secret: z.string().optional().describe("Signs the webhook deliveries; shown only now. Give it to the user to verify X-XQL-Signature."),
  createdAt: z.string().optional(),
  matching: z.array(z.string()).optional().describe("Symbols matching now (at the latest closed bar): the baseline, which fires no event."),
  valid,
  error,
});

export const alertListOutput = z.looseObject({
  alerts: z.array(alert).optional().describe("The account's alerts, oldest first (no secrets)."),
  error,
});

export const alertDeleteInput = {
  id: z.string().describe("The id of the alert to remove (alrt_...), as xql_alert_list shows it."),
};

export const alertDeleteOutput = z.looseObject({
  deleted: z.string().optional().describe("The id of the alert removed."),
  error,
});

export const watchlistSetInput = {
  name: z.string().describe("The list's name: 1 to 40 characters of a-z, 0-9, _ and -."),
  symbols: z.array(z.string()).describe("1 to 1,000 distinct symbols, as the market spells them (EURUSD, BTCUSDT)."),
};

const watchlist = z.looseObject({ name: z.string(), symbols: z.array(z.string()), updatedAt: z.string() });

export const watchlistSetOutput = z.looseObject({
  name: z.string().optional().describe("The list saved."),
  symbols: z.array(z.string()).optional(),
  updatedAt: z.string().optional(),
  error,
});

export const watchlistListOutput = z.looseObject({
  watchlists: z.array(watchlist).optional().describe("The account's lists, by name."),
  error,
});

export const whyInput = {
  query: z.string().describe("The whole query text, as xql_run takes it."),
  symbol: z.string().describe("The symbol asked about, as the market spells it (EURUSD, BTCUSDT)."),
  time: z.union([z.number(), z.string()]).optional().describe("The bar: ms since epoch or ISO 8601; default the latest."),
};

export const whyOutput = z.looseObject({
  symbol: z.string().optional(),
  time: z.number().optional().describe("Open time (ms) of the bar evaluated."),
  matched: z.boolean().optional(),
  columns: z.record(z.string(), z.number().nullable()).optional(),
  tree: z.looseObject({ expr: z.string(), value: z.union([z.number(), z.boolean(), z.null()]) }).optional().describe("The condition part by part."),
  valid,
  error,
});
