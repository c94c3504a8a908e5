/**
 * `xql data sync EXCHANGE`: keeps the store's CRYPTO bars current from an exchange through
 * ccxt (decisions §6). The sync itself is `ingest/sync.ts`; this is its command line: the
 * options, the pairs chosen, a progress bar on a terminal, Ctrl-C finishing the batch in hand,
 * and one line per round of `--follow`.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliIo, OptionTable } from "../command.js";
import { CliError, UsageError, pick, positiveInteger } from "../command.js";
import { closest, intendedTimeframe, unknownTimeframeMessage } from "../../suggest.js";
import { TIMEFRAMES } from "../../types.js";
import { parseTime } from "../../ingest/csv.js";
import { SYNC_TIMEFRAMES, type SyncTimeframe, isSyncTimeframe, MissingCcxtError, UnknownExchangeError, openExchange } from "../../ingest/sync-exchange.js";
import { SymbolChoiceError, choosePairs, type SymbolChoice } from "../../ingest/sync-symbols.js";
import { DEFAULT_SYNC_BARS, SYNC_MARKET, syncBars, type FollowRound } from "../../ingest/sync.js";
import { progressBar } from "../progress.js";
import { databasePath, openStore } from "../store.js";

/** The timeframe stored when `--timeframe` is not given: h1 gives h4, d and w too, and 5,000 bars are seven months. */
export const DEFAULT_SYNC_TIMEFRAME: SyncTimeframe = "h1";

export const SYNC_OPTIONS = {
  symbols: { type: "string", value: "A/B,...", description: "sync: the pairs, e.g. BTC/USDT,ETH/USDT (stored as BTCUSDT, ETHUSDT)" },
  quote: { type: "string", value: "Q", description: "sync: every spot pair quoted in Q, e.g. USDT (leveraged tokens and stablecoin pairs left out)" },
  top: { type: "string", value: "N", description: "sync with --quote: only the N pairs most traded over 24 h (by quote volume)" },
  timeframe: {
    type: "string",
    value: "TF",
    description: `one of ${SYNC_TIMEFRAMES.join(" ")} w (import of a Binance dump: from the file name when not given; sync: ${SYNC_TIMEFRAMES.join(" ")}, default ${DEFAULT_SYNC_TIMEFRAME})`,
  },
  since: { type: "string", value: "DATE|30d", description: `sync: the oldest bar wanted, a date (2026-10-01) or an age (30d, 12h, 90m, 2w); default the latest ${DEFAULT_SYNC_BARS.toLocaleString("en-US")} bars` },
  follow: { type: "boolean", description: "sync: keep running, fetching each bar as it closes (Ctrl-C stops after the batch in hand)" },
  "api-url": { type: "string", value: "URL", description: "sync: the exchange's REST base URL instead of its own (a regional mirror, a proxy, a test stand-in)" },
  ...pick("db"),
} as const satisfies OptionTable;

export const SYNC_HELP = `  sync     Keeps CRYPTO bars current from an exchange through ccxt (npm install ccxt):
           every spot pair named by --symbols, or quoted in --quote (the --top N most
           traded over 24 h), stored as BASEQUOTE (BTC/USDT -> BTCUSDT) at --timeframe
           (default ${DEFAULT_SYNC_TIMEFRAME}; coarser timeframes are derived). Only closed bars are written.
           It resumes from the bars already stored (fetching the newest missing bars
           first, then older ones back to --since), never fetches a stored bar again,
           respects the exchange's rate limits (backing off on 429/418 and network
           errors, saying so on standard error) and writes each batch of pages in one
           transaction. --follow keeps it running: after each close it fetches what
           closed. Ctrl-C (SIGINT, or SIGTERM) stops it after the batch in hand, exit 0.
`;

type Values = Record<string, string | boolean | undefined>;

const AGE = /^(\d+)\s*(m|min|h|d|w)$/i;
const AGE_MS: Readonly<Record<string, number>> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--since`: a date or time (ISO 8601, ms), or an age before `now` such as `30d`. */
export function parseSince(text: string, now: number): number {
  const age = AGE.exec(text.trim());
  if (age) return now - Number(age[1]) * AGE_MS[age[2]!.toLowerCase()]!;
  const time = parseTime(text.trim());
  if (typeof time === "string") throw new UsageError(`--since: ${time}; give a date (2026-10-01) or an age (30d, 12h, 90m, 2w)`);
  if (time > now) throw new UsageError(`--since ${text} is in the future`);
  return time;
}

/** The version range of an optional package that this xql supports, from its package.json. */
function peerRange(name: string): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++, dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: string; peerDependencies?: Record<string, string> };
    if (manifest.name === "xql") return manifest.peerDependencies?.[name];
  }
  return undefined;
}

/** `xql data sync EXCHANGE ...`. */
export async function syncAction(positionals: string[], values: Values, io: CliIo): Promise<number> {
  const exchangeId = positionals[0];
  if (exchangeId === undefined) throw new UsageError("data sync needs an EXCHANGE: a ccxt exchange id such as binance, bybit, okx or kraken");
  const symbols = values.symbols as string | undefined;
  const quote = values.quote as string | undefined;
  const top = positiveInteger("data sync", "top", values.top as string | undefined);
  if (symbols !== undefined && quote !== undefined) throw new UsageError("data sync takes --symbols or --quote, not both");
  if (symbols === undefined && quote === undefined) throw new UsageError("data sync needs --symbols A/B,C/D or --quote Q (e.g. --quote USDT --top 50)");
  if (top !== undefined && quote === undefined) throw new UsageError("--top N goes with --quote Q: the N most traded pairs quoted in Q");
  const choice: SymbolChoice =
    symbols !== undefined ? { kind: "named", symbols: symbols.split(",").filter((s) => s.trim() !== "") } : { kind: "quote", quote: quote!, top };
  if (choice.kind === "named" && choice.symbols.length === 0) throw new UsageError("--symbols needs at least one pair, e.g. BTC/USDT");
  const timeframeText = (values.timeframe as string | undefined) ?? DEFAULT_SYNC_TIMEFRAME;
  if (!isSyncTimeframe(timeframeText)) {
    if (intendedTimeframe(timeframeText, TIMEFRAMES) === "w") throw new UsageError("data sync stores m1 to d; weeks are derived from days: use --timeframe d");
    throw new UsageError(unknownTimeframeMessage(timeframeText, SYNC_TIMEFRAMES));
  }
  const timeframe = timeframeText;
  const sinceText = values.since as string | undefined;
  const since = sinceText === undefined ? undefined : parseSince(sinceText, Date.now());
  const follow = values.follow === true;
  const apiUrl = values["api-url"] as string | undefined;

  let exchange;
  try {
    exchange = await openExchange(exchangeId, { apiUrl, onRetry: (line) => io.stderr.write(`xql data sync: ${line}\n`) });
  } catch (error) {
    if (error instanceof MissingCcxtError) {
      const range = peerRange("ccxt");
      throw new CliError(
        `the sync needs ccxt, which \`npm install xql\` leaves out so that the library installs light. Install it beside xql: npm install ${range ? `ccxt@${range}` : "ccxt"}`,
      );
    }
    if (error instanceof UnknownExchangeError) {
      const meant = closest(exchangeId.toLowerCase(), error.known);
      throw new UsageError(`${error.message}${meant ? `, did you mean '${meant}'?` : ""} (ccxt's ids: binance, bybit, okx, kraken, coinbase, ...)`);
    }
    if (error instanceof Error && error.message.startsWith("--api-url")) throw new UsageError(error.message);
    throw new CliError(error instanceof Error ? error.message : String(error));
  }

  const store = await openStore(databasePath(values.db as string | undefined, io.env, io.cwd), io.stderr);
  try {
    let pairs;
    try {
      const markets = await exchange.spotMarkets();
      let volumes;
      if (choice.kind === "quote" && choice.top !== undefined) {
        if (!exchange.hasTickers) throw new CliError(`${exchangeId} gives no 24 h volumes for all pairs at once through ccxt, so --top cannot rank them; name the pairs with --symbols`);
        volumes = await exchange.quoteVolumes();
      }
      pairs = choosePairs(exchangeId, markets, choice, volumes);
    } catch (error) {
      if (error instanceof SymbolChoiceError) throw new UsageError(error.message);
      if (error instanceof CliError) throw error;
      throw new CliError(`${exchangeId}: ${error instanceof Error ? error.message : String(error)}`);
    }

    // The synthetic seed (`xql serve` or `xql run` on an empty store) writes pairs with real
    // names at every timeframe, weeks included; a sync would resume after its last made-up bar.
    const chosen = new Set(pairs.map((p) => p.stored));
    const seeded = (await store.series(SYNC_MARKET)).filter((s) => s.timeframe === "w" && !s.derived && chosen.has(s.symbol)).map((s) => s.symbol);
    if (seeded.length > 0) {
      io.stderr.write(
        `xql data sync: warning: ${seeded.length} of these pairs (${seeded.slice(0, 3).join(", ")}${seeded.length > 3 ? ", ..." : ""}) hold weekly bars imported as such, as the synthetic seed writes them; ` +
          `the sync only adds bars after and before them. For real data, sync into a database of its own (--db), or delete them first (xql data delete --symbol S --market ${SYNC_MARKET})\n`,
      );
    }

    const controller = new AbortController();
    io.onStop((reason) => {
      io.stderr.write(`xql data sync: ${reason}: stopping after the batch in hand${reason === "SIGINT" ? " (Ctrl-C again stops at once)" : ""}\n`);
      controller.abort();
    });
    const what =
      choice.kind === "named" ? `${pairs.length} pair${pairs.length === 1 ? "" : "s"}` : `${pairs.length} pairs quoted in ${choice.quote.toUpperCase()}${choice.top === undefined ? "" : ` (the ${choice.top} most traded over 24 h)`}`;
    const from = since === undefined ? `the latest ${DEFAULT_SYNC_BARS.toLocaleString("en-US")} bars` : `bars since ${minute(since)} UTC`;
    io.stderr.write(`xql data sync: ${exchangeId}${apiUrl === undefined ? "" : ` at ${apiUrl}`}, ${what}, ${timeframe} ${from}, into market ${SYNC_MARKET} of ${store.file}\n`);

    const progress = progressBar("Syncing", io.stderr);
    const started = Date.now();
    const report = await syncBars({
      exchange,
      store,
      pairs,
      timeframe,
      since,
      follow,
      signal: controller.signal,
      onProgress: progress.update,
      onNotice: (line) => {
        progress.done();
        io.stderr.write(`xql data sync: ${line}\n`);
      },
      onRound: (round) => {
        progress.done();
        io.stdout.write(roundLine(round, timeframe));
      },
    });
    progress.done();
    const seconds = (Date.now() - started) / 1000;
    io.stdout.write(
      `${report.stopped ? "Stopped after" : "Synced"} ${report.written.toLocaleString("en-US")} ${timeframe} bars of ${pairs.length} symbol${pairs.length === 1 ? "" : "s"} from ${exchangeId} into market ${SYNC_MARKET} (${store.file}) in ${seconds.toFixed(1)} s: ` +
        `${report.requests.toLocaleString("en-US")} requests (${(report.fetchMs / 1000).toFixed(1)} s waiting for ${exchangeId}), ${report.writes} writes (${(report.writeMs / 1000).toFixed(1)} s)\n`,
    );
    if (report.failed.length > 0) {
      io.stderr.write(`xql data sync: ${report.failed.length} pair${report.failed.length === 1 ? "" : "s"} failed: ${report.failed.map((f) => f.symbol).join(", ")}; the next sync resumes them\n`);
      return report.stopped ? 0 : 1;
    }
    return 0;
  } finally {
    await store.close();
  }
}

function minute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

function roundLine(round: FollowRound, timeframe: SyncTimeframe): string {
  const close = minute(round.close);
  if (round.written === 0) return `${close} UTC close: no new ${timeframe} bars\n`;
  return `${close} UTC close: ${round.written.toLocaleString("en-US")} ${timeframe} bar${round.written === 1 ? "" : "s"} of ${round.symbols} symbol${round.symbols === 1 ? "" : "s"}, written ${(round.lagMs / 1000).toFixed(1)} s after the close\n`;
}
